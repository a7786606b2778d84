"""Watchers over real loopback TCP: a whole bot game verified live from no seat, a hostile
watcher that cannot stall the table, and a tampered feed that blames no player."""

from __future__ import annotations

import socket
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
import trio

from hearts_p2p.audit import audit_log
from hearts_p2p.bots import make_bot
from hearts_p2p.bots.botseat import BotSeat
from hearts_p2p.cli.watching import exit_code, verdict_lines
from hearts_p2p.discovery import DiscoveryConfig
from hearts_p2p.engine import Action, SeatView
from hearts_p2p.frontend import Event, Notice
from hearts_p2p.game import Genesis, LocalTable, SeatedRoster, Status
from hearts_p2p.identity import Identity
from hearts_p2p.log import read_log
from hearts_p2p.netif import interface
from hearts_p2p.node import GameRunner, Outcome, PeerOptions, host_game, join_game
from hearts_p2p.node.watch import hello_frame
from hearts_p2p.node.watch_client import (
    FeedProblem,
    HandBegun,
    HandDone,
    LiveAudit,
    TrickDone,
    WatchEvent,
    WatchOptions,
    WatchResult,
    follow_feed,
    watch_table,
)
from hearts_p2p.rules import Rules
from hearts_p2p.transport import (
    Connection,
    ConnectionClosed,
    accept_connection,
    open_connection,
)
from hearts_p2p.wire import decode_frame, pack, unpack
from tests.ports import own_port


def free_udp_port() -> int:
    return own_port(socket.SOCK_DGRAM)


class NoticingSeat(BotSeat):
    """A bot seat that keeps the notices the table shows it; once a test sets ``hold``, it makes
    no move until that event is set (the table then waits for what the test waits on)."""

    def __init__(self, seed: int) -> None:
        super().__init__(make_bot("heuristic", seed))
        self.notices: list[str] = []
        self.hold: trio.Event | None = None

    async def notify(self, event: Event) -> None:
        if isinstance(event, Notice):
            self.notices.append(event.text)
        await super().notify(event)

    async def choose(self, view: SeatView) -> Action:
        if self.hold is not None:
            await self.hold.wait()
        return await super().choose(view)


Watch = Callable[[GameRunner, tuple[str, int]], Awaitable[None]]


async def table_with(
    tmp: Path,
    rules: Rules,
    watch: Watch,
    config: DiscoveryConfig,
    seats: dict[str, NoticingSeat] | None = None,
) -> dict:
    """A bot table over loopback; ``watch`` runs once the game does."""
    outcomes: dict[str, Outcome] = {}
    if seats is None:
        seats = {name: NoticingSeat(i) for i, name in enumerate(["host", "j0", "j1", "j2"])}
    address: list[tuple[str, int]] = []
    listening = trio.Event()

    people = {"host": "Ada", "j0": "Bea", "j1": "Cy", "j2": "Dee"}

    def options(name: str) -> PeerOptions:
        return PeerOptions(tmp / name, people[name], [interface("lo")], config, absent_timeout=30.0)

    def on_listening(host: str, port: int) -> None:
        address.append((host, port))
        listening.set()

    async def host(task_status: trio.TaskStatus[GameRunner] = trio.TASK_STATUS_IGNORED) -> None:
        outcomes["host"] = await host_game(
            options("host"), rules, "loop", seats["host"], on_listening=on_listening,
            task_status=task_status,
        )  # fmt: skip

    async def joiner(name: str) -> None:
        await listening.wait()
        outcomes[name] = await join_game(options(name), seats[name], peer=address[0])

    with trio.fail_after(240):
        async with trio.open_nursery() as nursery:
            for name in ("j0", "j1", "j2"):
                nursery.start_soon(joiner, name)
            runner = await nursery.start(host)
            await watch(runner, address[0])
    return {"outcomes": outcomes, "seats": seats}


async def dial_as_watcher(runner: GameRunner, at: tuple[str, int], name: str) -> Connection:
    """A watcher's connection to the host, its hello sent."""
    g = runner.protocol.genesis
    assert g is not None
    watcher = Identity.generate()
    conn = await open_connection(*at, watcher, runner.protocol.game_id, expected=g.players[0].key)
    await conn.send(hello_frame(watcher, conn.transcript, name))
    return conn


