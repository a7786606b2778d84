"""The lobby on loopback: joiners take seats, leave and come back; hostile peers and relays fail.

Every attacker here is built from the project's own classes and talks through real sockets.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import trio

from hearts_p2p.bots import make_bot
from hearts_p2p.bots.botseat import BotSeat
from hearts_p2p.discovery import DiscoveryConfig, open_browser
from hearts_p2p.identity import Identity
from hearts_p2p.netif import interface
from hearts_p2p.node import lobby
from hearts_p2p.node.lobby import (
    LOBBY_ID,
    LobbyError,
    Seat,
    SeatChange,
    Welcome,
    host_lobby,
    join_lobby,
    start_players,
)
from hearts_p2p.node.session import PeerOptions, host_game
from hearts_p2p.rules import Rules
from hearts_p2p.transport import ConnectionClosed, FramedStream, Member, open_connection
from hearts_p2p.wire import pack, unpack
from tests.discovery.conftest import free_udp_port

GAME = bytes(range(16))
HOST = Identity.from_seed(b"h" * 32)
JOINERS = [Identity.from_seed(bytes([i]) * 32) for i in range(1, 5)]


@dataclass
class Table:
    """A host lobby running in the background, with what it reported."""

    port: int
    changes: list[tuple[SeatChange, str, int]] = field(default_factory=list)
    joined: list[Seat] = field(default_factory=list)
    done: trio.Event = field(default_factory=trio.Event)

    def on_change(self, seats: list[Seat], seat: Seat, change: SeatChange) -> None:
        self.changes.append((change, seat.who.name, len(seats)))


@contextlib.asynccontextmanager
async def open_table(seats: int) -> AsyncIterator[Table]:
    """Host a lobby; when it fills, start the players with the roster it seated."""
    listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
    table = Table(listener.socket.getsockname()[1])

    async def run() -> None:
        joined, links = await host_lobby(listener, HOST, GAME, "t", {}, seats, table.on_change)
        table.joined = joined
        roster = [Member(HOST.public_key, ("127.0.0.1", table.port))]
        roster += [Member(s.who.public_key, s.address) for s in joined]
        await start_players(links, roster, 2.0)
        table.done.set()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(run)
        yield table
        nursery.cancel_scope.cancel()
    await listener.aclose()


async def join(table: Table, i: int, *, port: int | None = None, **kw: object) -> Welcome:
    dh = bytes([i]) * 32
    return await join_lobby(
        "127.0.0.1",
        port or table.port,
        JOINERS[i],
        f"p{i}",
        dh,
        False,
        ("127.0.0.1", 4000 + i),
        **kw,
    )  # type: ignore[arg-type]


async def wait_until(predicate: Callable[[], bool]) -> None:
    while not predicate():
        await trio.sleep(0.02)


async def test_lobby_seats_joiners_and_refuses_bad_ones() -> None:
    refusals: list[object] = []
    closed: list[bool] = []
    welcomes: list[Welcome] = []

    with trio.fail_after(30):
        async with open_table(3) as table:

            async def garbage() -> None:
                stranger = Identity.from_seed(b"g" * 32)
                conn = await open_connection("127.0.0.1", table.port, stranger, LOBBY_ID)
                await conn.send(pack({"t": "join"}) + bytes(64))  # not signed
                with pytest.raises(ConnectionClosed):
                    await conn.receive()  # dropped, and the lobby carries on
                closed.append(True)

            async def copied_pass_key() -> None:
                """Another key with a seated joiner's pass key is refused."""
                copier = Identity.from_seed(b"c" * 32)
                await wait_until(lambda: len(table.changes) == 1)
                with pytest.raises(LobbyError) as info:
                    await join_lobby("127.0.0.1", table.port, copier, "c", bytes([0]) * 32,
                                     True, ("127.0.0.1", 1))  # fmt: skip
                refusals.append(str(info.value))

            async def joiner(i: int) -> None:
                await trio.sleep(0.3 * i)
                welcomes.append(await join(table, i))

            async with trio.open_nursery() as nursery:
                nursery.start_soon(garbage)
                nursery.start_soon(copied_pass_key)
                for i in range(3):
                    nursery.start_soon(joiner, i)
    assert [s.who.name for s in table.joined] == ["p0", "p1", "p2"]
    assert [n for _, _, n in table.changes] == [1, 2, 3]
    assert refusals == ["the host refused: another player has this pass key"]
    assert closed == [True]
    for w in welcomes:
        assert w.game_id == GAME and w.host_key == HOST.public_key
        assert [m.public_key for m in w.roster] == [HOST.public_key] + [
            j.public_key for j in JOINERS[:3]
        ]


