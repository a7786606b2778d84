"""Coming back, in memory: a peer dies, the table takes its seat over, and the peer reruns from
its own log. It learns it was taken over, follows the game signing nothing, and takes its seat
back at the next hand boundary with a fresh secret; every log, the returned player's included,
is the same and valid in the audit."""

from __future__ import annotations

from collections import deque
from pathlib import Path

from hearts_p2p.audit import AuditReport
from hearts_p2p.game import (
    GameEvent,
    GameProtocol,
    ReclaimRefused,
    SeatReclaimed,
    SeatTakenOver,
    Status,
)
from hearts_p2p.rules import Rules
from hearts_p2p.wire import SignedMessage, decode_frame

from .table import GAME_ID
from .test_takeover import DyingTable, audit

GAME = Rules(target=40)
FRESH = bytes([77]) * 32


class ComebackTable(DyingTable):
    """A table where player ``dead`` dies at ``hand``'s ``step`` and, once the others play
    its seat and have reached hand ``rerun``, reruns from the log it had when it died: caught
    up in log order by one peer, as a sync does, then on the live links. ``fresh`` is given to
    it as the shell does, when it asks for a secret to come back with (None: it only
    follows)."""

    def __init__(
        self, dead: int, hand: int, step: str, rerun: int, fresh: bytes | None = FRESH
    ) -> None:
        super().__init__(GAME, dead=dead, hand=hand, step=step, seed=3)
        self.rerun = rerun
        self.fresh = fresh
        self.own_log: list[bytes] | None = None
        self.reborn: GameProtocol | None = None
        self.events: dict[int, list[GameEvent]] = {i: [] for i in range(4)}
        self.choose = self._maybe_rerun

    def _send(self, i: int, p: GameProtocol) -> None:
        if i == self.dead and (p.step.hand, p.step.name) == self.when:
            self.died = True  # the table reached the step: it dies before its part of it
        if i == self.dead and self.died and self.own_log is None:
            self.own_log = list(p.entries)  # what it had on disk when it died
        if i == self.dead and self.died and self.reborn is None:
            p.drain()
            p.take_relays()
            return
        if p.wants_secret and self.fresh is not None:
            p.come_back(self.fresh)
        out, _, events = p.drain()
        self.events[i] += events
        n = len(self.protos)
        for m in p.take_relays():
            for j in range(n):
                if j not in (i, m.envelope.sender):
                    self.links.setdefault((i, j), deque()).append(m)
        for m in out:
            for j in range(n):
                if j != i:
                    self.links.setdefault((i, j), deque()).append(m)

    def _die(self, i: int, msg: SignedMessage) -> SignedMessage | None:
        return msg if self.reborn is not None else super()._die(i, msg)

    def _maybe_rerun(self, i: int, p: GameProtocol) -> bool:
        if self.reborn is not None or i == self.dead or self.dead not in p.table_seats:
            return False
        if p.game is None or p.game.number < self.rerun:
            return False
        assert self.own_log is not None
        old = self.protos[self.dead]
        me = self.ids[self.dead]
        reborn = GameProtocol(GAME_ID, self.ids[0].public_key, me, bytes([self.dead + 9]) * 32,
                              choices=old.choices)  # fmt: skip
        reborn.resume(self.own_log)
        self.reborn = self.protos[self.dead] = reborn
        for link in [k for k in self.links if k[1] == self.dead]:
            del self.links[link]
        sync = [decode_frame(raw) for raw in p.entries] + p.pending()
        self.links[(i, self.dead)] = deque(sync)
        return True


def events_of(table: ComebackTable, kind: type) -> list[object]:
    return [e for e in table.events[table.dead] if isinstance(e, kind)]


def test_a_rerun_follows_its_seat_then_takes_it_back_at_the_next_hand(tmp_path: Path) -> None:
    table = ComebackTable(dead=2, hand=1, step="play.9", rerun=2)
    table.play()
    assert table.reborn is not None
    everyone = table.protos
    for p in everyone:
        assert p.status is Status.FINISHED, (p.step, p.abort)
        assert not p.table_seats
    assert len({tuple(p.entries) for p in everyone}) == 1  # the returned player's log too
    (taken,) = events_of(table, SeatTakenOver)
    assert isinstance(taken, SeatTakenOver)
    seat = table.reborn.my_seat
    assert taken.seat == seat and taken.hand == 1 and taken.trick == 3
    (back,) = events_of(table, SeatReclaimed)
    assert isinstance(back, SeatReclaimed) and back.seat == seat and back.hand == 3
    report = audit(tmp_path, everyone[0].entries)
    assert isinstance(report, AuditReport)
    assert report.valid, report.problems
    assert [(t.name, t.hand) for t in report.takeovers] == [("p2", 1)]
    assert [(r.name, r.hand, r.refused_by) for r in report.returns] == [("p2", 3, ())]
    # It played as a person again: its own signed plays are in the last hands.
    last = [decode_frame(raw).envelope for raw in everyone[0].entries[-60:]]
    assert any(e.sender == 2 and e.kind == "play" for e in last)


def test_a_rerun_that_does_not_ask_back_follows_to_the_end_signing_nothing(
    tmp_path: Path,
) -> None:
    table = ComebackTable(dead=1, hand=2, step="shuffle.1", rerun=3, fresh=None)
    table.play()
    assert table.reborn is not None and table.own_log is not None
    for p in table.protos:
        assert p.status is Status.FINISHED and p.table_seats == {1}, (p.step, p.abort)
    assert len({tuple(p.entries) for p in table.protos}) == 1
    after = table.protos[0].entries[len(table.own_log) :]
    assert all(decode_frame(raw).envelope.sender != 1 for raw in after)
    assert not events_of(table, SeatReclaimed) and not events_of(table, ReclaimRefused)
    report = audit(tmp_path, table.reborn.entries)
    assert isinstance(report, AuditReport) and report.valid, report.problems
