"""The host's watch service on its own, over loopback connections: who is let in, what each
watcher gets, and what the players are told."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import trio

from hearts_p2p.control import Watching, encode
from hearts_p2p.engine import Action, SeatView
from hearts_p2p.frontend import Event, Notice
from hearts_p2p.identity import Identity
from hearts_p2p.node.watch import (
    WatchConfig,
    WatchService,
    hello_frame,
    parse_peers,
    serving_watchers,
)
from hearts_p2p.transport import Connection, ConnectionClosed, accept_connection, open_connection
from hearts_p2p.wire import unpack

GAME = bytes(range(16))
HOST = Identity.from_seed(bytes(32))


class Screen:
    def __init__(self) -> None:
        self.lines: list[str] = []

    async def choose(self, view: SeatView) -> Action:
        raise AssertionError("a watch service asks nothing")

    async def notify(self, event: Event) -> None:
        assert isinstance(event, Notice)
        self.lines.append(event.text)


Served = tuple[WatchService, "Screen", list[int], tuple[str, int]]


@pytest.fixture
async def served() -> AsyncIterator[Served]:
    """A service taking every connection to a loopback port, as the mesh would hand them."""
    screen = Screen()
    counts: list[int] = []
    config = WatchConfig(max_watchers=1, max_greeting=1, hello_timeout=1.0)
    service = WatchService(screen, config, on_change=counts.append)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]

    async def admit(stream: trio.SocketStream) -> None:
        service.admit(await accept_connection(stream, HOST, GAME))  # the service owns it now

    async def accept() -> None:
        while True:
            nursery.start_soon(admit, await listeners[0].accept())

    async with serving_watchers(service), trio.open_nursery() as nursery:
        nursery.start_soon(accept)
        yield service, screen, counts, ("127.0.0.1", port)
        nursery.cancel_scope.cancel()


async def watcher(at: tuple[str, int], name: str, *, signer: Identity | None = None) -> Connection:
    me = Identity.generate()
    conn = await open_connection(*at, me, GAME, expected=HOST.public_key)
    await conn.send(hello_frame(signer or me, conn.transcript, name))
    return conn


async def test_a_watcher_gets_the_log_so_far_then_each_new_entry(served: Served) -> None:
    service, screen, counts, at = served
    service.publish(b"entry 0")
    with trio.fail_after(10):
        conn = await watcher(at, "Kim")
        assert await conn.receive() == b"entry 0"
        service.publish(b"entry 1")
        assert await conn.receive() == b"entry 1"
        while not counts:
            await trio.sleep(0.01)
    assert counts == [1] and service.names == ("Kim",)
    assert any(
        line.startswith("Kim (") and line.endswith("is watching; 1 watching")
        for line in screen.lines
    )


async def test_one_watcher_too_many_is_refused_with_a_reason(served: Served) -> None:
    service, _, _, at = served
    with trio.fail_after(10):
        first = await watcher(at, "Kim")
        while not service.watchers:
            await trio.sleep(0.01)
        second = await watcher(at, "Lou")
        answer = unpack(await second.receive())
        assert answer == {"t": "refused", "reason": "the table has 1 watchers already"}
        with pytest.raises(ConnectionClosed):
            await second.receive()
    assert service.names == ("Kim",)
    await first.aclose()


async def test_a_hello_signed_by_another_key_or_any_frame_after_it_ends_the_watch(
    served: Served,
) -> None:
    service, screen, counts, at = served
    with trio.fail_after(10):
        forged = await watcher(at, "Kim", signer=Identity.generate())
        with pytest.raises(ConnectionClosed):
            await forged.receive()
        chatty = await watcher(at, "Lou")
        while not service.watchers:
            await trio.sleep(0.01)
        await chatty.send(b"let me play")
        with pytest.raises(ConnectionClosed):
            while True:
                await chatty.receive()
        while service.watchers:
            await trio.sleep(0.01)
    assert service.refused == 1 and counts == [1, 0]
    assert any("Lou" in line and "stopped watching; 0 watching" in line for line in screen.lines)


async def test_connections_that_say_nothing_are_bounded_and_timed_out(served: Served) -> None:
    service, _, _, at = served
    with trio.fail_after(10):
        silent = await open_connection(*at, Identity.generate(), GAME, expected=HOST.public_key)
        while service._greeting == 0:
            await trio.sleep(0.01)
        late = await watcher(at, "Kim")  # one connection may greet at a time: closed at once
        with pytest.raises(ConnectionClosed):
            await late.receive()
        with pytest.raises(ConnectionClosed):
            await silent.receive()  # no hello within the hello timeout
    assert service.refused == 2 and not service.watchers


class OneLink:
    """The part of a mesh that the service tells the players through: one player, whose
    connection can be replaced by a new one (it dialled again before the old one was seen to
    fail), the frames still queued on the old one lost with it."""

    def __init__(self) -> None:
        self.link = object()
        self.got: list[bytes] = []  # what reached the player, on its connection of the time
        self._changed = trio.Event()

    def connected(self) -> frozenset[bytes]:
        return frozenset({PLAYER})

    def connection(self, peer: bytes) -> object:
        return self.link

    def send_nowait(self, peer: bytes, payload: bytes) -> None:
        self.got.append(payload)

    async def wait_change(self) -> None:
        await self._changed.wait()

    def replace(self) -> None:
        self.link = object()
        self.got.clear()  # queued on the old connection: gone
        self._changed.set()
        self._changed = trio.Event()


PLAYER = Identity.from_seed(bytes([1]) * 32).public_key


async def test_a_player_whose_connection_is_replaced_is_told_again_who_watches(
    served: Served,
) -> None:
    service, _, _, at = served
    mesh = OneLink()
    service.tell(mesh)  # type: ignore[arg-type]
    with trio.fail_after(10):
        kim = await watcher(at, "Kim")
        while mesh.got != [encode(Watching(("Kim",)))]:
            await trio.sleep(0.01)
        mesh.replace()
        while mesh.got != [encode(Watching(("Kim",)))]:
            await trio.sleep(0.01)
        await kim.aclose()
        while mesh.got[-1:] != [encode(Watching(()))]:
            await trio.sleep(0.01)
    assert mesh.got == [encode(Watching(("Kim",))), encode(Watching(()))]


async def newcomer(at: tuple[str, int]) -> Connection:
    me = Identity.generate()
    conn = await open_connection(*at, me, GAME, expected=HOST.public_key)
    await conn.send(hello_frame(me, conn.transcript, "Kim", sit=True))
    return conn


async def live_newcomer(at: tuple[str, int]) -> Connection:
    """A newcomer that has the one entry published and the node's ``live``: it may ask."""
    conn = await newcomer(at)
    assert await conn.receive() == b"entry 0"
    assert unpack(await conn.receive()) == {"t": "live", "entries": 1}
    return conn


