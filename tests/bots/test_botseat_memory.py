"""A bot seat keeps none of the events it is told of: a long game does not grow its memory."""

from __future__ import annotations

import gc

import trio

from hearts_p2p.bots import make_bot
from hearts_p2p.bots.botseat import BotSeat
from hearts_p2p.frontend import Notice


def _reachable(root: object, depth: int = 4) -> list[object]:
    seen, frontier = [root], [root]
    for _ in range(depth):
        frontier = [r for o in frontier for r in gc.get_referents(o)]
        seen += frontier
    return seen


def test_a_bot_seat_keeps_no_event() -> None:
    seat = BotSeat(make_bot("heuristic", 1))
    notices = [Notice(f"notice {i}") for i in range(50)]

    async def tell() -> None:
        for n in notices:
            await seat.notify(n)

    trio.run(tell)
    assert not any(any(o is n for n in notices) for o in _reachable(seat))
