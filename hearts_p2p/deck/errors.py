"""The deck's errors: a malformed message, a caught cheat, a split view, a local misuse.

They are kept apart because the node reacts differently: a malformed frame is dropped, a cheat
ends the hand with the culprit named, a split view needs the signed messages compared, and a
misuse is a bug in the caller.
"""

from __future__ import annotations

__all__ = [
    "DeckCheatError",
    "DeckEchoMismatch",
    "DeckError",
    "DeckMessageError",
    "DeckUsageError",
]


class DeckError(ValueError):
    """Base of every error the deck raises."""


class DeckMessageError(DeckError):
    """A message that does not decode: wrong keys, types or lengths. Nobody is blamed."""


class DeckCheatError(DeckError):
    """A deviation from the protocol, proven by the culprit's own published messages."""

    def __init__(self, seat: int, reason: str) -> None:
        super().__init__(f"seat {seat} cheated: {reason}")
        self.seat = seat
        self.reason = reason

    def __repr__(self) -> str:
        return f"DeckCheatError(seat={self.seat!r}, reason={self.reason!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DeckCheatError):
            return NotImplemented
        return (self.seat, self.reason) == (other.seat, other.reason)

    def __hash__(self) -> int:
        return hash((self.seat, self.reason))


class DeckEchoMismatch(DeckError):
    """A seat's transcript hash differs from ours: someone showed different decks to different
    peers. The deck alone cannot tell who; the signed messages the seats received can."""

    def __init__(self, seat: int, stage: str) -> None:
        super().__init__(f"seat {seat} saw a different {stage} transcript")
        self.seat = seat
        self.stage = stage


class DeckUsageError(DeckError):
    """The local caller asked for something impossible now (a card we do not hold, a pass in a
    no-pass hand); never caused by a peer."""
