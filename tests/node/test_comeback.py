"""Coming back, in memory: a peer dies, the table takes its seat over, and the peer reruns from
its own log. It learns it was taken over, follows the game signing nothing, and takes its seat
back at the next hand boundary with a fresh secret; every log, the returned player's included,
is the same and valid in the audit."""

from __future__ import annotations

from collections import deque
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

import hearts_p2p.game.protocol as protocol
import hearts_p2p.game.reclaim as reclaim
import hearts_p2p.game.rekey as rekey
from hearts_p2p.audit import AuditReport
from hearts_p2p.game import (
    GameEvent,
    GameProtocol,
    ReclaimRefused,
    SeatReclaimed,
    SeatTakenOver,
    Status,
    Termination,
)
from hearts_p2p.game.keys import pass_public_key
from hearts_p2p.identity import Identity
from hearts_p2p.rules import Rules
from hearts_p2p.wire import PROTOCOL_VERSION, Envelope, SignedMessage, decode_frame, encode_message

from .table import GAME_ID, TEST_PROOF_ROUNDS
from .test_takeover import TIMEOUT, DyingTable, audit

GAME = Rules(target=40)
FRESH = bytes([77]) * 32


class ComebackTable(DyingTable):
    """A table where player ``dead`` dies at ``hand``'s ``step`` and, once the others play
    its seat and have reached hand ``rerun``, reruns from the log it had when it died: caught
    up in log order by one peer, as a sync does, then on the live links. ``fresh`` is given to
    it as the shell does, when it asks for a secret to come back with (None: it only
    follows)."""

    def __init__(
        self,
        dead: int,
        hand: int,
        step: str,
        rerun: int,
        fresh: bytes | None = FRESH,
        rules: Rules = GAME,
    ) -> None:
        super().__init__(rules, dead=dead, hand=hand, step=step, seed=3)
        self.rerun = rerun
        self.fresh = fresh
        self.own_log: list[bytes] | None = None
        self.reborn: GameProtocol | None = None
        self.events: dict[int, list[GameEvent]] = {i: [] for i in range(4)}
        self.sent: list[SignedMessage] = []  # everything sent, as sent
        self.asked = 0
        self.choose = self._maybe_rerun

    def _send(self, i: int, p: GameProtocol) -> None:
        if i == self.dead and (p.step.hand, p.step.name) == self.when:
            self.died = True  # the table reached the step: it dies before its part of it
        if i == self.dead and self.died and self.own_log is None:
            self.own_log = list(p.entries)  # what it had on disk when it died
        if i == self.dead and self.died and self.reborn is None:
            self.drain(i, p)
            p.take_relays()
            return
        if p.wants_secret and self.fresh is not None:
            self.asked += 1  # a fresh secret each time, as the shell draws one
            p.come_back(self.fresh[:-1] + bytes([self.asked]))
        out, _, events = self.drain(i, p)
        self.events[i] += events
        out = [m for m in (self.tamper(i, m) for m in out) if m is not None]
        self.sent += out
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

    def tampering(self, change: Any) -> None:
        """Let ``change(i, msg)`` rewrite what player ``i`` sends, once the dead one is back."""
        die = self.tamper

        def both(i: int, msg: SignedMessage) -> SignedMessage | None:
            kept = die(i, msg) if die is not None else msg
            return change(i, kept) if kept is not None else None

        self.tamper = both

    def _maybe_rerun(self, i: int, p: GameProtocol) -> bool:
        if self.reborn is not None or i == self.dead or self.dead not in p.table_seats:
            return False
        if p.game is None or p.game.number < self.rerun:
            return False
        assert self.own_log is not None
        old = self.protos[self.dead]
        me = self.ids[self.dead]
        reborn = GameProtocol(
            GAME_ID,
            self.ids[0].public_key,
            me,
            bytes([self.dead + 9]) * 32,
            choices=old.choices,
            min_proof_rounds=TEST_PROOF_ROUNDS,
        )
        reborn.resume(self.own_log)
        self.reborn = self.protos[self.dead] = reborn
        for link in [k for k in self.links if k[1] == self.dead]:
            del self.links[link]
        sync = [decode_frame(raw) for raw in p.entries] + p.pending()
        self.links[(i, self.dead)] = deque(sync)
        return True


def events_of(table: ComebackTable, kind: type) -> list[object]:
    return [e for e in table.events[table.dead] if isinstance(e, kind)]


