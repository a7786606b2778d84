"""The end-of-hand replay: a hand played again through the engine with every card known.

During play each peer sees only its own cards, so it can check only what is public. Once the
deck's audit has given the true deal and the true passes, this replays the hand's actions and
finds any rule a seat broke where only its own cards could show it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..cards import mask_of
from ..engine import ChooseMoon, Claim, Expose, IllegalActionError, PassCards, PlayCard
from ..engine.hand import HandState
from ..rules import Rules

__all__ = ["ReplayFault", "replay_hand"]

HandAction = PassCards | PlayCard | ChooseMoon | Expose | Claim


@dataclass(frozen=True)
class ReplayFault(Exception):
    """``seat`` broke ``rule`` at ``where`` (``hand 2, trick 5``)."""

    seat: int
    where: str
    rule: str

    def __str__(self) -> str:
        return f"{self.where}: {self.rule} (found by the end-of-hand replay)"


def replay_hand(
    rules: Rules,
    number: int,
    dealt: Sequence[int],
    passed: Sequence[int],
    actions: Sequence[tuple[int, HandAction]],
) -> HandState:
    """Replay hand ``number`` from the true deal (a mask per seat), the true passes (a mask per
    seat, ignored in a no-pass hand) and the seats' exposures, plays, claim and moon choice, in
    order."""
    replay = HandState.deal(rules, number, list(dealt))
    seat, where = 0, f"hand {number}, the pass"
    try:
        if replay.pass_targets is not None:
            for seat, cards in enumerate(passed):
                replay.apply_pass(seat, cards)
        for seat, action in actions:
            where = f"hand {number}"
            if isinstance(action, PlayCard):
                where += f", trick {len(replay.tricks) + 1}"
                replay.apply_play(seat, int(action.card))
            elif isinstance(action, Expose):
                where += ", the exposure"
                replay.apply_expose(seat, mask_of(action.cards))
            elif isinstance(action, Claim):
                where += f", the claim at trick {len(replay.tricks) + 1}"
                replay.apply_claim(seat, mask_of(action.cards))
            elif isinstance(action, ChooseMoon):
                replay.apply_moon_choice(seat, action.add_to_others)
    except IllegalActionError as e:
        raise ReplayFault(seat, where, e.rule) from None
    return replay