@pytest.mark.slow
async def test_a_watcher_verifies_a_whole_bot_game_live(tmp_path: Path) -> None:
    shown: list[WatchEvent] = []
    results: list[WatchResult] = []

    async def show(event: WatchEvent) -> None:
        shown.append(event)

    async def watch_right(runner: GameRunner, at: tuple[str, int]) -> None:
        g = runner.protocol.genesis
        assert g is not None
        conn = await dial_as_watcher(runner, at, "Kib")
        async with conn:
            path = tmp_path / "watched2.log"
            results.append(
                await follow_feed(conn, runner.protocol.game_id, g.players[0].key, path, 60, show)
            )

    config = DiscoveryConfig(port=free_udp_port())
    table = await table_with(tmp_path, Rules(players=4, target=30), watch_right, config)
    outcomes = table["outcomes"]
    assert [o.status for o in outcomes.values()] == [Status.FINISHED] * 4
    result = results[0]
    assert result.complete and result.report.valid, result.report.problems
    assert result.feed_problems == 0
    assert result.report.final_hash == outcomes["host"].final_hash
    assert read_log(result.log_path).entries == read_log(outcomes["host"].log_path).entries
    assert any(isinstance(e, SeatedRoster) for e in shown)
    hands = [e for e in shown if isinstance(e, HandDone)]
    tricks = [e for e in shown if isinstance(e, TrickDone)]
    assert len(hands) == len(result.report.hands) and len(tricks) == 13 * len(hands)
    assert not any(isinstance(e, FeedProblem) for e in shown)
    host_notices = table["seats"]["host"].notices
    assert any("Kib" in n and "is watching" in n for n in host_notices)
    assert any("watching (1): Kib" in n for n in table["seats"]["j0"].notices), table["seats"][
        "j0"
    ].notices


async def test_watch_table_finds_the_table_by_discovery(tmp_path: Path) -> None:
    config = DiscoveryConfig(port=free_udp_port())
    results: list[WatchResult] = []

    async def watch(runner: GameRunner, at: tuple[str, int]) -> None:
        async def show(event: WatchEvent) -> None:
            pass

        opts = WatchOptions("Kib", [interface("lo")], tmp_path / "watched", config)
        results.append(await watch_table(opts, "loop", show))

    table = await table_with(tmp_path, Rules(players=4, target=20), watch, config)
    assert results[0].report.valid and results[0].complete
    assert results[0].report.final_hash == table["outcomes"]["host"].final_hash


async def test_a_hostile_watcher_does_not_stall_the_table(tmp_path: Path) -> None:
    """One watcher floods the host and another never reads: the game ends as it would have,
    both are dropped, and the frames the flooder sent reach no game."""
    dropped: list[str] = []

    async def watch(runner: GameRunner, at: tuple[str, int]) -> None:
        sleeper = await dial_as_watcher(runner, at, "Sleepy")
        flooder = await dial_as_watcher(runner, at, "Flood")
        junk = pack([b"x" * 1000, b"y" * 64])
        with trio.move_on_after(5):
            try:
                for _ in range(10_000):
                    await flooder.send(junk)  # a watcher that sends anything is dropped
            except ConnectionClosed:
                dropped.append("flooder")
        while runner.protocol.status is Status.RUNNING:
            await trio.sleep(0.5)  # never reads: its socket fills, its writer times out
        dropped.append("done")
        await trio.aclose_forcefully(flooder)
        await trio.aclose_forcefully(sleeper)

    config = DiscoveryConfig(port=free_udp_port())
    with trio.fail_after(120):
        table = await table_with(tmp_path, Rules(players=4, target=30), watch, config)
    outcomes = table["outcomes"]
    assert [o.status for o in outcomes.values()] == [Status.FINISHED] * 4
    assert dropped == ["flooder", "done"]
    assert any("Flood" in n and "stopped watching" in n for n in table["seats"]["host"].notices)
    notices = table["seats"]["host"].notices
    assert any("Sleepy" in n and "is watching" in n for n in notices)
    assert any("Sleepy" in n and "stopped watching" in n for n in notices)


