"""The seat interface between a node and whoever plays the seat: a person at a terminal or a bot.

A front end gets a seat's view (never another seat's cards) and events, and answers with actions.
Both kinds of front end use exactly this, so a bot can do nothing a person could not. The game's
own events come from the core (``game/events.py``); the node adds the table's (connections,
chat, notices).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from .engine import Action, SeatView
from .game.events import (
    Aborted,
    CardPlayed,
    CardsExposed,
    GameEvent,
    GameOver,
    HandClaimed,
    HandRecord,
    HandScored,
    HandStarted,
    HandVoided,
    PassReceived,
    ReclaimRefused,
    RosterEntry,
    SeatedRoster,
    SeatReclaimed,
    SeatTaken,
    SeatTakenOver,
    SitAsked,
    TrickTaken,
)
from .text import clean

__all__ = [
    "YOU_LEFT",
    "Aborted",
    "CardPlayed",
    "CardsExposed",
    "ChatLine",
    "Event",
    "FrontEnd",
    "GameEvent",
    "GameOver",
    "HandClaimed",
    "HandRecord",
    "HandScored",
    "HandStarted",
    "HandVoided",
    "Notice",
    "PassReceived",
    "PeerState",
    "PeerStatus",
    "ReclaimRefused",
    "RosterEntry",
    "SeatReclaimed",
    "SeatTaken",
    "SeatTakenOver",
    "SeatedRoster",
    "SitAsked",
    "TrickTaken",
    "reclaimed_text",
    "shows_plays",
    "sit_text",
    "taken_over_text",
    "voided_text",
]


class PeerStatus(StrEnum):
    CONNECTED = "connected"
    WAITING = "waiting"  # its link dropped: taken over if it is not back within the timeout
    LEFT = "left"  # its link dropped after it quit, or while the table plays its seat


@dataclass(frozen=True, slots=True)
class PeerState:
    seat: int
    status: PeerStatus


@dataclass(frozen=True, slots=True)
class ChatLine:
    seat: int
    text: str


@dataclass(frozen=True, slots=True)
class Notice:
    """Anything else worth a line on the screen (lobby progress, resuming, …)."""

    text: str


Event = GameEvent | PeerState | ChatLine | Notice


class FrontEnd(Protocol):
    async def choose(self, view: SeatView) -> Action:
        """The seat's next action, one of ``view.legal``; may take as long as a person does."""
        ...

    async def notify(self, event: Event) -> None:
        """Something happened at the table."""
        ...


# What a player who quit is told: its own log ends with its leaving, but the game goes on.
YOU_LEFT = (
    "You left the game. The others play on to the end: the table plays your seat, its cards "
    "open to everyone"
)

_HOW = {"left": "left the table", "gone": "is gone", "stalled": "stopped answering"}


_HOW_YOU = {"left": "left", "gone": "were gone", "stalled": "stopped answering"}


def shows_plays(front: object) -> bool:
    """Whether ``front`` shows each play (a person's screen), so the game core makes a view and
    events per play for it; a bot or a headless peer says ``shows_plays = False``."""
    return bool(getattr(front, "shows_plays", True))


def taken_over_text(event: SeatTakenOver, who: str, *, you: bool = False) -> str:
    """What every front end says when the table takes a seat over; ``you``: the player's own
    seat, which it learns on its return."""
    trick = f", trick {event.trick}" if event.trick is not None else ""
    if you:
        how = _HOW_YOU.get(event.ending, event.ending)
        since = f"trick {event.trick}" if event.trick is not None else "before the play"
        return (
            f"you {how} in hand {event.hand}: the table has played your seat since {since} of "
            "that hand, its cards open to everyone; you follow the game and take your seat "
            "back at the next hand"
        )
    how = _HOW.get(event.ending, event.ending)
    return (
        f"{who} {how}: the table plays that seat from here on (hand {event.hand}{trick}), its "
        "cards open to everyone (every peer computes its plays and checks them)"
    )


def voided_text(number: int, names: Sequence[str], redeal: int | None) -> str:
    """What every front end, the audit and the replay say of a voided hand (``names``: the
    players whose secrets were lost with it)."""
    if len(names) > 1:
        who = ", ".join(names[:-1]) + f" and {names[-1]} left together"
    else:
        who = f"{names[0]} left, and its escrow needs a share no one can open any more"
    then = (
        f"re-dealt as hand {redeal}"
        if redeal is not None
        else "one player is left: the game ends on the totals so far"
    )
    return f"hand {number} voided: {who}; {then} (their seats are dealt open from now on)"


def sit_text(event: SitAsked | SeatTaken, seat: str) -> str:
    """What every front end says when a newcomer asks for an open seat, or takes it."""
    who = f"{clean(event.name, 32)} ({event.fingerprint})"
    if isinstance(event, SeatTaken):
        return f"{who} took {seat}'s seat from hand {event.hand}; every seat re-keyed"
    return f"{who} asks to take {seat}'s seat from hand {event.hand}"


def reclaimed_text(
    event: SeatReclaimed | ReclaimRefused, who: str, by: str = "", *, you: bool = False
) -> str:
    """What every front end says when a seat the table played comes back, or may not."""
    if isinstance(event, SeatReclaimed):
        if you:
            return f"you are back from hand {event.hand}: your seat and your cards are yours again"
        return f"{who} is back from hand {event.hand}, dealt like everyone again"
    asker = "you" if you else who
    if isinstance(event, ReclaimRefused) and event.newcomer:
        return (
            f"{clean(event.name, 32)} ({event.newcomer}) asked for {who}'s seat at hand "
            f"{event.hand}, but {by or 'nobody'} refused or its escrow did not come: the table "
            "plays that seat on"
        )
    why = (
        f"{by} signed that a fresh escrow box sealed to them does not open, or had no rejoin"
        if by
        else "its fresh escrow did not come in time"
    )
    return (
        f"{asker} asked to come back at hand {event.hand}, but {why}: the table plays that "
        "seat on, nobody's keys changed, and it is asked back again at the next hand"
    )
