"""A bot as a seat's front end: the same interface a person at a terminal uses."""

from __future__ import annotations

import trio

from ..engine import Action, SeatView
from ..frontend import Event
from .base import Bot

__all__ = ["BotSeat"]


class BotSeat:
    """A slow strategy (Monte-Carlo) thinks in a worker thread so the node keeps answering
    peers meanwhile; quick ones answer at once, which is faster than a thread hand-off."""

    SLOW = frozenset({"hard", "montecarlo", "montecarlo-v1", "gongzhu-montecarlo"})

    def __init__(self, bot: Bot, delay: float = 0.0) -> None:
        self.bot = bot
        self.delay = delay
        self.events: list[Event] = []

    async def choose(self, view: SeatView) -> Action:
        if self.delay:
            await trio.sleep(self.delay)
        if self.bot.name in self.SLOW:
            return await trio.to_thread.run_sync(self.bot.choose, view)
        return self.bot.choose(view)

    async def notify(self, event: Event) -> None:
        self.events.append(event)