async def test_a_tampered_frame_is_the_feeds_fault_not_a_players(tmp_path: Path) -> None:
    """A host that rewrites one card of its feed: the watcher says the feed is forged, names
    no player, and its audit does not blame any seat."""
    config = DiscoveryConfig(port=free_udp_port())
    outcomes = (await table_with(tmp_path, Rules(players=4, target=20), _no_watch, config))[
        "outcomes"
    ]
    entries = read_log(outcomes["host"].log_path).entries
    target = len(entries) // 2
    envelope, signature = unpack(entries[target])
    tampered = pack([envelope[:-1] + bytes([envelope[-1] ^ 1]), signature])
    feed = [*entries[:target], tampered, *entries[target + 1 :]]
    host = read_log(outcomes["host"].log_path)
    game_id, host_key = _ids(host.entries[0])
    shown: list[WatchEvent] = []

    async def show(event: WatchEvent) -> None:
        shown.append(event)

    host_identity = Identity.generate()  # the feed's server proves a key; the watcher expects it
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]

    async def serve(stream: trio.SocketStream) -> None:
        conn = await accept_connection(stream, host_identity, game_id)
        await conn.receive()  # the hello
        for frame in feed:
            await conn.send(frame)
        await conn.aclose()

    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(trio.serve_listeners, serve, listeners)
            watcher = Identity.generate()
            conn = await open_connection(
                "127.0.0.1", port, watcher, game_id, expected=host_identity.public_key
            )
            async with conn:
                await conn.send(hello_frame(watcher, conn.transcript, "Kib"))
                result = await follow_feed(conn, game_id, host_key, tmp_path / "w.log", 30, show)
            nursery.cancel_scope.cancel()
    problems = [e.text for e in shown if isinstance(e, FeedProblem)]
    assert len(problems) == 1 and result.feed_problems == 1
    assert "proves nothing against any player" in problems[0]
    names = [p.name for p in result.report.players]
    assert not any(name in problems[0] for name in names) and "seat" not in problems[0]
    assert all(p.culprit is None for p in result.report.problems)
    said = "\n".join(verdict_lines(result))
    assert "no player is blamed" in said and "waiting for" not in said, said
    assert exit_code(result) == 4
    assert result.report.abort is None or result.report.abort.blamed is None


async def _no_watch(runner: GameRunner, at: tuple[str, int]) -> None:
    pass


def _ids(genesis_entry: bytes) -> tuple[bytes, bytes]:
    msg = decode_frame(genesis_entry)
    genesis = Genesis.from_wire(msg.envelope.game_id, msg.envelope.body)
    return genesis.game_id, genesis.players[0].key


def test_the_live_audit_shows_what_the_offline_audit_reports(tmp_path: Path) -> None:
    """Fed a whole game's log one entry at a time, with no network: every trick as it is
    taken, every hand as the audit summarises it, and the same verdict."""
    rules = Rules(players=4, target=30)
    ids = [Identity.from_seed(bytes([i + 1]) * 32) for i in range(4)]
    bots = [make_bot("heuristic", i) for i in range(4)]
    table = LocalTable(rules, ids, [bytes([i + 9]) * 32 for i in range(4)], bytes(16), bots, seed=1)
    table.run()
    live = LiveAudit(bytes(16), ids[0].public_key, tmp_path / "live.log")
    shown = [event for entry in table.protos[0].entries for event in live.take(entry)]
    live.close()
    report = audit_log(tmp_path / "live.log")
    assert report.valid and live.over and live.problems == 0
    assert [e.summary for e in shown if isinstance(e, HandDone)] == report.hands
    tricks = [e for e in shown if isinstance(e, TrickDone)]
    assert [t.trick for t in tricks] == [t for h in report.hands for t in h.tricks]
    assert [(t.hand, t.number) for t in tricks[:2]] == [(1, 1), (1, 2)]
    begun = [e for e in shown if isinstance(e, HandBegun)]
    assert [b.number for b in begun] == [h.number for h in report.hands]
    assert shown.index(begun[1]) > shown.index(next(e for e in shown if isinstance(e, HandDone)))
