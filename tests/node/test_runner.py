"""Runners over an in-memory mesh with trio's virtual clock: timeouts without waiting."""

from __future__ import annotations

import itertools
import math
import threading
from dataclasses import replace
from pathlib import Path

import pytest
import trio

from hearts_p2p.audit import audit_log
from hearts_p2p.bots import make_bot
from hearts_p2p.bots.botseat import BotSeat
from hearts_p2p.engine import Action, SeatView
from hearts_p2p.frontend import FrontEnd, Notice
from hearts_p2p.game import GameProtocol, Status
from hearts_p2p.identity import Identity
from hearts_p2p.log import GameLog, SecretStore, read_log
from hearts_p2p.node import GameRunner, RunnerConfig
from hearts_p2p.node.runner import SYNC_SPACING
from hearts_p2p.rules import Rules
from hearts_p2p.wire import SignedMessage, decode_frame, decode_peer_frame, encode_message

from .table import Table


class MemoryLinks:
    """One player's end of a perfect in-memory mesh; ``withhold`` keeps this player's game
    messages from the others, from the first of that step on."""

    def __init__(
        self,
        me: bytes,
        keys: list[bytes],
        boxes: dict[tuple[bytes, bytes], object],
        dead: set[bytes] | None = None,
        cut: set[frozenset[bytes]] | None = None,
    ):
        self.me = me
        self.peers = tuple(k for k in keys if k != me)
        self._boxes = boxes
        self.withhold: str | None = None
        self.dies = False  # withholding also cuts every link: the peer is killed for good
        self._withholding = False
        self._dead = dead if dead is not None else set()
        self._cut = cut if cut is not None else set()  # links down between two live peers

    def inbox(self, peer: bytes) -> trio.MemoryReceiveChannel[bytes]:
        return self._boxes[(peer, self.me)][1]  # type: ignore[index,no-any-return]

    def is_connected(self, peer: bytes) -> bool:
        down = peer in self._dead or self.me in self._dead
        return not down and frozenset((self.me, peer)) not in self._cut

    async def wait_change(self) -> None:
        seen = (len(self._dead), len(self._cut))
        while (len(self._dead), len(self._cut)) == seen:
            await trio.sleep(0.5)

    async def send(self, peer: bytes, payload: bytes) -> None:
        frame = decode_peer_frame(payload)
        if isinstance(frame, SignedMessage) and frame.envelope.step == self.withhold:
            self._withholding = True
            if self.dies:
                self._dead.add(self.me)
        if not self.is_connected(peer):
            return
        if self._withholding and isinstance(frame, SignedMessage):
            return
        await self._boxes[(self.me, peer)][0].send(payload)  # type: ignore[index]

    async def relay(self, peer: bytes, payload: bytes) -> None:
        await self.send(peer, payload)

    async def broadcast(self, payload: bytes) -> frozenset[bytes]:
        for peer in self.peers:
            await self.send(peer, payload)
        return frozenset()


def mesh(keys: list[bytes]) -> list[MemoryLinks]:
    boxes: dict[tuple[bytes, bytes], object] = {
        (a, b): trio.open_memory_channel[bytes](math.inf) for a in keys for b in keys if a != b
    }
    dead: set[bytes] = set()
    cut: set[frozenset[bytes]] = set()
    return [MemoryLinks(k, keys, boxes, dead, cut) for k in keys]


class Thinking:
    """A person who thinks ``seconds`` over every decision, then plays as a bot would."""

    def __init__(self, seat: BotSeat, seconds: float) -> None:
        self.seat, self.seconds = seat, seconds

    async def choose(self, view: SeatView) -> Action:
        await trio.sleep(self.seconds)
        return await self.seat.choose(view)

    async def notify(self, event: object) -> None:
        await self.seat.notify(event)


