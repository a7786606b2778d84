"""What a takeover keeps: the seats the table plays, and the round that decides one.

Plain data; ``takeover.py`` holds the rules that change it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from ..wire import SignedMessage
from .handflow import HandFlow

__all__ = ["Evidence", "Round", "RoundState", "TableSeat"]


class Evidence(Enum):
    """What one frame of a vote's evidence is."""

    NOTHING = "nothing"  # not the seat's, or not of this step
    LEFT = "left"  # the seat's own signed leave
    PART = "part"  # the seat's part of the step, taken
    ANSWER = "answer"  # a vote or share the seat signed in the step, taken


class RoundState(Enum):
    VOTING = "voting"  # survivors say whether they still have the seat's part of the step
    RECOVERING = "recovering"  # every survivor agreed: each shows its escrow share
    PRESENT = "present"  # someone had the seat's part: the round changed nothing


@dataclass(eq=False, repr=False)  # no repr: it would print the secret
class TableSeat:
    """A seat whose player has gone, played by the table: its recovered game secret, the
    deck of the hand in play as that seat would run it, and its passes by hand."""

    player: int
    secret: bytes
    hand: int  # the hand it was taken over in
    step: str  # and the step
    ending: str  # "left", "gone" or "stalled", as the survivors said
    flow: HandFlow | None = None
    passes: dict[int, list[int]] = field(default_factory=dict)
    # An open seat (void.py): its secret was lost with another seat's in one step, so
    # ``secret`` is a public stand-in every peer derives alike; its original escrow boxes are
    # closed for good.
    open: bool = False


@dataclass(eq=False)
class Round:
    """One round about taking over ``about`` in the step starting at ``prev``."""

    about: int
    prev: bytes
    state: RoundState = RoundState.VOTING
    votes: dict[int, SignedMessage] = field(default_factory=dict)
    shares: dict[int, SignedMessage] = field(default_factory=dict)
    left: bool = False  # the seat signed that it leaves (its abort came as evidence)
    carried: bool = False  # a vote carried the seat's part of the step
    # Other seats in trouble in the same step (void.py): votes about each, by voter; by seat,
    # the senders of votes that showed it alive in the round (they carried a vote or share it
    # signed in the step), and the senders whose vote on it stands as a defence (void.there).
    others: dict[int, dict[int, SignedMessage]] = field(default_factory=dict)
    shown: dict[int, set[int]] = field(default_factory=dict)
    defences: dict[int, set[int]] = field(default_factory=dict)
    early: list[SignedMessage] = field(default_factory=list)  # shares before this peer decided
    # Parts of the step this peer took only as a vote's evidence (takeover.muted_part): taken
    # again should the round be decided present, when they are the step's like any other.
    muted: list[SignedMessage] = field(default_factory=list)
