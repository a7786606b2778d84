"""Who announces a table once it plays: the host, and after the table has taken the host's seat
over, the next player in seat order whose seat the table does not play.

Every player's node serves watchers (``watch.py``), but a watcher finds a table only by its
announcement, which the host's node sent. When the host leaves, or its node is gone and the
table plays its seat, the table still plays: so the next node takes over the announcement, with
its own key, address and port, and a watcher whose feed ended finds the table there and goes on
(``watch_client.py``). Every node knows alike which seats the table plays, so exactly one node
announces, and a new ``hearts watch`` finds the table too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import trio

from ..discovery import Announcer, DiscoveryConfig, TableState, announce
from ..frontend import FrontEnd, Notice
from ..game import GameProtocol, Status
from ..identity import Identity
from ..netif import Interface
from ..rules import OpenSeats

__all__ = ["Herald", "announcer", "open_seats"]


def announcer(proto: GameProtocol) -> int | None:
    """The player whose node announces the table now: the host until its seat is the table's,
    then the first player after it in seat order whose seat is not; None once the game is over
    or every seat is the table's."""
    if proto.status is not Status.RUNNING:
        return None
    at, table = proto.player_at, proto.table_seats
    if not at:
        return 0
    host = proto.seat_of[0]
    for k in range(len(at)):
        player = at[(host + k) % len(at)]
        if player not in table:
            return player
    return None


def open_seats(proto: GameProtocol) -> tuple[int, ...]:
    """The seats a newcomer may take now, as the announcement says them: those the table plays,
    at a running table whose rules let a newcomer sit (SPEC 6.15)."""
    genesis = proto.genesis
    if proto.status is not Status.RUNNING or genesis is None or not proto.seat_of:
        return ()
    if genesis.rules.open_seats is OpenSeats.NO:
        return ()
    return tuple(sorted(proto.seat_of[p] for p in proto.table_seats))


class Herald:
    """Announces the table from this node once the seat order makes it the announcer, unless
    it is the host (whose session announces the table from the start). ``check`` is called
    after each log entry: a takeover shows there first."""

    def __init__(
        self,
        identity: Identity,
        proto: GameProtocol,
        front: FrontEnd,
        interfaces: Sequence[Interface],
        discovery: DiscoveryConfig,
        name: str,
        port: int,
        clock: float,
    ) -> None:
        self.identity, self.proto, self.front = identity, proto, front
        self.interfaces, self.discovery = interfaces, discovery
        self.name, self.port, self.clock = name, port, clock
        self.due = trio.Event()
        self._announcer: Announcer | None = None
        self._watchers = 0
        self.open: tuple[int, ...] = ()

    def check(self) -> bool:
        """Whether the open seats changed with the last entry (the announcement says them)."""
        me = self.proto.me
        if me is not None and me != 0 and announcer(self.proto) == me:
            self.due.set()
        seats = open_seats(self.proto)
        if seats == self.open:
            return False
        self.open = seats
        if self._announcer is not None:
            self._announcer.update(open_seats=seats)
        return True

    def watchers(self, count: int) -> None:
        """How many watchers this node serves: the announcement says it once it runs."""
        self._watchers = count
        if self._announcer is not None:
            self._announcer.update(watchers=count)

    async def run(self) -> None:
        """Wait until this node is the announcer, then announce until cancelled (the game's
        end closes the session, and its announcement says goodbye)."""
        self.check()
        await self.due.wait()
        genesis = self.proto.genesis
        assert genesis is not None
        rules = genesis.rules
        async with trio.open_nursery() as nursery:
            self._announcer = await nursery.start(
                _announce_playing, self.identity, self.interfaces, self.discovery,
                genesis.game_id, self.name, genesis.table_name, rules.to_dict(), rules.players,
                self.port, round(self.clock),
            )  # fmt: skip
            self._announcer.update(watchers=self._watchers, open_seats=self.open)
            why = "The table plays the host's seat: your node announces the table now"
            await self.front.notify(Notice(f"{why}, and its watchers watch from here"))


async def _announce_playing(
    identity: Identity,
    interfaces: Sequence[Interface],
    discovery: DiscoveryConfig,
    table_id: bytes,
    host_name: str,
    table_name: str,
    rules: Mapping[str, Any],
    seats: int,
    port: int,
    clock: int,
    task_status: trio.TaskStatus[Announcer] = trio.TASK_STATUS_IGNORED,
) -> None:
    await announce(
        identity,
        interfaces,
        table_id=table_id,
        host_name=host_name,
        table_name=table_name,
        rules=rules,
        seats_total=seats,
        addresses=[interfaces[0].address],
        port=port,
        seats_taken=seats,
        state=TableState.PLAYING,
        clock=clock,
        config=discovery,
        task_status=task_status,
    )
