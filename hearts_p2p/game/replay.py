"""The end-of-hand replay: a hand played again through the engine with every card known.

During play each peer sees only its own cards, so it can check only what is public. Once the
deck's audit has given the true hands (the deal and the passes, or, when the passes stay
private, each seat's hand after the pass), this replays the hand's actions and finds any rule
a seat broke where only its own cards could show it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..cards import mask_of
from ..engine import ChooseMoon, Claim, Expose, IllegalActionError, PassCards, PlayCard
from ..engine.hand import HandState
from ..rules import Rules

__all__ = ["HandTruth", "ReplayFault", "replay_hand"]

HandAction = PassCards | PlayCard | ChooseMoon | Expose | Claim


@dataclass(frozen=True)
class HandTruth:
    """The cards of a hand as its deck's audit established them: each seat's hand after the
    pass (``held``, masks), and its dealt hand and pass (masks; 0 in a no-pass hand), or None
    for a seat whose dealt hand and pass this peer cannot know: a clean remixed hand's passes
    stay private (SPEC 4.4 step 9), known only to the passer and the receiver."""

    held: tuple[int, ...]
    dealt: tuple[int | None, ...]
    passed: tuple[int | None, ...]

    @property
    def private(self) -> bool:
        """Whether some seat's pass is unknown here: the replay then starts after the pass."""
        return None in self.dealt or None in self.passed


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
    truth: HandTruth,
    actions: Sequence[tuple[int, HandAction]],
) -> HandState:
    """Replay hand ``number`` from what the deck's audit established (``truth``) and the seats'
    exposures, plays, claim and moon choice, in order: from the true deal and passes, or, when
    the passes stay private, from each seat's hand after the pass."""
    dealt, passed = truth.dealt, truth.passed
    if truth.private:
        replay = HandState.deal(rules, number, list(truth.held))
        replay.begin_after_pass()
    else:
        replay = HandState.deal(rules, number, [d or 0 for d in dealt])
    seat, where = 0, f"hand {number}, the pass"
    try:
        if replay.pass_targets is not None and not truth.private:
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
