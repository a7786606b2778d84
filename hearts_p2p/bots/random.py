"""The random bot: a uniformly random legal action, the floor every other strategy must clear."""

from __future__ import annotations

import random

from ..engine import Action, SeatView
from .base import check_turn, register

__all__ = ["RandomBot"]


@register("random")
class RandomBot:
    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: SeatView) -> Action:
        check_turn(view)
        return self.rng.choice(view.legal)