def survivors_finish_alike(table: ComebackTable, tmp_path: Path) -> AuditReport:
    """Players 0, 1 and 3 finish with seat 2 the table's, one log, which audits valid."""
    alive = [table.protos[i] for i in (0, 1, 3)]
    for p in alive:
        assert p.status is Status.FINISHED and p.table_seats == {2}, (p.step, p.abort)
    assert len({tuple(p.entries) for p in alive}) == 1
    report = audit(tmp_path, alive[0].entries)
    assert isinstance(report, AuditReport) and report.valid, report.problems
    return report


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
    # Restarted from its log, it re-derives its return and its fresh keys from its choices.
    again = GameProtocol(
        GAME_ID,
        table.ids[0].public_key,
        table.ids[2],
        bytes([11]) * 32,
        choices=table.reborn.choices,
        min_proof_rounds=TEST_PROOF_ROUNDS,
    )
    again.resume(table.reborn.entries)
    assert again.status is Status.FINISHED and again.head == everyone[0].head


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


def signed_as(identity: Identity, msg: SignedMessage, **changes: Any) -> SignedMessage:
    """``msg`` with its envelope changed, signed by ``identity``."""
    return encode_message(identity, replace(msg.envelope, **changes))


def reclaims(table: ComebackTable) -> list[SignedMessage]:
    return [m for m in table.sent if m.envelope.kind == "reclaim"]


def logged(p: GameProtocol) -> list[Any]:
    return [decode_frame(raw).envelope for raw in p.entries]


def test_a_reclaim_sent_mid_hand_takes_effect_only_at_the_boundary() -> None:
    """It is signed at once, in hand 2, for hand 3: the table plays the seat to the end of
    hand 2, and the player, back, knows no card of that hand but its own seat's, open to all."""
    table = ComebackTable(dead=2, hand=1, step="play.9", rerun=2)
    back_at: list[int] = []

    def watch(i: int, msg: SignedMessage) -> SignedMessage:
        if i == 2 and msg.envelope.kind == "seats":
            raise AssertionError("a seat the table plays has no part in the seats step")
        return msg

    table.tampering(watch)
    table.play()
    # Caught up from the log, it asked for each coming hand it passed; the one for hand 3,
    # signed during hand 2, is the one that counted.
    assert {m.envelope.hand for m in reclaims(table)} <= {2, 3}
    assert any(m.envelope.hand == 3 and m.envelope.sender == 2 for m in reclaims(table))
    entries = logged(table.protos[0])
    start = next(k for k, e in enumerate(entries) if e.kind == "recover")
    seats = next(k for k, e in enumerate(entries) if e.kind == "seats" and e.hand == 3)
    assert all(e.sender != 2 for e in entries[start:seats])  # nothing of its own in between
    assert entries[seats - 1].kind == "reveal" and entries[seats - 1].hand == 2
    back_at += [e.hand for e in entries[seats:] if e.sender == 2 and e.kind == "shuffle"]
    assert min(back_at) == 3  # the deck shuffled for it during hand 2 is set aside


