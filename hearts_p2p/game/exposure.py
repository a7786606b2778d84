"""Gong Zhu's exposure (亮牌) as steps of the game: shown through the deck, checked by every peer.

After the deal every seat sends one ``expose`` message at once: the deck's open of each card it
exposes (none, to expose nothing), the very open a play of the card would send, so it proves the
seat holds the card and the card stays in its hand. Every peer checks the proof and the engine's
rules it can see (only Q♠ J♦ 10♣ A♥, J♦ barred by 除羊全亮); what only the seat's whole hand
shows (a card 分牌全亮 or 除羊全亮 forced it to expose) the end-of-hand replay checks and names.
Under 逼明, once three cards are exposed, an ``expose_fourth`` step follows: the holder of the
fourth, whom only it knows, shows it; its software does so by itself, as nothing is left to
decide. A false exposure (a card not held, a card that cannot be exposed) is its sender's cheat,
and so is a late one: any expose message once the step is over.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..cards import CARDS, cards_of
from ..engine import Expose, IllegalActionError, SeatView
from .events import CardsExposed
from .state import GameState, StepRule, nothing_to_send
from .steps import Step, StepId, StepKind

__all__ = ["exposure_body", "exposure_steps", "next_exposure"]


def next_exposure(s: GameState) -> None:
    """Begin the hand's exposure step that is due (the engine's hand is in its EXPOSE phase)."""
    assert s.game is not None and s.game.hand is not None
    hand = s.game.hand
    if not hand.forced:
        s.new_step(hand.number, StepId(StepKind.EXPOSE), s.everyone())
    elif hand.turn is None:
        # Only the holder knows the fourth card is its own: whoever proves it first is the one.
        s.new_step(hand.number, StepId(StepKind.EXPOSE_FOURTH), s.everyone(), any_one=True)
    else:
        s.new_step(hand.number, StepId(StepKind.EXPOSE_FOURTH), (s.player_at[hand.turn],))


def exposure_body(s: GameState, cards: tuple[int, ...]) -> dict[str, Any]:
    """This seat's exposure message: the deck's open of each card."""
    assert s.flow is not None
    return {"cards": s.flow.make_shows(list(cards))}


def _check_expose(s: GameState, player: int, body: dict[str, Any]) -> int:
    assert s.flow is not None and s.game is not None
    seat = s.seat_of[player]
    if set(body) != {"cards"}:
        raise IllegalActionError(f"malformed {s.step.kind} message", seat)
    cards = s.flow.accept_shows(seat, body["cards"])
    if s.step.kind is StepKind.EXPOSE_FOURTH and not cards:
        raise IllegalActionError("sent an empty exposure for the fourth card", seat)
    s.game.apply(seat, Expose(tuple(CARDS[c] for c in cards_of(cards))))
    return cards


def _send_fourth(s: GameState) -> dict[str, Any] | None:
    """The fourth card's holder shows it at once; the other seats send nothing."""
    assert s.game is not None and s.game.hand is not None
    hand = s.game.hand
    seat = s.my_seat
    if seat is None or hand.turn != seat or not hand.hands[seat] & hand.forced:
        return None
    return exposure_body(s, tuple(cards_of(hand.forced)))


def _advance(then: Callable[[GameState], None]) -> Callable[[GameState, Step], None]:
    def advance(s: GameState, done: Step) -> None:
        """The exposures go to the replay in log order and to the screen; then play, or the
        fourth card's exposure, follows."""
        assert s.game is not None
        for player in done.senders:
            mask = done.parsed[player]
            assert isinstance(mask, int)
            seat = s.seat_of[player]
            cards = tuple(CARDS[c] for c in cards_of(mask))
            s.hand_actions.append((seat, Expose(cards)))
            if s.my_seat is not None:
                s.events.append(CardsExposed(seat, cards, SeatView.of(s.game, s.my_seat)))
        then(s)

    return advance


def exposure_steps(then: Callable[[GameState], None]) -> dict[StepKind, StepRule]:
    """The exposure steps' rules; ``then`` begins whatever the hand does next."""
    advance = _advance(then)
    return {
        StepKind.EXPOSE: StepRule(_check_expose, advance, nothing_to_send),
        StepKind.EXPOSE_FOURTH: StepRule(_check_expose, advance, _send_fourth),
    }