async def test_a_joiner_keeps_trying_until_the_host_listens() -> None:
    """A refused or lost connection is tried again, as on a lossy link, until the host answers."""
    joiner = Identity.from_seed(b"j" * 32)
    probe = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
    port = probe.socket.getsockname()[1]
    await probe.aclose()  # nothing listens there yet: connections are refused

    async def host_late() -> None:
        await trio.sleep(1.5)
        listener = (await trio.open_tcp_listeners(port, host="127.0.0.1"))[0]
        joined, links = await host_lobby(listener, HOST, GAME, "t", {}, 1, lambda *_: None)
        roster = [Member(HOST.public_key, ("127.0.0.1", port)), Member(joined[0].who.public_key)]
        await start_players(links, roster, 2.0)

    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(host_late)
            welcome = await join_lobby(
                "127.0.0.1", port, joiner, "late", b"d" * 32, False, ("127.0.0.1", 4000)
            )
    assert welcome.game_id == GAME


async def test_an_impostor_with_another_key_is_refused_at_the_handshake() -> None:
    """The joiner found the table announced under the host's key; Mallory answers at the
    address with her own lobby. The joiner refuses her at once instead of sitting down."""
    mallory = Identity.from_seed(b"m" * 32)
    listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
    port = listener.socket.getsockname()[1]
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(host_lobby, listener, mallory, GAME, "t", {}, 3, lambda *_: None)
            with pytest.raises(LobbyError) as info:
                await join_lobby("127.0.0.1", port, JOINERS[0], "p", b"d" * 32, False,
                                 ("127.0.0.1", 4000), HOST.public_key)  # fmt: skip
            nursery.cancel_scope.cancel()
    assert "refused" in str(info.value)


# -- relays on the path ----------------------------------------------------------------------

# (to the host?, frame number, frame) -> the frame passed on, or None to lose it
Rewrite = Callable[[bool, int, bytes], bytes | None]


@contextlib.asynccontextmanager
async def open_relay(
    target: int | Callable[[], int], rewrite: Rewrite, source: str | None = None
) -> AsyncIterator[int]:
    """A man in the middle: passes the handshake through, then rewrites lobby frames; it
    reaches the host (at the port ``target`` gives for each connection) from ``source``, if
    given."""
    listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]

    async def pump(src: FramedStream, dst: FramedStream, to_host: bool) -> None:
        n = 0
        with contextlib.suppress(ConnectionClosed):
            while True:
                frame = await src.receive_frame()
                out = frame if n < 2 else rewrite(to_host, n - 2, frame)
                if out is not None:
                    await dst.send_frame(out)
                n += 1
        await dst.aclose()

    async def serve(joiner_side: trio.SocketStream) -> None:
        port = target() if callable(target) else target
        host_side = await trio.open_tcp_stream("127.0.0.1", port, local_address=source)
        a, b = FramedStream(joiner_side), FramedStream(host_side)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(pump, a, b, True)
            nursery.start_soon(pump, b, a, False)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(trio.serve_listeners, serve, [listener])
        yield listener.socket.getsockname()[1]
        nursery.cancel_scope.cancel()


def resigned_by_nobody(frame: bytes, change: Callable[[dict[str, object]], None]) -> bytes:
    msg = unpack(frame[:-64])
    change(msg)
    return pack(msg) + frame[-64:]


async def test_a_relay_cannot_rewrite_the_roster() -> None:
    """Mallory relays a joiner's lobby connection and points the roster's addresses at herself.
    The roster is signed by the host over this connection: the joiner refuses it."""

    def rewrite(to_host: bool, n: int, frame: bytes) -> bytes:
        if to_host or unpack(frame[:-64]).get("t") != "start":
            return frame

        def redirect(msg: dict[str, object]) -> None:
            for m in msg["roster"]:  # type: ignore[attr-defined]
                m["host"], m["port"] = "127.0.0.1", 9

        return resigned_by_nobody(frame, redirect)

    with trio.fail_after(20):
        async with open_table(2) as table, open_relay(table.port, rewrite) as relay:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(join, table, 1)
                with pytest.raises(LobbyError) as info:
                    await join(table, 0, port=relay, host_key=HOST.public_key)
            await table.done.wait()
    assert "not signed by its sender" in str(info.value)


