"""The seat interface between a node and whoever plays the seat: a person at a terminal or a bot.

A front end gets a seat's view (never another seat's cards) and events, and answers with actions.
Both kinds of front end use exactly this, so a bot can do nothing a person could not.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from .cards import Card
from .engine import Action, GameResult, HandResult, SeatView

__all__ = [
    "Aborted",
    "CardPlayed",
    "ChatLine",
    "Event",
    "FrontEnd",
    "GameOver",
    "HandScored",
    "HandStarted",
    "Notice",
    "PassReceived",
    "PeerState",
    "PeerStatus",
    "RosterEntry",
    "SeatedRoster",
    "TrickTaken",
]


@dataclass(frozen=True, slots=True)
class RosterEntry:
    seat: int
    name: str
    fingerprint: str
    is_bot: bool


@dataclass(frozen=True, slots=True)
class SeatedRoster:
    """The players in seat order, fixed by the joint coin flip, shown before the first deal."""

    players: tuple[RosterEntry, ...]
    you: int
    rules_summary: str


@dataclass(frozen=True, slots=True)
class HandStarted:
    view: SeatView


@dataclass(frozen=True, slots=True)
class PassReceived:
    source: int
    cards: tuple[Card, ...]
    view: SeatView


@dataclass(frozen=True, slots=True)
class CardPlayed:
    seat: int
    card: Card
    view: SeatView


@dataclass(frozen=True, slots=True)
class TrickTaken:
    winner: int
    cards: tuple[tuple[int, Card], ...]
    points: int
    view: SeatView


@dataclass(frozen=True, slots=True)
class HandScored:
    number: int
    result: HandResult
    totals: tuple[int, ...]
    view: SeatView


@dataclass(frozen=True, slots=True)
class GameOver:
    result: GameResult
    log_path: str
    final_hash: str


@dataclass(frozen=True, slots=True)
class Aborted:
    """The game ended early; ``culprit`` is the seat blamed, if any."""

    reason: str
    culprit: int | None
    log_path: str


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


Event = (
    SeatedRoster
    | HandStarted
    | PassReceived
    | CardPlayed
    | TrickTaken
    | HandScored
    | GameOver
    | Aborted
    | PeerState
    | ChatLine
    | Notice
)


class FrontEnd(Protocol):
    async def choose(self, view: SeatView) -> Action:
        """The seat's next action, one of ``view.legal``; may take as long as a person does."""
        ...

    async def notify(self, event: Event) -> None:
        """Something happened at the table."""
        ...
