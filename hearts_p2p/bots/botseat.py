"""A bot as a seat's front end: the same interface a person at a terminal uses."""

from __future__ import annotations

import trio

from ..engine import Action, Claim, SeatView
from ..frontend import Event
from .base import Bot

__all__ = ["BotSeat"]


class BotSeat:
    """A slow strategy (Monte-Carlo) thinks in a worker thread so the node keeps answering
    peers meanwhile; quick ones answer at once, which is faster than a thread hand-off.

    A claim the game offers is taken at once: it holds only when the rest of the hand cannot go
    otherwise, so it changes no score and saves the table the tricks."""

    SLOW = frozenset({"hard", "montecarlo", "montecarlo-v1", "gongzhu-montecarlo"})
    shows_plays = False  # the node makes no event, nor view, for each play

    def __init__(self, bot: Bot, delay: float = 0.0) -> None:
        self.bot = bot
        self.delay = delay

    async def choose(self, view: SeatView) -> Action:
        claims = [a for a in view.legal if isinstance(a, Claim)]
        if claims:
            return claims[0]
        if self.delay:
            await trio.sleep(self.delay)
        if self.bot.name in self.SLOW:
            return await trio.to_thread.run_sync(self.bot.choose, view)
        return self.bot.choose(view)

    async def notify(self, event: Event) -> None:
        """A bot decides from the view it is asked with: it keeps no event (a long game's
        events, each with a view, would grow its memory hand after hand)."""