def test_a_seat_is_back_though_one_present_peer_carries_no_reclaim(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Consent is evidence: one peer keeping the reclaim to itself changes nothing."""
    send = reclaim._send_seats

    def withhold(s: Any) -> dict[str, Any]:
        body = send(s)
        return {**body, "reclaims": []} if s.me == 0 else body

    seats = reclaim.StepKind.SEATS
    rule = replace(protocol.RULES[seats], send=withhold)
    monkeypatch.setattr(protocol, "RULES", MappingProxyType({**protocol.RULES, seats: rule}))
    table = ComebackTable(dead=2, hand=1, step="play.9", rerun=2)
    table.play()
    assert all(p.status is Status.FINISHED and not p.table_seats for p in table.protos)
    assert len({tuple(p.entries) for p in table.protos}) == 1
    assert [e.hand for e in events_of(table, SeatReclaimed)] == [3]  # type: ignore[attr-defined]
    seats = [decode_frame(raw).envelope for raw in table.protos[0].entries]
    assert any(e.kind == "seats" and e.sender == 0 and not e.body["reclaims"] for e in seats)


def test_a_box_said_bad_keeps_the_seat_the_tables_for_that_hand_naming_who_said_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    bad_boxes = rekey._bad_boxes

    def lie(s: Any, r: Any) -> list[int]:
        honest = bad_boxes(s, r)
        return [2] if s.me == 0 and s.step.hand == 3 else honest

    monkeypatch.setattr(rekey, "_bad_boxes", lie)
    table = ComebackTable(dead=2, hand=1, step="play.9", rerun=2)
    table.play()
    assert all(p.status is Status.FINISHED and not p.table_seats for p in table.protos)
    assert len({tuple(p.entries) for p in table.protos}) == 1
    (refused,) = events_of(table, ReclaimRefused)
    assert isinstance(refused, ReclaimRefused) and refused.hand == 3
    assert refused.by == (table.protos[1].seat_of[0],)
    assert [e.hand for e in events_of(table, SeatReclaimed)] == [4]  # type: ignore[attr-defined]
    report = audit(tmp_path, table.protos[1].entries)
    assert isinstance(report, AuditReport) and report.valid, report.problems
    assert [(r.hand, bool(r.refused_by)) for r in report.returns] == [(3, True), (4, False)]


def forged_reclaim(p: GameProtocol, player: int, signer: Identity) -> SignedMessage:
    """A well-formed reclaim for ``player``'s seat at the coming hand, signed by ``signer``."""
    s = p._s
    body = {"dh": pass_public_key(FRESH)}
    seq = s.next_seq.get(player, 0) + 1
    env = Envelope(PROTOCOL_VERSION, GAME_ID, reclaim.next_hand(s), "reclaim", player, seq,
                   s.step.prev, "reclaim", body)  # fmt: skip
    return encode_message(signer, env)


@pytest.mark.parametrize("signer", [0, None])
def test_a_reclaim_signed_by_another_key_takes_no_seat(signer: int | None, tmp_path: Path) -> None:
    """Player 0 signs a reclaim in player 2's name: its own signature proves it and every
    honest peer names it. One signed by a key outside the roster is dropped: the table plays
    the seat to the end."""
    table = ComebackTable(dead=2, hand=1, step="play.9", rerun=99, fresh=None)
    key = table.ids[0] if signer == 0 else Identity.from_seed(bytes([99]) * 32)
    sent: list[SignedMessage] = []

    def forge(i: int, p: GameProtocol) -> bool:
        if sent or i != 0 or 2 not in p.table_seats or p.step.hand < 2:
            return False
        sent.append(forged_reclaim(p, 2, key))
        table.queue += [(j, sent[0]) for j in range(4)]
        return True

    table.choose = forge
    table.play()
    honest = [table.protos[1], table.protos[3]]
    assert honest[0].entries == honest[1].entries
    report = audit(tmp_path, honest[0].entries)
    assert isinstance(report, AuditReport) and report.valid, report.problems
    assert not report.returns
    for p in honest:
        if signer == 0:
            assert p.status is Status.ABORTED and p.abort is not None, (p.step, p.abort)
            assert p.abort.termination is Termination.CHEAT_PROVEN and p.abort.culprit == 0
        else:
            assert p.status is Status.FINISHED and p.table_seats == {2}
    if signer == 0:
        assert report.abort is not None and (report.abort.blamed or "").endswith("(p0)")


def test_a_player_back_that_leaves_again_is_taken_over_with_its_new_escrow(
    tmp_path: Path,
) -> None:
    table = ComebackTable(dead=2, hand=1, step="play.9", rerun=2)
    rerun = table._maybe_rerun

    def leave_again(i: int, p: GameProtocol) -> bool:
        again = i == 2 and p is table.reborn and (p.step.hand, p.step.name) == (3, "play.7")
        if again and p.status is Status.RUNNING and not p.taken_over:
            p.quit("p2")
            return True
        return rerun(i, p)

    table.choose = leave_again
    table.play()
    report = survivors_finish_alike(table, tmp_path)
    assert [(t.hand, t.ending) for t in report.takeovers] == [(1, "gone"), (3, "left")]


def test_a_replayed_reclaim_is_its_carriers_proven_cheat(tmp_path: Path) -> None:
    """Player 2 came back at hand 2 and left again; at the next boundary player 0 carries the
    reclaim of hand 2 once more: not valid for hand 3, which every peer sees alike."""
    table = ComebackTable(dead=2, hand=1, step="play.9", rerun=1)
    rerun = table._maybe_rerun

    def back_once(i: int, p: GameProtocol) -> bool:
        if table.reborn is None:
            return rerun(i, p)
        again = i == 2 and (p.step.hand, p.step.name) == (2, "play.7")
        if again and p.status is Status.RUNNING and not p.taken_over:
            p.quit("p2")
            return True
        return False

    def replay(i: int, msg: SignedMessage) -> SignedMessage:
        env = msg.envelope
        if i == 0 and env.kind == "seats" and env.hand == 3:
            (old,) = [m.raw for m in reclaims(table) if m.envelope.hand == 2]
            return signed_as(table.ids[0], msg, body={**env.body, "reclaims": [old]})
        return msg

    table.choose = back_once
    table.tampering(replay)
    table.play()
    honest = [table.protos[1], table.protos[3]]
    for p in honest:
        assert p.status is Status.ABORTED and p.abort is not None, (p.step, p.abort)
        assert p.abort.culprit == 0 and "not valid for this hand" in p.abort.reason
    assert honest[0].entries == honest[1].entries
    report = audit(tmp_path, honest[0].entries)
    assert isinstance(report, AuditReport) and report.valid, report.problems


def silent_in_seats() -> ComebackTable:
    """Player 2 is taken over at play.9 and comes back; player 3 goes silent in the ``seats``
    step that carries the reclaim, and players 0 and 1's clocks run out on it there."""
    table = ComebackTable(dead=2, hand=1, step="play.9", rerun=1)
    rerun = table._maybe_rerun
    stalled: list[bool] = []

    def stall(i: int, msg: SignedMessage) -> SignedMessage | None:
        if i == 3 and msg.envelope.kind == "seats":
            stalled.append(True)
        return None if i == 3 and stalled else msg

    def clocks(i: int, p: GameProtocol) -> bool:
        if rerun(i, p):
            return True
        if i in (0, 1) and stalled and p.status is Status.RUNNING and 3 in p.waiting_for():
            p.give_up_on(3, TIMEOUT)
            return True
        return False

    table.tampering(stall)
    table.choose = clocks
    return table


def test_a_seat_comes_back_while_another_is_taken_over_at_the_same_boundary(
    tmp_path: Path,
) -> None:
    """Player 3 goes silent in the very ``seats`` step that carries player 2's reclaim: the
    others take 3 over in that step (the table carries nothing for it) and welcome 2 back."""
    table = silent_in_seats()
    table.play()
    everyone = table.protos
    for p in everyone:
        assert p.status is Status.FINISHED and p.table_seats == {3}, (p.step, p.abort)
    assert len({tuple(p.entries) for p in everyone}) == 1  # the silent one follows too
    report = audit(tmp_path, everyone[0].entries)
    assert isinstance(report, AuditReport) and report.valid, report.problems
    assert [(t.name, t.hand) for t in report.takeovers] == [("p2", 1), ("p3", 2)]
    assert [(r.name, r.hand) for r in report.returns] == [("p2", 2)]


def test_a_seat_that_stalls_after_each_return_stays_the_tables_after_two(tmp_path: Path) -> None:
    """Each return of a peer that stalls again costs the table a timeout: a seat comes back at
    most twice a game, then its reclaims are not valid and the table keeps it."""
    table = ComebackTable(dead=2, hand=1, step="play.9", rerun=1, rules=Rules(target=60))
    rerun = table._maybe_rerun
    silent: list[int] = []  # the hands in which the returned peer went silent again

    def stall(i: int, msg: SignedMessage) -> SignedMessage | None:
        reborn = table.reborn
        quiet = reborn is not None and bool(silent) and not reborn.taken_over
        return None if i == 2 and quiet and msg.envelope.kind != "reclaim" else msg

    def clocks(i: int, p: GameProtocol) -> bool:
        if rerun(i, p):
            return True
        reborn = table.reborn
        if reborn is None or reborn.taken_over:
            if silent and reborn is not None:
                silent.clear()  # taken over again: it speaks (it only asks back) once more
            return False
        if i == 2 and p.step.name == "play.7" and p.step.hand not in silent:
            silent.append(p.step.hand)
        if i != 2 and silent and p.status is Status.RUNNING and 2 in p.waiting_for():
            p.give_up_on(2, TIMEOUT)
            return True
        return False

    table.tampering(stall)
    table.choose = clocks
    table.play()
    report = survivors_finish_alike(table, tmp_path)
    assert len(report.returns) == reclaim.MAX_RETURNS == 2
    assert len(report.takeovers) == 3
    # The game goes on past the hand of the third takeover: a boundary the seat stays the table's.
    assert len(report.hands) > report.takeovers[-1].hand