async def test_a_newcomer_is_told_when_it_has_the_log_and_its_sits_are_answered(
    served: Served,
) -> None:
    """A newcomer's hello: after the log so far comes ``live``; each sit the game checks is
    answered (taken: with the seats' addresses), six at most; a plain watcher gets no
    ``live`` and may send no sit."""
    service, _, _, at = served
    seen: list[bytes] = []

    async def on_sit(frame: bytes) -> bool | None:
        seen.append(frame)
        return None if frame == b"chat" else frame == b"sit 2"

    service.on_sit = on_sit
    service.peers = [(HOST.public_key, ("127.0.0.1", 4000))]
    service.publish(b"entry 0")
    with trio.fail_after(10):
        conn = await live_newcomer(at)
        await conn.send(b"sit 1")
        assert parse_peers(await conn.receive()) == ([], False)
        await conn.send(b"sit 2")
        assert parse_peers(await conn.receive()) == ([(HOST.public_key, ("127.0.0.1", 4000))], True)
        for n in range(3, 7):
            await conn.send(b"sit %d" % n)
            assert parse_peers(await conn.receive()) == ([], False)
        await conn.send(b"sit 7")  # one too many: the watch ends
        with pytest.raises(ConnectionClosed):
            await conn.receive()
        plain = await watcher(at, "Lou")
        assert await plain.receive() == b"entry 0"
        await plain.send(b"sit 1")
        with pytest.raises(ConnectionClosed):
            await plain.receive()
    assert seen == [b"sit %d" % n for n in range(1, 7)]