async def test_a_relay_cannot_rewrite_a_join_request() -> None:
    """Mallory rewrites the port a joiner listens on (to catch its mesh traffic): the host
    refuses the altered request and the honest joiner is not seated with her port."""

    def rewrite(to_host: bool, n: int, frame: bytes) -> bytes:
        if not to_host or n != 0:
            return frame
        return resigned_by_nobody(frame, lambda msg: msg.update(port=9))

    with trio.fail_after(20):
        async with open_table(1) as table:
            async with open_relay(table.port, rewrite) as relay:
                with pytest.raises(LobbyError):
                    await join(table, 0, port=relay)
            assert table.changes == []
            await join(table, 0)  # directly, it is seated with its own port
            await table.done.wait()
    assert table.joined[0].address == ("127.0.0.1", 4000)


async def test_a_relay_does_not_become_the_address_others_dial() -> None:
    """Mallory relays a joiner's lobby connection faithfully, from her own address. The host
    seats the joiner at the address it signed, not at the connection's source: the mesh will
    not dial Mallory."""
    with trio.fail_after(20):
        async with open_table(1) as table:
            async with open_relay(table.port, lambda _, __, f: f, source="127.0.0.2") as relay:
                await join(table, 0, port=relay)
            await table.done.wait()
    assert table.joined[0].address == ("127.0.0.1", 4000)


async def test_a_relay_cannot_pass_one_connections_message_off_on_another() -> None:
    """Mallory keeps the host's genuine, signed welcome from one joiner's connection and hands
    it to a second joiner in place of its own: signed for another transcript, it is refused."""
    kept: list[bytes] = []

    def keep(to_host: bool, n: int, frame: bytes) -> bytes:
        if not to_host and n == 0:
            kept.append(frame)
        return frame

    def swap(to_host: bool, n: int, frame: bytes) -> bytes:
        return kept[0] if not to_host and n == 0 else frame

    with trio.fail_after(20):
        async with (
            open_table(3) as table,
            trio.open_nursery() as nursery,
            open_relay(table.port, keep) as first,
        ):
            nursery.start_soon(lambda: join(table, 0, port=first))
            await wait_until(lambda: bool(kept))
            async with open_relay(table.port, swap) as second:
                with pytest.raises(LobbyError) as info:
                    await join(table, 1, port=second)
            nursery.cancel_scope.cancel()
    assert "not signed by its sender for this connection" in str(info.value)


# -- a lobby that forgives -------------------------------------------------------------------


async def test_leaving_frees_the_seat_and_the_same_key_takes_it_back() -> None:
    """p0 leaves (its process killed: the connection drops), p1 joins, p0 reruns with a new
    pass key and port: it is seated again, in its old place, with what it sends now."""
    with trio.fail_after(20):
        async with open_table(2) as table:
            with trio.move_on_after(0.5):
                await join(table, 0)
            await wait_until(lambda: len(table.changes) == 2)
            async with trio.open_nursery() as nursery:
                nursery.start_soon(join, table, 1)
                await wait_until(lambda: len(table.changes) == 3)
                welcome = await join_lobby("127.0.0.1", table.port, JOINERS[0], "p0 again",
                                           b"n" * 32, False, ("127.0.0.1", 5000))  # fmt: skip
            await table.done.wait()
    assert table.changes == [
        (SeatChange.JOINED, "p0", 1),
        (SeatChange.LEFT, "p0", 0),
        (SeatChange.JOINED, "p1", 1),
        (SeatChange.JOINED, "p0 again", 2),
    ]
    assert [(s.who.name, s.dh, s.address[1]) for s in table.joined] == [
        ("p1", bytes([1]) * 32, 4001),
        ("p0 again", b"n" * 32, 5000),
    ]
    assert len(welcome.roster) == 3


