"""The seat interface between a node and whoever plays the seat: a person at a terminal or a bot.

A front end gets a seat's view (never another seat's cards) and events, and answers with actions.
Both kinds of front end use exactly this, so a bot can do nothing a person could not. The game's
own events come from the core (``game/events.py``); the node adds the table's (connections,
chat, notices).
"""

from __future__ import annotations

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
    PassReceived,
    RosterEntry,
    SeatedRoster,
    SeatTakenOver,
    TrickTaken,
)

__all__ = [
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
    "Notice",
    "PassReceived",
    "PeerState",
    "PeerStatus",
    "RosterEntry",
    "SeatTakenOver",
    "SeatedRoster",
    "TrickTaken",
    "taken_over_text",
]


class PeerStatus(StrEnum):
    CONNECTED = "connected"
    WAITING = "waiting"
    GONE = "gone"


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


_HOW = {"left": "left the table", "gone": "is gone", "stalled": "stopped answering"}


def taken_over_text(event: SeatTakenOver, who: str) -> str:
    """What every front end says when the table takes a seat over."""
    how = _HOW.get(event.ending, event.ending)
    return (
        f"{who} {how}: the table plays that seat from here on, its cards open to everyone "
        "(every peer computes its plays and checks them)"
    )
