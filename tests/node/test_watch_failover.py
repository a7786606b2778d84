"""A watcher keeps watching when the host leaves: the table plays the host's seat, the next node
in seat order announces the table, and the watcher, found by discovery over loopback, goes on
from that node's feed to the end of the game, verified as the survivors logged it."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest
import trio

from hearts_p2p.audit import audit_log
from hearts_p2p.cli.render import Style
from hearts_p2p.cli.watching import Printer, exit_code
from hearts_p2p.discovery import DiscoveryConfig
from hearts_p2p.game import GameProtocol, Genesis, Status, StepKind
from hearts_p2p.log import read_log
from hearts_p2p.netif import interface
from hearts_p2p.node import GameRunner, Outcome, PeerOptions, host_game, join_game
from hearts_p2p.node.herald import announcer
from hearts_p2p.node.watch_client import (
    FeedLost,
    Found,
    LiveAudit,
    TrickDone,
    WatchEvent,
    WatchOptions,
    WatchResult,
    watch_table,
)
from hearts_p2p.rules import Rules

from .test_takeover import DyingTable, survivors
from .test_watch import NoticingSeat, free_udp_port, table_with


@pytest.mark.slow
async def test_a_watcher_follows_the_table_from_the_next_node_when_the_host_leaves(
    tmp_path: Path,
) -> None:
    watching = Refinding()
    shown, show = watching.shown, watching.show
    results: list[WatchResult] = []
    left_at: list[str] = []
    config = DiscoveryConfig(port=free_udp_port())
    seats = {name: NoticingSeat(i) for i, name in enumerate(["host", "j0", "j1", "j2"])}

    async def watch_then_leave(runner: GameRunner, at: tuple[str, int]) -> None:
        opts = WatchOptions("Kib", [interface("lo")], tmp_path / "watched", config,
                            failover_timeout=30.0)  # fmt: skip

        async def watch() -> None:
            results.append(await watch_table(opts, "loop", show))
            watching.ended()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(watch)
            p = runner.protocol
            while not (_mid_hand(p) and any(isinstance(e, TrickDone) for e in shown)):
                await trio.sleep(0.01)
            left_at.append(p.step.name)
            runner.quit()  # Ada, the host, leaves mid-hand, watched
            await watching.hold(seats["j0"], seats.values())

    # To 30: two hands at the least, the host leaving in the first; a survivor holds its moves
    # until the watcher has the next feed (Refinding), so no longer game is needed for a busy
    # machine to find it.
    rules = Rules(players=4, target=30)
    table = await table_with(tmp_path, rules, watch_then_leave, config, seats)
    outcomes, seats = table["outcomes"], table["seats"]
    assert left_at and outcomes["host"].status is Status.ABORTED
    survivors = [outcomes[name] for name in ("j0", "j1", "j2")]
    assert [o.status for o in survivors] == [Status.FINISHED] * 3, [o.abort for o in survivors]
    result = results[0]
    assert result.complete and result.report.valid, result.report.problems
    assert result.report.status.value == "finished" and result.feed_problems == 0, (
        [type(e).__name__ for e in shown if not isinstance(e, TrickDone)],
        result.report.abort,
        result.report.problems,
    )
    assert result.report.final_hash == survivors[0].final_hash
    assert read_log(result.log_path).entries == read_log(survivors[0].log_path).entries
    assert [t.ending for t in result.report.takeovers] == ["left"]
    lost = [e for e in shown if isinstance(e, FeedLost)]
    found = [e for e in shown if isinstance(e, Found)]
    assert [e.server for e in lost] == ["Ada"] and len(found) == 2
    first, then = (f.info.announcement for f in found)
    assert first.host_name == "Ada" and then.host_name != "Ada"
    # The node that took the announcement over is the next seat's after the host's, and it
    # told its player so.
    players = result.report.players
    host_seat = next(p.seat for p in players if p.name == "Ada")
    assert then.host_name == players[(host_seat + 1) % 4].name
    name_to_seat = {"Bea": "j0", "Cy": "j1", "Dee": "j2"}
    assert any("announces the table now" in n for n in seats[name_to_seat[then.host_name]].notices)
    said = Printer(Style(unicode=False, color=False)).lines(lost[0])
    assert "Ada's node ended before the game did" in said[0]
    assert exit_code(result) == 0


class Refinding:
    """What the watcher shows, and a hold on one survivor's moves: once the table has taken the
    host's seat over (the next node says it announces now), that survivor makes no move until
    that node has the watcher (its player is told who watches) or the watch has ended. On a busy
    machine the game could otherwise end, and its nodes go, before the watcher is in; and not
    before, since a leave is taken over at the next step that waits on the host, which may come
    after the held move."""

    def __init__(self) -> None:
        self.shown: list[WatchEvent] = []
        self.refound = trio.Event()

    async def show(self, event: WatchEvent) -> None:
        self.shown.append(event)

    def ended(self) -> None:
        self.refound.set()  # found or not: the table plays on

    async def hold(self, held: NoticingSeat, seats: Iterable[NoticingSeat]) -> None:
        said = "announces the table now"
        while not (by := [s for s in seats if any(said in n for n in s.notices)]):
            await trio.sleep(0.01)
        held.hold = self.refound
        announcing = by[0]
        start = next(i for i, n in enumerate(announcing.notices) if said in n)
        while not self.refound.is_set():
            if any(" is watching; " in n for n in announcing.notices[start:]):
                self.refound.set()
            await trio.sleep(0.01)


def _mid_hand(p: GameProtocol) -> bool:
    """The fourth trick of hand 1 or later, in that hand: the watcher has seen a trick by then."""
    return p.step.kind is StepKind.OPEN and p.step.hand == 1 and int(p.step.name[5:]) >= 12


def test_the_announcer_is_the_host_then_the_next_seat_the_table_does_not_play() -> None:
    """Each survivor computes the same announcer from what every node holds alike: the seats
    the table plays."""
    dying = DyingTable(Rules(players=4, target=10), dead=0, hand=1, step="play.6")
    dying.run()
    assert {announcer(p) for p in dying.protos[1:]} == {0}  # silent, but still its seat
    seen: set[tuple[int | None, int]] = set()

    def note(player: int, p: GameProtocol) -> bool:
        if player and p.status is Status.RUNNING and 0 in p.table_seats:
            seen.add((announcer(p), p.player_at[(p.seat_of[0] + 1) % 4]))
        return False

    dying.choose = note
    dying.expire()
    assert len(seen) == 1 and all(a == b for a, b in seen), seen
    assert all(p.status is Status.FINISHED for p in dying.protos[1:])
    assert {announcer(p) for p in dying.protos[1:]} == {None}  # the game is over


@pytest.mark.slow
async def test_a_watcher_follows_the_table_when_the_host_s_node_is_gone(tmp_path: Path) -> None:
    """The host's node vanishes without a word: once the others' clocks run out, they take its
    seat over, the next node announces the table, and the watcher goes on from there."""
    config = DiscoveryConfig(port=free_udp_port())
    people = {"host": "Ada", "j0": "Bea", "j1": "Cy", "j2": "Dee"}
    seats = {name: NoticingSeat(i) for i, name in enumerate(people)}
    outcomes: dict[str, Outcome] = {}
    watching = Refinding()
    shown, show = watching.shown, watching.show
    results: list[WatchResult] = []
    address: list[tuple[str, int]] = []
    listening = trio.Event()
    host_scope = trio.CancelScope()

    def options(name: str) -> PeerOptions:
        return PeerOptions(tmp_path / name, people[name], [interface("lo")], config,
                           absent_timeout=4.0)  # fmt: skip

    def on_listening(host: str, port: int) -> None:
        address.append((host, port))
        listening.set()

    async def host(task_status: trio.TaskStatus[GameRunner] = trio.TASK_STATUS_IGNORED) -> None:
        with host_scope:
            await host_game(options("host"), Rules(players=4, target=30), "loop", seats["host"],
                            on_listening=on_listening, task_status=task_status)  # fmt: skip

    async def joiner(name: str) -> None:
        await listening.wait()
        outcomes[name] = await join_game(options(name), seats[name], peer=address[0])

    async def watch() -> None:
        opts = WatchOptions("Kib", [interface("lo")], tmp_path / "watched", config,
                            failover_timeout=30.0)  # fmt: skip
        results.append(await watch_table(opts, "loop", show))
        watching.ended()

    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            for name in ("j0", "j1", "j2"):
                nursery.start_soon(joiner, name)
            runner = await nursery.start(host)
            nursery.start_soon(watch)
            while not (_mid_hand(runner.protocol) and any(isinstance(e, TrickDone) for e in shown)):
                await trio.sleep(0.01)
            host_scope.cancel()  # the host's machine is gone: no leave, no goodbye
            await watching.hold(seats["j0"], seats.values())
    survivors = [outcomes[name] for name in ("j0", "j1", "j2")]
    assert [o.status for o in survivors] == [Status.FINISHED] * 3, [o.abort for o in survivors]
    result = results[0]
    assert result.complete and result.report.valid, (
        [type(e).__name__ for e in shown if not isinstance(e, TrickDone)],
        result.report.problems,
    )
    assert result.report.final_hash == survivors[0].final_hash
    assert [t.ending for t in result.report.takeovers] == ["gone"]
    assert [e.server for e in shown if isinstance(e, FeedLost)] == ["Ada"]


def undelivered() -> tuple[list[bytes], list[bytes], Genesis]:
    """A table whose host logs its own play (so its watchers have it) and goes before any peer
    gets it: the table takes its seat over there instead. The host's log then, the survivors'
    log at the end, and the genesis."""
    table = DyingTable(Rules(players=4, target=10), 0, 1, "play.4", logs_its_part=True)
    table.play()
    genesis = table.protos[1].genesis
    assert genesis is not None
    return table.log_at_death, survivors(table)[0].entries, genesis


def test_a_watcher_drops_the_gone_hosts_own_last_message_that_no_peer_took(
    tmp_path: Path,
) -> None:
    """The host's node logged its play, fed it to the watcher and went before sending it. The
    table took the seat over at that play; the next node's feed parts from the watcher's log
    there. The watcher drops the host's word alone and goes on with the table's log: the game
    verifies as the survivors logged it. (Before, it waited on the seat for ever.)"""
    fed, kept, genesis = undelivered()
    assert fed[-1] not in kept and fed[:-1] == kept[: len(fed) - 1]
    path = tmp_path / "watched.log"
    live = LiveAudit(genesis.game_id, genesis.players[0].key, path)
    for entry in fed:
        live.take(entry)
    live.serving(genesis.players[1].key)  # the next node's feed, from entry 0
    shown = [event for entry in kept for event in live.take(entry)]
    live.close()
    assert live.over and live.problems == 0
    assert read_log(path).entries == kept
    report = audit_log(path)
    assert report.valid and [t.ending for t in report.takeovers] == ["gone"]
    assert any(isinstance(e, TrickDone) for e in shown)


def test_a_feed_cannot_make_a_watcher_drop_what_other_players_signed(tmp_path: Path) -> None:
    """The other way round: the watcher holds the table's takeover (signed by the survivors),
    and a later feed, the gone host's log, parts from it there with the host's own play. The
    watcher drops nothing the survivors signed: its log keeps the table's entries."""
    fed, kept, genesis = undelivered()
    path = tmp_path / "watched.log"
    live = LiveAudit(genesis.game_id, genesis.players[0].key, path)
    held = kept[: len(fed) + 10]
    for entry in held:
        live.take(entry)
    live.serving(genesis.players[0].key)
    shown = [event for entry in fed for event in live.take(entry)]
    live.close()
    assert read_log(path).entries == held
    assert not shown and live.proto.abort is None and live.problems == 0  # nobody named
