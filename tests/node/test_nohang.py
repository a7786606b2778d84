"""No peer can hang a node: one that reads nothing, floods sync requests, or goes silent while
the player quits. Runners over meshes on in-memory pipes, on trio's virtual clock."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from pathlib import Path

import trio

from hearts_p2p.bots import make_bot
from hearts_p2p.bots.botseat import BotSeat
from hearts_p2p.control import Chat, Sync, Synced, encode, parse_control
from hearts_p2p.engine import Action, SeatView
from hearts_p2p.frontend import ChatLine, Event, FrontEnd
from hearts_p2p.game import GameProtocol, Status
from hearts_p2p.identity import Identity
from hearts_p2p.log import GameLog, SecretStore
from hearts_p2p.node import GameRunner, RunnerConfig
from hearts_p2p.node.runner import Links
from hearts_p2p.node.session import _replay_own_log
from hearts_p2p.rules import Rules
from hearts_p2p.transport import Connection, ConnectionClosed, Member, open_mesh
from hearts_p2p.wire import decode_peer_frame

from .pipes import connect, open_meshes
from .table import GAME_ID, TEST_PROOF_ROUNDS, Table
from .test_runner import MemoryLinks, mesh


def outsider(ids: Sequence[Identity]) -> Identity:
    """A key that is no player's and lower than all of theirs: it dials them, so no mesh ever
    dials it."""
    lowest = min(i.public_key for i in ids)
    for n in range(100, 256):
        candidate = Identity.from_seed(bytes([n]) * 32)
        if candidate.public_key < lowest:
            return candidate
    raise AssertionError("no low key among the seeds tried")


async def play(
    tmp: Path, table: Table, links: Sequence[Links], config: RunnerConfig
) -> list[Status]:
    statuses: list[Status] = []

    async def one(i: int) -> None:
        runner = GameRunner(
            table.protos[i],
            links[i],
            BotSeat(make_bot("heuristic", i)),
            GameLog.open(tmp / f"p{i}.log"),
            SecretStore(tmp / f"p{i}.s"),
            config,
        )
        statuses.append(await runner.run())

    async with trio.open_nursery() as nursery:
        table.protos[0].propose(table.genesis)
        for i in range(len(table.protos)):
            nursery.start_soon(one, i)
    return statuses


async def flood_syncs(conn: Connection, count: int) -> None:
    with contextlib.suppress(ConnectionClosed):
        for _ in range(count):
            await conn.send(encode(Sync(0)))


async def test_a_peer_that_never_reads_does_not_stop_the_game(
    tmp_path: Path, autojump_clock: trio.abc.Clock
) -> None:
    """A fifth member of the mesh completes the handshake with every player, then reads
    nothing and asks each for the whole log 300 times. The four players finish their game."""
    table = Table(Rules(players=4, target=20), seed=2)
    sink = outsider(table.ids)
    config = RunnerConfig(absent_timeout=120, linger=0.5)
    with trio.fail_after(600):
        async with open_meshes(table.ids, extra=[sink]) as meshes, trio.open_nursery() as nursery:
            for identity, m in zip(table.ids, meshes, strict=True):
                mine, theirs = await connect(sink, identity, back=1 << 12)
                m.adopt(theirs)
                nursery.start_soon(flood_syncs, mine, 300)
            statuses = await play(tmp_path, table, meshes, config)
            nursery.cancel_scope.cancel()
    assert statuses == [Status.FINISHED] * 4
    assert len({(tmp_path / f"p{i}.log").read_bytes() for i in range(4)}) == 1


async def test_a_flood_of_syncs_is_answered_bounded(
    tmp_path: Path, autojump_clock: trio.abc.Clock
) -> None:
    """300 sync requests from one peer get one answer now and one for all the rest after
    ``sync_interval``."""
    table = Table(Rules(players=4, target=20), seed=2)
    sink = outsider(table.ids).public_key
    keys = [i.public_key for i in table.ids]
    links = mesh([*keys, sink])
    for key in keys:
        for _ in range(300):
            await links[4].send(key, encode(Sync(0)))
    config = RunnerConfig(absent_timeout=120, linger=0.5)
    with trio.fail_after(600):
        statuses = await play(tmp_path, table, links, config)
    assert statuses == [Status.FINISHED] * 4
    for key in keys:
        answers = 0
        inbox = links[4].inbox(key)
        while True:
            try:
                frame = decode_peer_frame(inbox.receive_nowait())
            except trio.WouldBlock:
                break
            answers += isinstance(frame, dict) and isinstance(parse_control(frame), Synced)
        assert answers == 2


async def test_quit_leaves_within_2_s_while_the_peers_take_nothing(
    tmp_path: Path, autojump_clock: trio.abc.Clock
) -> None:
    """The host's three peers are connected but read nothing (their buffers hold 256 bytes).
    The host quits: its runner and its mesh are gone within 2 s."""
    table = Table(Rules(players=4, target=20), seed=2)
    me = table.ids[0]
    roster = [Member(i.public_key, ("127.0.0.1", 9)) for i in table.ids]
    conns = [(await connect(me, other, capacity=256))[0] for other in table.ids[1:]]
    proto = table.protos[0]
    config = RunnerConfig(absent_timeout=120)
    with trio.fail_after(600):
        async with open_mesh(me, GAME_ID, roster) as m:
            for conn in conns:
                m.adopt(conn)
            front = BotSeat(make_bot("heuristic", 0))
            game_log = GameLog.open(tmp_path / "p0.log")
            runner = GameRunner(proto, m, front, game_log, SecretStore(tmp_path / "p0.s"), config)
            proto.propose(table.genesis)
            async with trio.open_nursery() as nursery:
                await nursery.start(runner.run)
                await trio.sleep(5)
                quit_at = trio.current_time()
                runner.quit()
        left_at = trio.current_time()
    assert left_at - quit_at <= 2.0
    assert proto.status is Status.ABORTED


class CountingLinks(MemoryLinks):
    """Counts the sync requests this player sends."""

    syncs = 0

    async def send(self, peer: bytes, payload: bytes) -> None:
        frame = decode_peer_frame(payload)
        self.syncs += isinstance(frame, dict) and isinstance(parse_control(frame), Sync)
        await super().send(peer, payload)


class CrashingSeat(BotSeat):
    """A bot seat whose node dies (its scope cancelled) when asked for its ``at``-th decision."""

    def __init__(self, seed: int, at: int, crash: trio.CancelScope) -> None:
        super().__init__(make_bot("heuristic", seed))
        self.left = at
        self.crash = crash

    async def choose(self, view: SeatView) -> Action:
        self.left -= 1
        if not self.left:
            self.crash.cancel()
            await trio.sleep_forever()
        return await super().choose(view)


async def test_a_resumed_peer_catches_up_in_bounded_answers(
    tmp_path: Path, autojump_clock: trio.abc.Clock
) -> None:
    """Player 3 dies mid-hand; what was in flight to it is lost, and so are its log's last
    dozen entries (written but never synced to disk, say). It resumes from what is left. Every
    answer it gets carries one entry (``sync_bytes=1``), so it asks again and again, and still
    catches up: the game finishes, every log alike."""
    table = Table(Rules(players=4, target=20), seed=2)
    keys = [i.public_key for i in table.ids]
    links = mesh(keys)
    config = RunnerConfig(absent_timeout=120, linger=0.5, sync_bytes=1)
    statuses: dict[int, Status] = {}

    def runner(i: int, proto: GameProtocol, front: FrontEnd, link: Links) -> GameRunner:
        log = GameLog.open(tmp_path / f"p{i}.log")
        secrets = SecretStore(tmp_path / f"p{i}.s")
        return GameRunner(proto, link, front, log, secrets, config, resuming=link is not links[i])

    async def one(i: int) -> None:
        front = BotSeat(make_bot("heuristic", i))
        statuses[i] = await runner(i, table.protos[i], front, links[i]).run()

    async def dies_and_resumes() -> None:
        crash = trio.CancelScope()
        first = runner(3, table.protos[3], CrashingSeat(3, 6, crash), links[3])
        with crash:
            await first.run()
        first.log.truncate(len(first.log) - 12)
        first.log.close()
        for peer in keys[:3]:  # what was on its way to the dead process
            with contextlib.suppress(trio.WouldBlock):
                while True:
                    links[3].inbox(peer).receive_nowait()
        saved = SecretStore(tmp_path / "p3.s").load()
        proto = GameProtocol(
            GAME_ID,
            keys[0],
            table.ids[3],
            bytes([12]) * 32,
            saved["choices"],
            min_proof_rounds=TEST_PROOF_ROUNDS,
        )
        back = CountingLinks(keys[3], keys, links[3]._boxes)
        again = runner(3, proto, BotSeat(make_bot("heuristic", 3)), back)
        _replay_own_log(proto, again.log)
        lag = len(table.protos[0].entries) - len(proto.entries)
        statuses[3] = await again.run()
        assert back.syncs > lag > 0

    with trio.fail_after(600):
        async with trio.open_nursery() as nursery:
            table.protos[0].propose(table.genesis)
            for i in range(3):
                nursery.start_soon(one, i)
            nursery.start_soon(dies_and_resumes)
    assert list(statuses.values()) == [Status.FINISHED] * 4
    assert len({(tmp_path / f"p{i}.log").read_bytes() for i in range(4)}) == 1


class FloodedLinks:
    """Player 0's links: every peer connected but ``gone``, none of them reading or answering;
    the test writes what they send into bounded inboxes."""

    def __init__(self, peers: Sequence[bytes], gone: bytes) -> None:
        self.peers = tuple(peers)
        self.gone = gone
        self.boxes = {p: trio.open_memory_channel[bytes](16) for p in peers}

    def inbox(self, peer: bytes) -> trio.MemoryReceiveChannel[bytes]:
        return self.boxes[peer][1]

    def is_connected(self, peer: bytes) -> bool:
        return peer != self.gone

    async def wait_change(self) -> None:
        await trio.sleep_forever()

    async def send(self, peer: bytes, payload: bytes) -> None:
        await trio.lowlevel.checkpoint()

    async def relay(self, peer: bytes, payload: bytes) -> None:
        await trio.lowlevel.checkpoint()

    async def broadcast(self, payload: bytes) -> frozenset[bytes]:
        await trio.lowlevel.checkpoint()
        return frozenset({self.gone})


class SlowScreen(BotSeat):
    """A bot seat whose screen takes 10 ms to show a chat line."""

    async def notify(self, event: Event) -> None:
        if isinstance(event, ChatLine):
            await trio.sleep(0.01)
        await super().notify(event)


async def flooded_host(tmp_path: Path, quit_at: float | None) -> tuple[float, GameProtocol]:
    """The host of a table whose player 3 is gone while player 1 sends 3000 chat lines (30 s
    of the host's screen): when does the host's game end?"""
    table = Table(Rules(players=4, target=20), seed=2)
    keys = [i.public_key for i in table.ids]
    links = FloodedLinks(keys[1:], gone=keys[3])
    proto = table.protos[0]
    config = RunnerConfig(absent_timeout=10, linger=0.5)
    front = SlowScreen(make_bot("heuristic", 0))
    runner = GameRunner(
        proto, links, front, GameLog.open(tmp_path / "p0.log"), SecretStore(tmp_path / "s"), config
    )
    proto.propose(table.genesis)

    async def flood() -> None:
        with contextlib.suppress(trio.BrokenResourceError):
            for _ in range(3000):
                await links.boxes[keys[1]][0].send(encode(Chat("hi")))

    with trio.fail_after(600):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(flood)
            await nursery.start(runner.run)
            if quit_at is not None:
                await trio.sleep(quit_at)
                runner.quit()
            while proto.status is Status.RUNNING:
                await trio.sleep(0.1)
            ended = trio.current_time()
            nursery.cancel_scope.cancel()
    return ended, proto


async def test_the_absence_watcher_is_heard_through_a_flood(
    tmp_path: Path, autojump_clock: trio.abc.Clock
) -> None:
    ended, proto = await flooded_host(tmp_path, quit_at=None)
    assert proto.abort is not None and proto.abort.culprit == 3
    assert ended < 10 + 2


async def test_quit_is_heard_through_a_flood(
    tmp_path: Path, autojump_clock: trio.abc.Clock
) -> None:
    ended, proto = await flooded_host(tmp_path, quit_at=3)
    assert proto.abort is not None and proto.abort.culprit == 0
    assert ended < 3 + 2


class LateFirstLook(MemoryLinks):
    """Player 0's links: peer 1 looks disconnected at the first two looks only (the node's
    watchers each take one as they start), and no change is ever signalled: the connection
    came up between the node's looks."""

    looks = 0

    def is_connected(self, peer: bytes) -> bool:
        if peer == self.peers[0] and self.looks < 2:
            self.looks += 1
            return False
        return super().is_connected(peer)