async def test_a_rerun_replaces_a_seat_whose_old_connection_the_host_still_holds() -> None:
    """p0 is killed where the host does not notice (its connection stays open, silent) and
    reruns: the new connection replaces the old, which no longer holds anything."""
    with trio.fail_after(20):
        async with open_table(2) as table:
            conn = await open_connection("127.0.0.1", table.port, JOINERS[0], LOBBY_ID)
            join_request = {"t": "join", "v": lobby.LOBBY_VERSION, "name": "p0", "dh": b"o" * 32,
                            "bot": False, "host": "127.0.0.1", "port": 3999}  # fmt: skip
            await conn.send(lobby._sign(JOINERS[0], conn, join_request))
            await conn.receive()  # the welcome; then it falls silent
            async with trio.open_nursery() as nursery:
                nursery.start_soon(join, table, 0)
                nursery.start_soon(join, table, 1)
            await table.done.wait()
            await conn.aclose()
    assert (SeatChange.RETURNED, "p0") in [(c, name) for c, name, _ in table.changes]
    assert [s.address[1] for s in table.joined] == [4000, 4001]


async def test_the_game_never_starts_with_a_joiner_that_is_gone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A hostile joiner takes a seat and then answers nothing. When the table is full the host
    checks every seat: the silent one is freed, the next joiner takes it, and the roster that
    starts the game holds only joiners that answered."""
    monkeypatch.setattr(lobby, "CHECK_TIMEOUT", 0.5)
    ghost = Identity.from_seed(b"x" * 32)
    with trio.fail_after(20):
        async with open_table(2) as table:
            conn = await open_connection("127.0.0.1", table.port, ghost, LOBBY_ID)
            join_request = {"t": "join", "v": lobby.LOBBY_VERSION, "name": "ghost", "dh": b"g" * 32,
                            "bot": False, "host": "127.0.0.1", "port": 3999}  # fmt: skip
            await conn.send(lobby._sign(ghost, conn, join_request))
            async with trio.open_nursery() as nursery:
                nursery.start_soon(join, table, 0)
                await wait_until(lambda: (SeatChange.LEFT, "ghost", 1) in table.changes)
                nursery.start_soon(join, table, 1)
            await table.done.wait()
            await conn.aclose()
    assert [s.who.name for s in table.joined] == ["p0", "p1"]


async def test_a_joiner_the_last_check_never_reaches_takes_its_seat_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On a lossy link the host's last check can go unanswered in time: the host frees the
    seat and closes its connection. The joiner, seated before, takes its seat again, and the
    game starts with it (it used to give up, and the others waited for a player for ever)."""
    monkeypatch.setattr(lobby, "CHECK_TIMEOUT", 0.5)
    checks: list[bytes] = []

    def lose_the_first_check(to_host: bool, n: int, frame: bytes) -> bytes | None:
        if not to_host and unpack(frame[:-64]).get("t") == "check":
            checks.append(frame)
            return None if len(checks) == 1 else frame
        return frame

    seated: list[Welcome] = []

    async def on_welcome(w: Welcome) -> None:
        seated.append(w)

    with trio.fail_after(20):
        async with open_table(2) as table, open_relay(table.port, lose_the_first_check) as relay:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(join, table, 1)
                welcome = await join(table, 0, port=relay, on_welcome=on_welcome)
            await table.done.wait()
    assert table.changes[-2:] == [(SeatChange.LEFT, "p0", 1), (SeatChange.JOINED, "p0", 2)]
    assert sorted(s.who.name for s in table.joined) == ["p0", "p1"]
    assert JOINERS[0].public_key in [m.public_key for m in welcome.roster]
    assert len(seated) == 1  # "seated" is said once
    assert len(checks) >= 2