async def run_table(
    tmp: Path,
    table: Table,
    timeout: float,
    links: list[MemoryLinks] | None = None,
    timeouts: dict[int, float] | None = None,
    hostile: int | None = None,
    thinking: float = 0.0,
) -> list[Status]:
    """Play ``table`` with a runner per peer; ``timeouts`` gives some peers their own
    ``--timeout`` (each node sets its own). The ``hostile`` peer's runner is stopped once every
    other one has ended: the in-memory links never tell it that they left."""
    keys = [i.public_key for i in table.ids]
    links = links or mesh(keys)
    statuses: list[Status] = []
    rest = trio.CancelScope()

    async def one(i: int, proto: GameProtocol) -> None:
        log = GameLog.open(tmp / f"p{i}.log")
        seat: FrontEnd = BotSeat(make_bot("heuristic", i))
        if thinking:
            seat = Thinking(BotSeat(make_bot("heuristic", i)), thinking)
        config = RunnerConfig(absent_timeout=(timeouts or {}).get(i, timeout), linger=0.5)
        runner = GameRunner(proto, links[i], seat, log, SecretStore(tmp / f"p{i}.s"), config)
        if i == hostile:
            with rest:
                await runner.run()
            return
        statuses.append(await runner.run())
        if len(statuses) == len(keys) - 1 and hostile is not None:
            rest.cancel()

    async with trio.open_nursery() as nursery:
        table.protos[0].propose(table.genesis)
        for i, proto in enumerate(table.protos):
            nursery.start_soon(one, i, proto)
    return statuses


async def test_runners_play_a_whole_game(tmp_path: Path, autojump_clock: trio.abc.Clock) -> None:
    table = Table(Rules(players=4, target=20), seed=2)
    statuses = await run_table(tmp_path, table, timeout=120)
    assert statuses == [Status.FINISHED] * 4
    logs = {(tmp_path / f"p{i}.log").read_bytes() for i in range(4)}
    assert len(logs) == 1


