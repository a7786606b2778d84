"""What the game core tells whoever runs it: the events of one game, in the order they happen.

A seat's events carry its view (never another seat's cards); ``HandRecord`` comes once a hand's
cards are all revealed and checked, which is what the offline audit reports.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..cards import Card
from ..engine import GameResult, HandResult, SeatView
from ..engine.hand import HandState
from .outcome import Termination

__all__ = [
    "Aborted",
    "CardPlayed",
    "CardsExposed",
    "GameEvent",
    "GameOver",
    "HandClaimed",
    "HandRecord",
    "HandScored",
    "HandStarted",
    "HandVoided",
    "PassReceived",
    "ReclaimRefused",
    "RosterEntry",
    "SeatReclaimed",
    "SeatTaken",
    "SeatTakenOver",
    "SeatedRoster",
    "SitAsked",
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
class CardsExposed:
    """A Gong Zhu seat's exposure, proven through the deck (``cards`` empty: it showed none)."""

    seat: int
    cards: tuple[Card, ...]
    view: SeatView


@dataclass(frozen=True, slots=True)
class CardPlayed:
    seat: int
    card: Card
    view: SeatView


@dataclass(frozen=True, slots=True)
class HandClaimed:
    """A claim of the rest (摊牌), the claimer's hand shown; ``refusal`` says why it does not
    hold (None: the hand ends, the claimer taking every card still out)."""

    seat: int
    cards: tuple[Card, ...]
    refusal: str | None
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
    """The game ended early; ``culprit`` is the seat blamed, if any; ``reason`` is for people."""

    termination: Termination
    reason: str
    culprit: int | None
    log_path: str


@dataclass(frozen=True, slots=True)
class SeatTakenOver:
    """The player at ``seat`` has gone (``ending``: left, gone or stalled) and the table plays
    its seat from hand ``hand`` on, its cards open to all."""

    seat: int
    name: str
    ending: str
    hand: int
    trick: int | None = None  # the trick it was taken over in; None: before the play


@dataclass(frozen=True, slots=True)
class HandVoided:
    """Hand ``number`` counts for nothing: the players at ``seats`` left in one step and their
    secrets are lost (each one's escrow needs the other's share), so their cards can be neither
    opened nor checked. Their seats are dealt open from then on. ``redeal``: the number of the
    hand dealt in its place, or None when fewer than two players are left and the game ends on
    the totals so far."""

    number: int
    seats: tuple[int, ...]
    names: tuple[str, ...]
    redeal: int | None


@dataclass(frozen=True, slots=True)
class SeatReclaimed:
    """The player at ``seat``, whose seat the table played, is back from hand ``hand`` on: dealt
    normally again, its keys from a fresh secret escrowed anew."""

    seat: int
    name: str
    hand: int


@dataclass(frozen=True, slots=True)
class ReclaimRefused:
    """The player at ``seat`` asked to come back at hand ``hand``, but the players ``by`` (seats)
    each signed that the escrow box it sealed to them does not open: the table plays on."""

    seat: int
    name: str
    hand: int
    by: tuple[int, ...]
    newcomer: str = ""  # a newcomer's sit (sitdown.py): its fingerprint, ``name`` its name


@dataclass(frozen=True, slots=True)
class SitAsked:
    """A newcomer, ``name`` with its own identity key (``fingerprint``), asks to take the seat
    ``seat`` the table plays (its player was ``was``) from hand ``hand`` on. At an ``ask`` table
    each seated player answers (``GameProtocol.consent``); no answer before its ``seats`` is a
    refusal."""

    seat: int
    name: str
    fingerprint: str
    was: str
    hand: int
    bot: bool
    key: bytes  # the newcomer's identity key, to answer with
    ask: bool = False  # an ``ask`` table: each seated person answers yes or no


@dataclass(frozen=True, slots=True)
class SeatTaken:
    """The newcomer ``name`` (``fingerprint``) holds seat ``seat`` from hand ``hand`` on, in
    place of ``was``: its identity key signs for that seat from then on, its fresh secret
    escrowed anew with every seated player's."""

    seat: int
    name: str
    fingerprint: str
    was: str
    hand: int


@dataclass(frozen=True, slots=True)
class HandRecord:
    """A hand as the end-of-hand audit established it: true deal, passes and every trick.
    When the passes stay private (a clean remixed hand), a seat's dealt hand and pass are None
    unless this peer dealt or received that pass; ``held`` is every seat's hand after it."""

    number: int
    dealt: tuple[int | None, ...]  # mask per seat
    passed: tuple[int | None, ...]  # mask per seat (0 in a no-pass hand)
    held: tuple[int, ...]  # mask per seat: its cards after the pass
    replay: HandState  # the hand replayed with every card known
    totals: tuple[int, ...]  # running totals after it, per seat


GameEvent = (
    SeatedRoster
    | HandStarted
    | PassReceived
    | CardsExposed
    | CardPlayed
    | HandClaimed
    | TrickTaken
    | HandScored
    | HandRecord
    | GameOver
    | Aborted
    | SeatTakenOver
    | HandVoided
    | SeatReclaimed
    | ReclaimRefused
    | SitAsked
    | SeatTaken
)