async def test_a_joiner_let_go_is_not_led_by_a_relay_to_another_host(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Mallory relays a joiner that came by address (no announced key), loses its last check
    so the host lets it go, and sends its rejoin to a lobby of her own. The rejoin expects the
    key of the host it sat with: the handshake refuses her, and the joiner sits nowhere."""
    monkeypatch.setattr(lobby, "CHECK_TIMEOUT", 0.5)
    monkeypatch.setattr(lobby, "REJOIN_PATIENCE", 1.0)
    mallory = Identity.from_seed(b"m" * 32)
    connections: list[int] = []

    def lose_checks(to_host: bool, n: int, frame: bytes) -> bytes | None:
        return None if not to_host and unpack(frame[:-64]).get("t") == "check" else frame

    changes: list[SeatChange] = []
    decoy = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]

    def route() -> int:
        connections.append(len(connections))
        return table.port if len(connections) == 1 else decoy.socket.getsockname()[1]

    with trio.fail_after(20):
        async with open_table(2) as table, trio.open_nursery() as nursery:
            nursery.start_soon(
                host_lobby, decoy, mallory, GAME, "t", {}, 2, lambda _, __, c: changes.append(c)
            )
            nursery.start_soon(join, table, 1)
            async with open_relay(route, lose_checks) as relay:
                with pytest.raises(LobbyError) as info:
                    await join(table, 0, port=relay)
            nursery.cancel_scope.cancel()
    assert len(connections) >= 2  # it did try to sit again, through Mallory
    assert changes == []  # never seated at her table
    assert str(info.value).startswith("cannot reach the table at 127.0.0.1")
    assert [name for change, name, _ in table.changes if change is SeatChange.JOINED].count(
        "p0"
    ) == 1


async def test_a_joiner_whose_host_is_gone_says_so_soon(monkeypatch: pytest.MonkeyPatch) -> None:
    """The host's lobby ends (its process quit) after seating a joiner: the joiner tries to
    sit again for ``REJOIN_PATIENCE``, not the first reach's 20 s, and then says it cannot
    reach the table."""
    monkeypatch.setattr(lobby, "REJOIN_PATIENCE", 1.0)
    patience: list[float] = []
    reach = lobby._reach

    async def counted(*args: Any) -> Any:
        patience.append(args[-1])
        return await reach(*args)

    monkeypatch.setattr(lobby, "_reach", counted)
    errors: list[str] = []

    async def sit() -> None:
        with pytest.raises(LobbyError) as info:
            await join(table, 0)
        errors.append(str(info.value))

    with trio.fail_after(20):
        async with trio.open_nursery() as nursery, open_table(2) as table:
            nursery.start_soon(sit)
            await wait_until(lambda: bool(table.changes))
    assert errors and errors[0].startswith("cannot reach the table at 127.0.0.1")
    assert patience == [lobby.CONNECT_PATIENCE, 1.0]


async def test_hearts_list_sees_a_seat_freed_at_once(tmp_path: Path) -> None:
    """Through the real host session: a joiner sits down and leaves the lobby, and the
    announcements a browser hears count the seat taken, then free again."""
    discovery = DiscoveryConfig(port=free_udp_port())
    lo = [interface("lo")]
    opts = PeerOptions(tmp_path / "host", "host", lo, discovery=discovery)
    address: list[int] = []

    async def host() -> None:
        seat = BotSeat(make_bot("heuristic", 1))
        await host_game(opts, Rules(players=4), "forgiving", seat,
                        on_listening=lambda h, p: address.append(p))  # fmt: skip

    async def seats(n: int) -> None:
        await browser.wait_for(lambda t: t.announcement.seats_taken == n)

    with trio.fail_after(20):
        async with open_browser(lo, config=discovery) as browser, trio.open_nursery() as nursery:
            nursery.start_soon(host)
            await seats(1)
            async with trio.open_nursery() as joiner:
                joiner.start_soon(
                    lambda: join_lobby(
                        "127.0.0.1",
                        address[0],
                        JOINERS[0],
                        "p0",
                        b"d" * 32,
                        False,
                        ("127.0.0.1", 1),
                    )
                )
                await seats(2)
                joiner.cancel_scope.cancel()  # the joiner leaves
            await seats(1)
            nursery.cancel_scope.cancel()


async def test_a_flood_of_silent_connections_only_delays_a_joiner(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Mallory opens more connections than the lobby will handshake at once and says nothing.
    The extra ones are closed at once, hers time out, and the honest joiner, trying again, sits
    down: the lobby neither dies nor holds a task and a socket for every connection."""
    monkeypatch.setattr(lobby, "MAX_PENDING", 4)
    monkeypatch.setattr(lobby, "HANDSHAKE_TIMEOUT", 0.5)
    with trio.fail_after(20):
        async with open_table(1) as table:
            flood = [await trio.open_tcp_stream("127.0.0.1", table.port) for _ in range(8)]
            await join(table, 0)
            await table.done.wait()
            heard = [await read_all(stream) for stream in flood]
    assert [s.who.name for s in table.joined] == ["p0"]
    assert sorted(len(h) for h in heard) == [0] * 4 + [4 + 48] * 4  # closed at once / hello


async def read_all(stream: trio.SocketStream) -> bytes:
    data = bytearray()
    with contextlib.suppress(trio.BrokenResourceError):
        while chunk := await stream.receive_some():
            data += chunk
    await stream.aclose()
    return bytes(data)