async def test_the_answer_to_a_sit_follows_the_entries_it_was_judged_on(served: Served) -> None:
    """The game logs entries while it checks a sit (the boundary the sit was for passing): the
    newcomer gets them before the answer, so its protocol has signed the next sit when it reads
    "not taken", and does not send the stale one again."""
    service, _, _, at = served

    async def on_sit(frame: bytes) -> bool | None:
        service.publish(b"entry 1")  # logged by the game while it took the sit
        service.publish(b"entry 2")
        return False

    service.on_sit = on_sit
    service.publish(b"entry 0")
    with trio.fail_after(10):
        conn = await live_newcomer(at)
        await conn.send(b"sit 1")
        assert await conn.receive() == b"entry 1"
        assert await conn.receive() == b"entry 2"
        assert parse_peers(await conn.receive()) == ([], False)


class PacedWatcher:
    """A watcher's connection, as the service sees it, that takes one frame per ``pace``
    seconds (or none at all): a watcher far behind, or a host starved of CPU."""

    def __init__(self, pace: float | None) -> None:
        self.me = Identity.generate()
        self.peer_key = self.me.public_key
        self.transcript = b"a handshake"
        self.pace = pace
        self.got: list[bytes] = []
        self._greeted = False

    async def receive(self) -> bytes:
        if not self._greeted:
            self._greeted = True
            return hello_frame(self.me, self.transcript, "Kim")
        await trio.sleep_forever()
        raise AssertionError

    async def send(self, frame: bytes) -> None:
        if self.pace is None:
            await trio.sleep_forever()
        await trio.sleep(self.pace)
        self.got.append(frame)

    async def aclose(self) -> None:
        pass


async def end_with(conn: PacedWatcher, entries: int) -> float:
    """How long the service's end waits, with ``conn`` watching a log of ``entries``."""
    service = WatchService(Screen(), WatchConfig(drain=2.0, drain_limit=30.0, send_timeout=5.0))
    for i in range(entries):
        service.publish(b"entry %d" % i)
    async with serving_watchers(service):
        service.admit(conn)  # type: ignore[arg-type]
        while not service.watchers:
            await trio.sleep(0.01)
        start = trio.current_time()
    return trio.current_time() - start


async def test_a_watcher_taking_the_log_slowly_at_the_end_gets_all_of_it(
    autojump_clock: trio.abc.Clock,
) -> None:
    slow = PacedWatcher(pace=0.5)  # 40 entries: 20 s, ten times the drain
    waited = await end_with(slow, 40)
    assert slow.got == [b"entry %d" % i for i in range(40)]
    assert waited == pytest.approx(20.0, abs=0.1)


async def test_the_end_waits_a_bounded_time_for_a_watcher_that_takes_nothing_or_too_long(
    autojump_clock: trio.abc.Clock,
) -> None:
    stuck = PacedWatcher(pace=None)
    assert await end_with(stuck, 3) == pytest.approx(2.0, abs=0.1)  # the drain: no entry taken
    assert stuck.got == []
    slow = PacedWatcher(pace=1.0)  # 100 entries: 100 s
    assert await end_with(slow, 100) == pytest.approx(30.0, abs=0.1)  # the drain's limit
    assert 25 <= len(slow.got) < 40
