"""A bot as a seat's front end: the same interface a person at a terminal uses."""

from __future__ import annotations

import trio

from ..bots import Bot
from ..engine import Action, SeatView
from ..frontend import Event

__all__ = ["BotSeat"]


class BotSeat:
    """Runs the bot's (possibly slow) decision in a worker thread, so the node stays responsive."""

    def __init__(self, bot: Bot, delay: float = 0.0) -> None:
        self.bot = bot
        self.delay = delay
        self.events: list[Event] = []

    async def choose(self, view: SeatView) -> Action:
        if self.delay:
            await trio.sleep(self.delay)
        return await trio.to_thread.run_sync(self.bot.choose, view)

    async def notify(self, event: Event) -> None:
        self.events.append(event)
