"""Steps: the unit in which a game advances, and the order of its log.

A step is a set of messages that may be sent at the same time: one per expected sender (a
shuffle by one seat, a play), or one from every player (echoes, reveals). A step completes when
every expected message has arrived and passed its checks; its entries then go into the log in
sender order. That canonical order is what gives every honest peer a byte-identical log, however
the network interleaved the messages. Every message names the log head at the start of its step
(``prev``), which binds it to all that came before.

In code a step is a ``StepKind`` and, for the kinds that repeat, an index; on the wire it is the
short string the envelope signs (``"play.3"``, ``"shuffle.2"``, ``"deal"``). ``StepId`` converts
between the two, so nothing else splits strings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from ..wire import SignedMessage

__all__ = ["DECISIONS", "Step", "StepId", "StepKind"]


class StepKind(StrEnum):
    """What a step does; the value is the envelope's ``kind`` and the step name's stem."""

    GENESIS = "genesis"
    ACCEPT = "accept"
    FLIP_COMMIT = "flip_commit"
    ESCROW_OPEN = "escrow_open"  # only when a holder said an escrow box sealed to it is bad
    FLIP_REVEAL = "flip_reveal"
    SHUFFLE = "shuffle"
    ECHO_SHUFFLE = "echo_shuffle"
    LOCK = "lock"
    ECHO_LOCK = "echo_lock"
    DEAL = "deal"
    DEALT = "dealt"
    PASS_COMMIT = "pass_commit"
    PASS_REVEAL = "pass_reveal"
    PASSED = "passed"
    REMIX = "remix"  # after the pass: every seat's hand re-keyed and re-ordered by that seat
    REMIX_SHARE = "remix_share"  # every seat's share of the remix proofs' challenge
    REMIX_ANSWER = "remix_answer"  # every seat's answer to its remix proof's challenge
    EXPOSE = "expose"  # Gong Zhu's 亮牌: every seat shows the cards it exposes, or none
    EXPOSE_FOURTH = "expose_fourth"  # 逼明: the holder of the fourth exposable card shows it
    OPEN = "play"  # a card played: its holder opens it (the deck's Open); "play" on the wire
    MOON = "moon"
    REVEAL = "reveal"
    END = "end"
    SEATS = "seats"  # at a hand boundary while the table plays a seat: reclaims carried
    REKEY = "rekey"  # a reclaim counted: each present player escrows a fresh secret
    WELCOME = "welcome"  # each carries the returner's rejoin and says which boxes to it fail

    @property
    def indexed(self) -> bool:
        """Whether steps of this kind repeat, numbered: one shuffle and lock per seat, the plays."""
        return self in _INDEXED


_INDEXED = frozenset({StepKind.SHUFFLE, StepKind.LOCK, StepKind.OPEN})

AHEAD = frozenset({StepKind.SHUFFLE, StepKind.ECHO_SHUFFLE, StepKind.LOCK, StepKind.ECHO_LOCK})
"""The deck's steps that need nothing of the hand in play: the next hand's run during its plays."""

DECISIONS = frozenset({StepKind.PASS_COMMIT, StepKind.EXPOSE, StepKind.OPEN, StepKind.MOON})
"""The kinds whose message a seat decides (a person or a bot); the rest its software sends."""


@dataclass(frozen=True, slots=True)
class StepId:
    """A step's kind and, for an indexed kind, its number (``play.16`` is OPEN, 16)."""

    kind: StepKind
    index: int | None = None

    def __post_init__(self) -> None:
        if self.kind.indexed != (self.index is not None):
            need = "needs" if self.kind.indexed else "has no"
            raise ValueError(f"a {self.kind.value} step {need} index")

    @classmethod
    def parse(cls, name: str) -> StepId | None:
        """The step a wire name stands for, or None if it names none."""
        stem, dot, index = name.partition(".")
        try:
            kind = StepKind(stem)
        except ValueError:
            return None
        if not kind.indexed:
            return cls(kind) if not dot else None
        if not index.isascii() or not index.isdigit():
            return None
        return cls(kind, int(index))

    def __str__(self) -> str:
        return self.kind.value if self.index is None else f"{self.kind.value}.{self.index}"


@dataclass
class Step:
    """One step: who must send, and what has arrived so far."""

    hand: int
    id: StepId
    senders: tuple[int, ...]  # players, in log order
    prev: bytes
    any_one: bool = False  # done with the first valid message of any sender (the first lead)
    got: dict[int, SignedMessage] = field(default_factory=dict)
    parsed: dict[int, object] = field(default_factory=dict)
    table: set[int] = field(default_factory=set)  # taken-over seats' parts: computed, not sent

    @property
    def kind(self) -> StepKind:
        return self.id.kind

    @property
    def name(self) -> str:
        """The step's name as envelopes carry it."""
        return str(self.id)

    @property
    def complete(self) -> bool:
        if self.any_one:
            return bool(self.got) or bool(self.table)
        return len(self.got) + len(self.table) == len(self.senders)

    def has(self, player: int) -> bool:
        """Whether ``player``'s part of the step is in, sent or computed for its table seat."""
        return player in self.got or player in self.table

    def waiting_for(self) -> list[int]:
        if self.complete:
            return []
        return [p for p in self.senders if not self.has(p)]

    def in_order(self) -> list[SignedMessage]:
        return [self.got[p] for p in self.senders if p in self.got]

    def __str__(self) -> str:
        return f"hand {self.hand} {self.name}"
