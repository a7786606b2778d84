"""Steps: the unit in which a game advances, and the order of its log.

A step is a set of messages that may be sent at the same time: one per expected sender (a
shuffle by one seat, a play), or one from every player (echoes, reveals). A step completes when
every expected message has arrived and passed its checks; its entries then go into the log in
sender order. That canonical order is what gives every honest peer a byte-identical log, however
the network interleaved the messages. Every message names the log head at the start of its step
(``prev``), which binds it to all that came before.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..wire import SignedMessage

__all__ = ["Step"]


@dataclass
class Step:
    """One step: who must send, and what has arrived so far."""

    hand: int
    name: str
    senders: tuple[int, ...]  # players, in log order
    prev: bytes
    any_one: bool = False  # done with the first valid message of any sender (the first lead)
    got: dict[int, SignedMessage] = field(default_factory=dict)
    parsed: dict[int, object] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        if self.any_one:
            return bool(self.got)
        return len(self.got) == len(self.senders)

    def waiting_for(self) -> list[int]:
        if self.complete:
            return []
        return [p for p in self.senders if p not in self.got]

    def in_order(self) -> list[SignedMessage]:
        return [self.got[p] for p in self.senders if p in self.got]

    def __str__(self) -> str:
        return f"hand {self.hand} {self.name}"
