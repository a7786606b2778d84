"""The lobby on loopback: joiners take seats; malformed or duplicate joiners are refused."""

from __future__ import annotations

import pytest
import trio

from hearts_p2p.identity import Identity
from hearts_p2p.node.lobby import LOBBY_ID, Seat, host_lobby, join_lobby, start_players
from hearts_p2p.transport import ConnectionClosed, Member, open_connection
from hearts_p2p.wire import pack, unpack

GAME = bytes(range(16))


async def test_lobby_seats_joiners_and_refuses_bad_ones() -> None:
    host = Identity.from_seed(b"h" * 32)
    joiners = [Identity.from_seed(bytes([i]) * 32) for i in range(1, 4)]
    listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
    port = listener.socket.getsockname()[1]
    seen: list[list[Seat]] = []
    refusals: list[object] = []
    closed: list[bool] = []

    async def garbage() -> None:
        conn = await open_connection("127.0.0.1", port, Identity.from_seed(b"g" * 32), LOBBY_ID)
        await conn.send(b"\xc1 not msgpack")
        with pytest.raises(ConnectionClosed):
            await conn.receive()  # dropped, and the lobby carries on
        closed.append(True)

    async def duplicate_key() -> None:
        await trio.sleep(0.2)  # after the first real joiner, before the table is full
        conn = await open_connection("127.0.0.1", port, joiners[0], LOBBY_ID)
        request = {"t": "join", "v": 1, "name": "copy", "dh": b"d" * 32, "bot": True, "port": 1}
        await conn.send(pack(request))
        refusals.append(unpack(await conn.receive()))

    async def join(i: int) -> None:
        await trio.sleep(0.4 * i)
        dh = bytes([i]) * 32
        welcome = await join_lobby("127.0.0.1", port, joiners[i], f"p{i}", dh, False, 4000 + i)
        assert welcome.game_id == GAME and len(welcome.roster) == 4

    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(garbage)
            nursery.start_soon(duplicate_key)
            for i in range(3):
                nursery.start_soon(join, i)
            joined, conns = await host_lobby(
                listener, host, GAME, "t", {}, 3, lambda seats: seen.append(list(seats))
            )
            roster = [Member(host.public_key, ("127.0.0.1", port))] + [
                Member(s.who.public_key, s.address) for s in joined
            ]
            await start_players(conns, roster, 2.0)
    assert [s.who.name for s in joined] == ["p0", "p1", "p2"]
    assert [len(s) for s in seen] == [1, 2, 3]
    assert {"t": "refused", "reason": "this key is seated already"} in refusals
    assert closed == [True]


async def test_a_joiner_keeps_trying_until_the_host_listens() -> None:
    """A refused or lost connection is tried again, as on a lossy link, until the host answers."""
    host = Identity.from_seed(b"h" * 32)
    joiner = Identity.from_seed(b"j" * 32)
    probe = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
    port = probe.socket.getsockname()[1]
    await probe.aclose()  # nothing listens there yet: connections are refused

    async def host_late() -> None:
        await trio.sleep(1.5)
        listener = (await trio.open_tcp_listeners(port, host="127.0.0.1"))[0]
        _, conns = await host_lobby(listener, host, GAME, "t", {}, 1, lambda seats: None)
        await start_players(conns, [Member(host.public_key, ("127.0.0.1", port))], 2.0)

    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(host_late)
            welcome = await join_lobby("127.0.0.1", port, joiner, "late", b"d" * 32, False, 4000)
    assert welcome.game_id == GAME
