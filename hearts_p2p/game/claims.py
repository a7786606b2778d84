"""Claims (摊牌) as part of the play step: the seat on lead shows its whole hand and takes the rest.

Instead of a card, the seat whose lead it is may send ``{claim: [deck open, …]}`` for the play
step: the deck's open of every card it holds, proving the hand is its own without playing it.
Every peer's engine then decides alike, on public knowledge and the hand shown, whether the
claim holds (each card above every card of its suit still out, or no scoring card left). A claim
that holds ends the hand: the claimer takes every card still out, every seat reveals its deck
secrets (the hand stops as after an alarm, blaming no one) and the end-of-hand replay checks the
claim again with every card known. A claim that does not hold is logged, refused and blames no
one: the same seat then plays a card, in a play step of the same number. A claim whose proofs
fail, or that shows less than the whole hand, or comes from a seat not on lead, or comes again in
the play step that follows its refusal, is a cheat.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..cards import CARDS, cards_of
from ..engine import Claim, IllegalActionError, SeatView
from .events import HandClaimed
from .state import GameState, StepRule
from .steps import Step

__all__ = ["ClaimMade", "claim_body", "with_claims"]

CLAIM_REASON = "the hand is claimed"  # what each seat's reveal says after a claim that holds


@dataclass(frozen=True)
class ClaimMade:
    """A claim as a play step keeps it: the hand shown, and why it does not hold (None: it does)."""

    seat: int
    cards: int
    refusal: str | None


def claim_body(s: GameState, cards: tuple[int, ...]) -> dict[str, Any]:
    """This seat's claim: the deck's open of every card it holds."""
    assert s.flow is not None
    return {"claim": s.flow.make_shows(list(cards))}


def with_claims(
    play: StepRule, *, again: Callable[[GameState], None], then: Callable[[GameState], None]
) -> StepRule:
    """The play step's rule, taking a claim in a card's place. After a refused claim ``again``
    begins the same seat's play; after one that holds ``then`` ends the hand."""

    def check(s: GameState, player: int, body: dict[str, Any]) -> object:
        if "claim" not in body:
            return play.check(s, player, body)
        return _check_claim(s, player, body)

    def advance(s: GameState, done: Step) -> None:
        made = done.parsed[done.senders[0]]
        if not isinstance(made, ClaimMade):
            play.advance(s, done)
            return
        _after_claim(s, made)
        if made.refusal is not None:
            s.refused = (done.hand, done.name)  # the same play again: a card this time
        (again if made.refusal is not None else then)(s)

    return StepRule(check, advance, play.send)


def _check_claim(s: GameState, player: int, body: dict[str, Any]) -> ClaimMade:
    assert s.flow is not None and s.game is not None and s.game.hand is not None
    seat = s.seat_of[player]
    if set(body) != {"claim"}:
        raise IllegalActionError("malformed claim", seat)
    if not s.game.hand.claims_allowed:
        raise IllegalActionError("these rules have no claims", seat)
    if s.refused == (s.step.hand, s.step.name):
        # Its claim in this play was refused: it plays a card now. Claiming again would make
        # a new step of each refusal, and hold the table for ever.
        raise IllegalActionError("claimed again after its claim was refused", seat)
    cards = s.flow.accept_shows(seat, body["claim"], s.game.rules.cards_each)
    return ClaimMade(seat, cards, s.game.hand.claim_refusal(seat, cards))


def _after_claim(s: GameState, made: ClaimMade) -> None:
    """Tell the screen; apply a claim that holds and stop the deck, so that every seat reveals."""
    assert s.game is not None and s.flow is not None
    claim = Claim(tuple(CARDS[c] for c in cards_of(made.cards)))
    if made.refusal is None:
        s.game.apply(made.seat, claim)
        s.hand_actions.append((made.seat, claim))
        s.flow.stop(CLAIM_REASON)
    if s.my_seat is not None:
        view = SeatView.of(s.game, s.my_seat)
        s.events.append(HandClaimed(made.seat, claim.cards, made.refusal, view))
