"""The next deck during the current hand (SPEC 6.3): its shuffle and lock run among the plays.

A deck's shuffle, lock and their echoes need nothing of the hand in play, only each seat's
fresh randomness; its deal releases keys, so it waits for the hand before it to be audited. So
when a hand's play begins, the next hand's deck opens, and after each play step one of its
steps before the deal runs, until none is left. The last card is then followed by the reveal,
the audit and at once the deal. Whatever is left of the deck when the hand ends early (a claim,
a short Gong Zhu hand) runs before the deal, as a first hand's deck does. A hand sure to end the
game, however it goes on (``engine.ending``), opens no next deck and stops stepping one begun:
the game will deal no other hand, and if the hand is voided after all, the next is shuffled
before its deal.

A deck shuffled ahead is dealt only to the seats it was shuffled for: when a seat's pass key
changed at the boundary (a player back), it is set aside unopened and the next deck is shuffled
there, drawing afresh (``GameState.hand_label``).
"""

from __future__ import annotations

from ..coinflip import HashStream
from ..engine.ending import ends_the_game
from .handflow import HandFlow
from .state import Ahead, GameState
from .steps import AHEAD, StepKind
from .takeover import new_flow

__all__ = ["ahead_step", "last_hand", "open_ahead", "own_flow", "take_ahead"]


def own_flow(s: GameState, number: int) -> HandFlow:
    """This peer's deck of hand ``number``, from its own secret (an observer's: no secret)."""
    assert s.genesis is not None
    pass_keys = [s.pass_key_of(p) for p in s.player_at]
    rng = HashStream(s.derive(s.hand_label(number)))
    seat = s.my_seat
    key = s.dh_private if seat is not None else None
    return HandFlow(
        s.genesis.rules, s.game_id, number, pass_keys, seat, rng, key, s.genesis.proof_rounds
    )


def last_hand(s: GameState) -> bool:
    """Whether the hand in play is sure to end the game however it goes on: no deck is then
    shuffled ahead, or the rest of one begun is left (SPEC 6.3)."""
    assert s.game is not None
    hand = s.game.hand
    return hand is not None and ends_the_game(s.game.rules, s.game.totals, hand.taken)


def open_ahead(s: GameState) -> None:
    """Open the next hand's deck, once: when this hand's play begins, unless it is the last."""
    assert s.game is not None
    if s.ahead is not None or s.game.over or last_hand(s):
        return
    number = s.game.number + 1
    s.ahead = Ahead(own_flow(s, number))
    for player, seat in s.table.items():
        s.ahead.table[player] = new_flow(s, seat, number)


def ahead_step(s: GameState) -> bool:
    """After a play step: begin the next deck's next step, if one is left before its deal."""
    a = s.ahead
    if a is None or s.step.kind is not StepKind.OPEN or last_hand(s):
        return False
    nxt = a.flow.peek_step()
    if nxt is None or nxt[0].kind not in AHEAD:
        return False
    a.flow.next_step()
    step, seats = nxt
    s.new_step(a.number, step, tuple(s.player_at[seat] for seat in seats))
    return True


def take_ahead(s: GameState, number: int) -> Ahead | None:
    """The deck shuffled ahead for hand ``number``, if it can be dealt: shuffled for the seats
    as they are now. Otherwise it is set aside, and hand ``number`` draws afresh."""
    a, s.ahead = s.ahead, None
    if a is None or a.number != number:
        return None
    pass_keys = tuple(s.pass_key_of(p) for p in s.player_at)
    if a.flow.params.pass_keys != pass_keys or set(a.table) != set(s.table):
        s.reshuffled.add(number)
        return None
    return a