async def test_a_peer_up_since_the_first_look_is_never_given_up_on(
    tmp_path: Path, autojump_clock: trio.abc.Clock
) -> None:
    """A connection that came up before any change was seen is not an absence: a game that
    lasts many timeouts (each play a second) ends finished at every peer, nobody named."""
    table = Table(Rules(players=4, target=20), seed=2)
    keys = [i.public_key for i in table.ids]
    links: list[Links] = list(mesh(keys))
    first = links[0]
    assert isinstance(first, MemoryLinks)
    late = LateFirstLook(keys[0], keys, first._boxes)
    links[0] = late
    statuses: list[Status] = []
    config = RunnerConfig(absent_timeout=5, linger=0.5)

    async def one(i: int) -> None:
        runner = GameRunner(table.protos[i], links[i], BotSeat(make_bot("heuristic", i), 1.0),
                            GameLog.open(tmp_path / f"p{i}.log"),
                            SecretStore(tmp_path / f"p{i}.s"), config)  # fmt: skip
        statuses.append(await runner.run())

    start = trio.current_time()
    with trio.fail_after(3600):
        async with trio.open_nursery() as nursery:
            table.protos[0].propose(table.genesis)
            for i in range(4):
                nursery.start_soon(one, i)
    assert late.looks == 2 and trio.current_time() - start > 10 * config.absent_timeout
    assert statuses == [Status.FINISHED] * 4
