"""Before joining a table by name: whether its announcements already say there is no seat.

A joiner otherwise waits the whole discovery timeout for a table that is full or playing, and
then hears that no table was found; this says why at once.
"""

from __future__ import annotations

import trio

from hearts_p2p.discovery import TableState, open_browser
from hearts_p2p.discovery.directory import TableInfo
from hearts_p2p.node import PeerOptions
from hearts_p2p.text import quoted

__all__ = ["no_seat_at"]


def _named(table: str | None, info: TableInfo) -> bool:
    if table is None:  # the first open table: any table heard is a candidate
        return True
    a = info.announcement
    tid = a.table_id.hex()
    return table in (a.table_name, tid) or (len(table) >= 4 and tid.startswith(table.lower()))


def _joinable(info: TableInfo) -> bool:
    a = info.announcement
    return a.state is TableState.OPEN and a.seats_taken < a.seats_total


async def no_seat_at(
    opts: PeerOptions, table: str | None, wait: float = 2.0, settle: float = 0.5
) -> str | None:
    """Why ``table`` (None: any table) cannot be joined, if the tables of that name heard within
    ``wait`` seconds all say so; None when one has a seat, or none is heard (the join then looks
    on, and says when it finds nothing)."""
    async with open_browser(opts.interfaces, config=opts.discovery) as browser:
        with trio.move_on_after(wait):
            await browser.wait_for(lambda info: _named(table, info))
            await trio.sleep(settle)  # the other hosts answer the same probe: hear them too
        named = [info for info in browser.tables() if _named(table, info)]
    if not named or any(_joinable(info) for info in named):
        return None
    why = _why(named[0])
    return why if table is not None else f"no open table: {why}"


def _why(info: TableInfo) -> str:
    a = info.announcement
    seats = f"{a.seats_taken}/{a.seats_total}"
    if a.state is TableState.PLAYING and a.open_seats:
        first = a.open_seats[0]
        return (f"table {quoted(a.table_name)} is playing, with seat {first} open to a newcomer: "
                f"hearts join {quoted(a.table_name)} --seat {first}")  # fmt: skip
    if a.state is TableState.PLAYING:
        return f"table {quoted(a.table_name)} is playing ({seats}): it has no seat for you"
    if a.state is TableState.CLOSED:
        return f"table {quoted(a.table_name)} has closed"
    return f"table {quoted(a.table_name)} is full ({seats})"