async def test_the_log_is_fsynced_at_most_every_spacing_and_whole_at_the_end(
    tmp_path: Path, autojump_clock: trio.testing.MockClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bot game asks for an fsync after every trick and deck step, hundreds of times at
    virtual time 0. The worker thread syncs a log at most once per ``SYNC_SPACING``, and what
    it leaves unsynced is synced when the log closes."""
    syncs: dict[int, list[float]] = {}
    closed: list[int] = []
    requests = 0
    plain_sync, plain_close = GameLog.sync, GameLog.close
    plain_request = GameRunner._request_sync

    def sync(self: GameLog) -> None:
        if threading.current_thread() is not threading.main_thread():
            syncs.setdefault(id(self), []).append(autojump_clock.current_time())
        plain_sync(self)

    def close(self: GameLog) -> None:
        closed.append(id(self))
        plain_close(self)

    def request(self: GameRunner) -> None:
        nonlocal requests
        requests += 1
        plain_request(self)

    monkeypatch.setattr(GameLog, "sync", sync)
    monkeypatch.setattr(GameLog, "close", close)
    monkeypatch.setattr(GameRunner, "_request_sync", request)
    table = Table(Rules(players=4, target=20), seed=2)
    assert await run_table(tmp_path, table, timeout=120) == [Status.FINISHED] * 4
    assert len(syncs) == 4 and sorted(syncs) == sorted(closed)
    for times in syncs.values():
        assert all(b - a >= SYNC_SPACING for a, b in itertools.pairwise(times))
    assert requests > 10 * sum(len(times) for times in syncs.values())


async def test_a_connected_peer_that_withholds_a_message_is_taken_over(
    tmp_path: Path, autojump_clock: trio.abc.Clock
) -> None:
    """A peer that stays connected but never sends its deal keys stalls the game: past the
    timeout every other peer votes, and they take its seat over and finish, one log."""
    table = Table(Rules(players=4, target=20), seed=3)
    links = mesh([i.public_key for i in table.ids])
    links[2].withhold = "deal"
    with trio.fail_after(1000):
        await run_table(tmp_path, table, timeout=120, links=links)
    alive = [p for i, p in enumerate(table.protos) if i != 2]
    assert all(p.status is Status.FINISHED and p.table_seats == {2} for p in alive)
    assert len({(tmp_path / f"p{i}.log").read_bytes() for i in (0, 1, 3)}) == 1


async def test_a_peer_killed_for_good_is_taken_over(
    tmp_path: Path, autojump_clock: trio.abc.Clock
) -> None:
    """A peer that dies (its links cut) at the pass: the others' clocks run out on it, as gone
    and as holding up the step, and they take its seat over and finish, one log."""
    table = Table(Rules(players=4, target=20), seed=3)
    links = mesh([i.public_key for i in table.ids])
    links[2].withhold = "pass_reveal"
    links[2].dies = True
    with trio.fail_after(1000):
        await run_table(tmp_path, table, timeout=3, links=links)
    alive = [p for i, p in enumerate(table.protos) if i != 2]
    assert all(p.status is Status.FINISHED and p.table_seats == {2} for p in alive), [
        (p.status, p.abort) for p in alive
    ]
    assert len({(tmp_path / f"p{i}.log").read_bytes() for i in (0, 1, 3)}) == 1


async def test_a_link_cut_between_two_players_names_neither(
    tmp_path: Path, autojump_clock: trio.abc.Clock
) -> None:
    """p1 and p2 lose their link for good while both stay linked to the others, who relay
    each one's messages to the other: a player whose new messages keep coming is there, so
    neither votes the other out, and the game finishes with one log and no seat taken over."""
    table = Table(Rules(players=4, target=20), seed=3)
    keys = [i.public_key for i in table.ids]
    links = mesh(keys)
    links[0]._cut.add(frozenset((keys[1], keys[2])))
    with trio.fail_after(100_000):
        statuses = await run_table(tmp_path, table, timeout=4, links=links, thinking=1.0)
    assert statuses == [Status.FINISHED] * 4, [p.abort for p in table.protos]
    assert all(not p.table_seats for p in table.protos)
    assert len({(tmp_path / f"p{i}.log").read_bytes() for i in range(4)}) == 1


async def test_a_connected_peer_that_holds_up_a_decision_is_taken_over(
    tmp_path: Path, autojump_clock: trio.abc.Clock
) -> None:
    """A peer that stays connected but never sends a play of its own holds up a decision:
    past the timeout the others take its seat over, the table plays that card, and the game
    finishes."""
    rehearsal = Table(Rules(players=4, target=20), seed=3)
    rehearsal.run()
    plays = [decode_frame(e).envelope for e in rehearsal.protos[0].entries]
    step = next(e.step for e in plays if e.kind == "play" and e.sender == 2 and e.seq > 20)
    table = Table(Rules(players=4, target=20), seed=3)
    links = mesh([i.public_key for i in table.ids])
    links[2].withhold = step
    with trio.fail_after(1000):
        await run_table(tmp_path, table, timeout=120, links=links)
    for i, p in enumerate(table.protos):
        if i != 2:
            assert p.status is Status.FINISHED and p.table_seats == {2}, p.abort


class Absent:
    """A person who never answers: the node's move clock must play for it."""

    def __init__(self) -> None:
        self.notices: list[str] = []

    async def choose(self, view: object) -> Action:
        await trio.sleep_forever()
        raise AssertionError("unreachable")

    async def notify(self, event: object) -> None:
        if isinstance(event, Notice):
            self.notices.append(event.text)


async def test_the_computer_plays_for_a_person_who_does_not_decide(
    tmp_path: Path, autojump_clock: trio.abc.Clock
) -> None:
    """A person who walks away is warned, then played for at the move clock (three quarters of
    the timeout), so the table never waits the timeout on an honest node: the game finishes."""
    table = Table(Rules(players=4, target=10), seed=2)
    keys = [i.public_key for i in table.ids]
    links = mesh(keys)
    absent = Absent()
    statuses: list[Status] = []

    async def one(i: int, proto: GameProtocol) -> None:
        seat: FrontEnd = absent if i == 1 else BotSeat(make_bot("heuristic", i))
        config = RunnerConfig(absent_timeout=120, linger=0.5)
        log, secrets = GameLog.open(tmp_path / f"p{i}.log"), SecretStore(tmp_path / f"p{i}.s")
        statuses.append(await GameRunner(proto, links[i], seat, log, secrets, config).run())

    with trio.fail_after(100_000):
        async with trio.open_nursery() as nursery:
            table.protos[0].propose(table.genesis)
            for i, proto in enumerate(table.protos):
                nursery.start_soon(one, i, proto)
    assert statuses == [Status.FINISHED] * 4
    assert any("20 s left to decide" in n for n in absent.notices)
    assert any("no move in 90 s: the computer plays" in n for n in absent.notices)


async def test_a_sit_the_busy_game_could_not_check_in_time_is_never_taken_behind_the_answer(
    tmp_path: Path, autojump_clock: trio.abc.Clock
) -> None:
    """The game task is busy past the answer's bound: the node answers "not taken", and the
    job, when its turn comes, leaves the sit alone: a newcomer told no is never seated behind
    that answer (it would not be at the table for its hand)."""
    from .test_sitting import newcomer

    _, raw = newcomer()
    table = Table(Rules(players=4, target=20), seed=2)
    keys = [i.public_key for i in table.ids]
    proto = table.protos[0]
    received: list[object] = []
    proto.receive = received.append  # type: ignore[method-assign]
    runner = GameRunner(proto, mesh(keys)[0], BotSeat(make_bot("heuristic", 0)),
                        GameLog.open(tmp_path / "p0.log"), SecretStore(tmp_path / "p0.s"),
                        RunnerConfig(sit_answer_within=3.0))  # fmt: skip
    start = trio.current_time()
    assert await runner.take_sit(raw) is False
    assert 3.0 <= trio.current_time() - start < 3.5
    job = runner._queue.receive_nowait()  # the game task comes to it now
    await job()
    assert received == []


async def test_a_connected_lead_card_holder_that_never_leads_is_taken_over(
    tmp_path: Path, autojump_clock: trio.abc.Clock
) -> None:
    """The holder of 2♣ stays connected (its kernel answers keepalives: a frozen process) and
    never leads. No peer knows who holds the card, so each other seat's clock runs out and it
    says the card is not its (``nolead``); the one left is the holder, whom the clocks then name
    and the table takes over, leading 2♣ for it: one log, valid in the audit, naming no one."""
    from .test_rollcall import RULES, SEED, leader

    lead = leader()
    table = Table(RULES, seed=SEED)
    links = mesh([i.public_key for i in table.ids])
    links[lead].withhold = "play.0"
    with trio.fail_after(3000):
        await run_table(tmp_path, table, timeout=5, links=links)
    alive = [p for i, p in enumerate(table.protos) if i != lead]
    assert all(p.status is Status.FINISHED and p.table_seats == {lead} for p in alive)
    logs = {(tmp_path / f"p{i}.log").read_bytes() for i in range(4) if i != lead}
    assert len(logs) == 1
    report = audit_log(tmp_path / f"p{(lead + 1) % 4}.log")
    assert report.valid and report.abort is None, report.problems
    (taken,) = report.takeovers
    assert (taken.ending, taken.hand) == ("stalled", 1)
    entries = read_log(tmp_path / f"p{(lead + 1) % 4}.log").entries
    assert all(decode_frame(e).envelope.kind != "nolead" for e in entries)  # outside the log


class Liar(MemoryLinks):
    """The holder's end: its lead of 2\u2663 goes out as a ``nolead``, and nothing signed after."""

    def __init__(self, links: MemoryLinks, identity: Identity) -> None:
        super().__init__(links.me, [links.me, *links.peers], links._boxes, links._dead)
        self.identity = identity
        self.lied = False

    async def send(self, peer: bytes, payload: bytes) -> None:
        frame = decode_peer_frame(payload)
        if isinstance(frame, SignedMessage) and frame.envelope.step == "play.0":
            nolead = replace(frame.envelope, step="nolead", kind="nolead", body={})
            payload = encode_message(self.identity, nolead).raw
            await self._boxes[(self.me, peer)][0].send(payload)  # type: ignore[index]
            self.lied = self._withholding = True
            return
        await super().send(peer, payload)


class LyingTable(Table):
    """The rules and seed of ``test_rollcall``, its lead card's holder a ``Liar``."""

    def __init__(self) -> None:
        from .test_rollcall import RULES, SEED, leader

        super().__init__(RULES, seed=SEED)
        self.lead = leader()
        self.links = mesh([i.public_key for i in self.ids])
        self.liar = Liar(self.links[self.lead], self.ids[self.lead])
        self.links[self.lead] = self.liar


def lying_table() -> tuple[int, int, LyingTable]:
    """The liar, the honest peer after it (whose clock a test makes late), and the table."""
    table = LyingTable()
    return table.lead, (table.lead + 1) % 4, table


async def test_a_peer_whose_clock_started_again_on_the_others_noleads_still_says_its_own_in_time(
    tmp_path: Path, autojump_clock: trio.abc.Clock
) -> None:
    """The holder of 2\u2663 says ``nolead`` in place of its lead, at once, and signs nothing
    after. One honest peer's clock is a little longer than the others': their noleads reach it
    before its clock runs out. Counted from the last change it saw, its clock would run a whole
    timeout again, and theirs, which then await it alone, would name it first: voted out with
    the liar, the hand voided, the liar never named. Counted from the step's start, it says its
    own in time: every player has said it, the hand stops, and the reveals name the liar."""

    lead, late, table = lying_table()
    with trio.fail_after(3000):
        await run_table(tmp_path, table, timeout=5, links=table.links, timeouts={late: 7})
    assert table.liar.lied
    alive = [p for i, p in enumerate(table.protos) if i != lead]
    for p in alive:
        assert p.abort is not None and p.abort.culprit == lead, p.abort
        assert "held it" in p.abort.reason, p.abort
    assert len({(tmp_path / f"p{i}.log").read_bytes() for i in range(4) if i != lead}) == 1


async def test_a_peer_that_says_its_nolead_after_it_is_voted_on_waits_for_the_round(
    tmp_path: Path, autojump_clock: trio.abc.Clock
) -> None:
    """As above, but the honest peer's clock is so long that the others, awaiting it alone,
    vote on it before it says ``nolead``: they take its word then only as a vote's evidence.
    It must not complete the step on its own word meanwhile (it once did, went on to the next
    hand, and named an honest voter for reusing a number its ``nolead`` had used up only at
    that peer): it waits for the round, as they do. The liar never votes, so the voters take
    both seats as lost and void the hand (SPEC 6.14); every honest peer finishes the game alike,
    naming no one."""
    lead, late, table = lying_table()
    with trio.fail_after(3000):
        statuses = await run_table(
            tmp_path, table, timeout=5, links=table.links, timeouts={late: 12}, hostile=lead
        )
    assert table.liar.lied
    assert statuses == [Status.FINISHED] * 3, [p.abort for p in table.protos]
    logs = {(tmp_path / f"p{i}.log").read_bytes() for i in range(4) if i != lead}
    assert len(logs) == 1
    report = audit_log(tmp_path / f"p{late}.log")
    assert report.valid and report.abort is None, report.problems
    (void,) = report.voids
    assert sorted(void.names) == sorted([f"p{lead}", f"p{late}"]), void


async def test_a_peer_whose_clock_runs_out_last_on_a_silent_lead_says_nolead_before_naming(
    tmp_path: Path, autojump_clock: trio.abc.Clock
) -> None:
    """The holder of 2♣ never leads, and one honest peer has a longer timeout than the others:
    by the time its clock runs out the two others have said the card is not theirs, so the
    holder is the only other player it waits on. It still says ``nolead`` for its own seat
    before it names anyone, or the others, still waiting on it, would never join its vote, and
    its clock would go on to name one of them (an honest player) for not voting."""
    from .test_rollcall import RULES, SEED, leader

    lead = leader()
    late = (lead + 1) % 4
    table = Table(RULES, seed=SEED)
    links = mesh([i.public_key for i in table.ids])
    links[lead].withhold = "play.0"
    with trio.fail_after(3000):
        await run_table(tmp_path, table, timeout=5, links=links, timeouts={late: 9})
    alive = [p for i, p in enumerate(table.protos) if i != lead]
    for p in alive:
        assert p.status is Status.FINISHED and p.table_seats == {lead}, p.abort
    assert len({(tmp_path / f"p{i}.log").read_bytes() for i in range(4) if i != lead}) == 1
    report = audit_log(tmp_path / f"p{late}.log")
    assert report.valid and report.abort is None, report.problems
    assert [(t.name, t.ending) for t in report.takeovers] == [(f"p{lead}", "stalled")]
