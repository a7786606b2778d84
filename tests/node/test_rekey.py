"""Every seated player re-keys at a return: after a seat comes back, no group smaller than all
the other seated players recovers a seated player's secret, and a return that cannot re-key
everyone leaves the seat the table's, nobody's keys changed."""

from __future__ import annotations

from itertools import combinations
from pathlib import Path
from typing import Any

import pytest

import hearts_p2p.game.rekey as rekey
from hearts_p2p.audit import AuditReport
from hearts_p2p.game import GameProtocol, ReclaimRefused, SeatReclaimed, Status
from hearts_p2p.game.escrow import EscrowEntry, open_entry, recover
from hearts_p2p.game.keys import derive, pass_key, pass_public_key
from hearts_p2p.rules import Rules
from hearts_p2p.wire import SignedMessage, decode_frame

from .table import GAME_ID, TEST_PROOF_ROUNDS
from .test_comeback import ComebackTable, events_of, signed_as, silent_in_seats
from .test_takeover import TIMEOUT, audit

PLAYERS = 4


def envelopes(p: GameProtocol) -> list[Any]:
    return [decode_frame(raw).envelope for raw in p.entries]


def public_secrets(p: GameProtocol) -> list[bytes]:
    """Every secret the log makes public: each takeover's shares, XORed."""
    rounds: dict[tuple[int, bytes], list[bytes]] = {}
    for env in envelopes(p):
        if env.kind == "recover":
            rounds.setdefault((env.body["player"], env.prev), []).append(env.body["share"])
    return [recover(shares) for shares in rounds.values() if len(shares) == p.players - 1]


def known_secrets(table: ComebackTable, colluders: tuple[int, ...]) -> list[bytes]:
    """All the colluders know: their own secrets (first, fresh to come back with, derived at
    each boundary from their identity keys) and every secret the log makes public."""
    pool = public_secrets(table.protos[0])
    hands = max(e.hand for e in envelopes(table.protos[0]))
    for c in colluders:
        pool.append(bytes([c + 9]) * 32)
        pool += [b for b in table.protos[c].choices.get("reclaim", []) if isinstance(b, bytes)]
        own = table.ids[c].private_bytes()
        pool += [derive(own, f"rekey {GAME_ID.hex()} {h}") for h in range(1, hands + 1)]
    return pool


def try_recover(escrow: dict[int, EscrowEntry], target: int, pool: list[bytes]) -> bytes | None:
    """The target's secret, if every box of its escrow opens with a secret in ``pool``."""
    shares = []
    for holder, entry in sorted(escrow.items()):
        opened = (
            open_entry(entry, GAME_ID, target, holder, pass_key(k), pass_public_key(k))
            for k in pool
        )
        share = next((x for x in opened if x is not None), None)
        if share is None:
            return None
        shares.append(share)
    return recover(shares)


def genesis_escrow(p: GameProtocol, target: int) -> dict[int, EscrowEntry]:
    (accept,) = [e for e in envelopes(p) if e.kind == "accept" and e.sender == target]
    holders = [h for h in range(p.players) if h != target]
    entries = [EscrowEntry.from_wire(item) for item in accept.body["escrow"]]
    return {h: e for h, e in zip(holders, entries, strict=True) if e is not None}


def returned_table(players: int = PLAYERS) -> ComebackTable:
    table = ComebackTable(dead=2, hand=1, step="play.9", rerun=2, rules=Rules(players, target=40))
    table.play()
    assert all(p.status is Status.FINISHED and not p.table_seats for p in table.protos)
    assert [e.hand for e in events_of(table, SeatReclaimed)] == [3]  # type: ignore[attr-defined]
    return table


@pytest.mark.parametrize("players", [3, 4])
def test_after_a_return_no_n_minus_2_players_recover_a_seated_players_secret(
    players: int,
) -> None:
    """Player 2 taken over in hand 1 and back from hand 3. Any N−2 players (a single one at 3
    seats) pool everything they hold and everything public: no seated player's escrow opens
    for them. The same attack opens the escrow player 0 had before the return (its box to 2
    was sealed to 2's old key, public since the takeover): what an un-re-keyed table left to
    N−2 players."""
    table = returned_table(players)
    observer = table.protos[0]._s
    for target in range(players):
        others = tuple(p for p in range(players) if p != target)
        current = pass_public_key(table.protos[target]._s.secret)
        assert observer.pass_key_of(target) == current  # it plays on its fresh secret
        for colluders in combinations(others, players - 2):
            pool = known_secrets(table, colluders)
            assert try_recover(observer.escrow[target], target, pool) is None, colluders
        everyone = try_recover(observer.escrow[target], target, known_secrets(table, others))
        assert everyone is not None and pass_public_key(everyone) == current
    colluders = tuple(p for p in range(1, players) if p != 2)
    old = try_recover(genesis_escrow(table.protos[0], 0), 0, known_secrets(table, colluders))
    assert old == bytes([9]) * 32  # player 0's first secret: the hole the re-key closes


def test_every_seated_player_plays_on_a_fresh_secret_from_the_return() -> None:
    table = returned_table()
    logged = envelopes(table.protos[0])
    seats = [e for e in logged if e.kind == "seats" and e.hand == 3]
    rekeys = [e for e in logged if e.kind == "rekey" and e.hand == 3]
    welcomes = [e.body["rejoin"] for e in logged if e.kind == "welcome" and e.hand == 3]
    assert [e.sender for e in seats] == [e.sender for e in rekeys] == [0, 1, 3]
    assert len(welcomes) == 3 and len(set(welcomes)) == 1
    assert decode_frame(welcomes[0]).envelope.sender == 2
    keys = {e.sender: e.body["dh"] for e in seats}
    for player, dh in keys.items():
        assert table.protos[0]._s.pass_key_of(player) == dh
        assert pass_public_key(table.protos[player]._s.secret) == dh
    # Each present player's fresh secret comes from its identity key, for this boundary.
    own = table.ids[1].private_bytes()
    assert table.protos[1]._s.secret == derive(own, f"rekey {GAME_ID.hex()} 3")


def test_a_returner_that_never_rejoins_stays_the_tables_and_nobody_rekeys(tmp_path: Path) -> None:
    """The returner signs its reclaim and vanishes before its rejoin: each present peer waits
    its timeout, welcomes nobody, names nobody, and keeps its keys; the seat stays the table's."""
    table = ComebackTable(dead=2, hand=1, step="play.9", rerun=2)
    rerun = table._maybe_rerun

    def mute(i: int, msg: SignedMessage) -> SignedMessage | None:
        return None if i == 2 and msg.envelope.kind == "rejoin" else msg

    def clocks(i: int, p: GameProtocol) -> bool:
        if rerun(i, p):
            return True
        if i != 2 and p.status is Status.RUNNING and 2 in p.waiting_for():
            p.give_up_on(2, TIMEOUT, stalled=True)
            return True
        return False

    table.tampering(mute)
    table.choose = clocks
    table.play()
    for p in table.protos:
        assert p.status is Status.FINISHED and p.table_seats == {2}, (p.step, p.abort)
    assert len({tuple(p.entries) for p in table.protos}) == 1
    refused = events_of(table, ReclaimRefused)
    assert refused and all(r.by == () for r in refused)  # type: ignore[attr-defined]
    assert not events_of(table, SeatReclaimed)
    first = table.protos[0]._s
    for p in (0, 1, 3):
        assert first.pass_key_of(p) == pass_public_key(bytes([p + 9]) * 32)
    report = audit(tmp_path, table.protos[1].entries)
    assert isinstance(report, AuditReport) and report.valid, report.problems
    assert report.abort is None and report.returns
    assert all(r.refused_by == () and not r.back for r in report.returns)


def test_a_box_said_bad_in_the_rekey_keeps_every_old_key_for_that_hand(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Player 1 says player 3's fresh box to it does not open: nobody switches at that
    boundary (a switch with a share missing would leave 3's fresh secret unrecoverable), the
    log names who said so, and the seat is back one hand later."""
    bad_boxes = rekey._bad_boxes

    def lie(s: Any, r: Any) -> list[int]:
        return [3] if s.me == 1 and s.step.hand == 3 else bad_boxes(s, r)

    monkeypatch.setattr(rekey, "_bad_boxes", lie)
    table = ComebackTable(dead=2, hand=1, step="play.9", rerun=2)
    table.play()
    assert all(p.status is Status.FINISHED and not p.table_seats for p in table.protos)
    assert len({tuple(p.entries) for p in table.protos}) == 1
    (refused,) = events_of(table, ReclaimRefused)
    assert refused.by == (table.protos[0].seat_of[1],) and refused.hand == 3  # type: ignore[attr-defined]
    assert [e.hand for e in events_of(table, SeatReclaimed)] == [4]  # type: ignore[attr-defined]
    seats4 = {
        e.sender: e.body["dh"]
        for e in envelopes(table.protos[0])
        if e.kind == "seats" and e.hand == 4
    }
    for p in (0, 1, 3):
        assert table.protos[0]._s.pass_key_of(p) == seats4[p]
    report = audit(tmp_path, table.protos[0].entries)
    assert isinstance(report, AuditReport) and report.valid, report.problems


def test_a_rejoin_signed_by_another_player_is_its_signers_proven_forgery(tmp_path: Path) -> None:
    """Player 0 signs a rejoin in the returner's name, sealing the returner's shares to keys of
    its choosing: its own signature names it; the honest peers agree and the audit too."""
    table = ComebackTable(dead=2, hand=1, step="play.9", rerun=2)
    sent: list[SignedMessage] = []

    def forge(i: int, msg: SignedMessage) -> SignedMessage:
        if i == 2 and msg.envelope.kind == "rejoin" and not sent:
            sent.append(signed_as(table.ids[0], msg))
            table.queue += [(j, sent[0]) for j in (1, 3)]
        return msg

    table.tampering(forge)
    table.play()
    honest = [table.protos[1], table.protos[3]]
    assert sent and honest[0].entries == honest[1].entries
    for p in honest:
        assert p.abort is not None and p.abort.culprit == 0, (p.step, p.abort)
    report = audit(tmp_path, honest[0].entries)
    assert isinstance(report, AuditReport) and report.valid, report.problems
    assert (report.abort.blamed or "").endswith("(p0)") if report.abort else False


def test_a_fresh_box_to_a_seat_the_table_plays_that_does_not_open_is_its_senders_cheat(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Player 3 goes silent in the ``seats`` step that carries player 2's reclaim and is taken
    over; in ``rekey`` player 0 seals garbage to 3's box, which anyone opens with 3's recovered
    key: every honest peer names 0, and the audit too."""
    make = rekey.make_escrow

    def spoil(secret: bytes, game_id: bytes, sender: int, keys: Any) -> list[EscrowEntry]:
        out = make(secret, game_id, sender, keys)
        if sender == 0:
            box = out[-1]  # holders 1, 2, 3: the last is 3's
            out[-1] = EscrowEntry(box.commitment, box.ephemeral, bytes(len(box.sealed)))
        return out

    monkeypatch.setattr(rekey, "make_escrow", spoil)
    table = silent_in_seats()
    table.play()
    honest = [table.protos[1], table.protos[2]]
    assert honest[0].entries == honest[1].entries
    for p in honest:
        assert p.abort is not None and p.abort.culprit == 0, (p.step, p.abort)
        assert "sealed a bad escrow share to p3" in p.abort.reason
    report = audit(tmp_path, honest[0].entries)
    assert isinstance(report, AuditReport) and report.valid, report.problems
    assert report.abort is not None and (report.abort.blamed or "").endswith("(p0)")


def test_a_returner_restarted_before_its_rejoin_left_sends_it_again_and_a_sync_carries_it(
    tmp_path: Path,
) -> None:
    """The returner's first rejoin is lost and it restarts from its log: it signs the same
    rejoin again. Given to one present peer only, that peer's catch-up for others (``pending``)
    holds it, since it is in no log yet; the seat is back and every log is the same."""
    table = ComebackTable(dead=2, hand=1, step="play.9", rerun=2)
    rerun = table._maybe_rerun
    lost: list[SignedMessage] = []
    again: list[SignedMessage] = []

    def drop(i: int, msg: SignedMessage) -> SignedMessage | None:
        if i == 2 and msg.envelope.kind == "rejoin":
            (lost if not lost else again).append(msg)
            return None
        return msg

    def restart(i: int, p: GameProtocol) -> bool:
        if rerun(i, p):
            return True
        if i != 2 or not lost or again or p is not table.reborn:
            return False
        new = GameProtocol(
            GAME_ID,
            table.ids[0].public_key,
            table.ids[2],
            bytes([11]) * 32,
            choices=p.choices,
            min_proof_rounds=TEST_PROOF_ROUNDS,
        )
        new.resume(p.entries)
        out, _, _ = new.drain()
        again.extend(m for m in out if m.envelope.kind == "rejoin")
        table.reborn = table.protos[2] = new
        first = table.protos[0]
        first.receive(again[0])
        assert again[0].raw in [m.raw for m in first.pending()]
        return True

    table.tampering(drop)
    table.choose = restart
    table.play()
    assert [m.raw for m in again] == [lost[0].raw]  # the same bytes, re-derived
    assert all(p.status is Status.FINISHED and not p.table_seats for p in table.protos)
    assert len({tuple(p.entries) for p in table.protos}) == 1
    assert [e.hand for e in events_of(table, SeatReclaimed)] == [3]  # type: ignore[attr-defined]
    report = audit(tmp_path, table.protos[3].entries)
    assert isinstance(report, AuditReport) and report.valid, report.problems


def test_a_player_who_leaves_during_the_rekey_leaves_every_key_as_it_was(tmp_path: Path) -> None:
    """Player 3 signs that it leaves instead of its ``rekey`` message, so it is taken over in
    that step: the others' fresh boxes to it were sealed to a fresh key nobody recovers, and
    no honest sender is named for them. Nobody switches at that boundary; player 2 comes back
    at the next one, with 3 the table's."""
    table = ComebackTable(dead=2, hand=1, step="play.9", rerun=2)
    left: list[bool] = []

    def leave(i: int, msg: SignedMessage) -> SignedMessage | None:
        if i == 3 and msg.envelope.kind == "rekey" and not left:
            left.append(True)
            table.protos[3].quit("p3")
            return None
        return msg

    table.tampering(leave)
    table.play()
    assert left
    stayed = table.protos[:3]  # the leaver's own game ended when it left
    for p in stayed:
        assert p.status is Status.FINISHED and p.table_seats == {3}, (p.step, p.abort)
    assert len({tuple(p.entries) for p in stayed}) == 1
    (refused,) = events_of(table, ReclaimRefused)
    assert refused.hand == 3 and refused.by == ()  # type: ignore[attr-defined]
    assert [e.hand for e in events_of(table, SeatReclaimed)] == [4]  # type: ignore[attr-defined]
    report = audit(tmp_path, table.protos[0].entries)
    assert isinstance(report, AuditReport) and report.valid, report.problems
    assert report.abort is None
    assert [(t.name, t.hand, t.ending) for t in report.takeovers] == [
        ("p2", 1, "gone"),
        ("p3", 3, "left"),
    ]


def test_a_player_who_leaves_after_its_seats_message_gets_boxes_anyone_opens() -> None:
    """Player 3 sends its ``seats`` message (with a fresh key) and then leaves: its part is in,
    so the ``seats`` step completes without it, and the next step, which waits on it, takes it
    over (6.12). It is the table's, so the fresh escrows' boxes to it are sealed to its
    recovered key, which every peer opens if another seat leaves later; player 2, coming back
    in that hand's steps, takes its seat back a hand later."""
    table = ComebackTable(dead=2, hand=1, step="play.9", rerun=2)
    held: list[SignedMessage] = []

    def leave(i: int, msg: SignedMessage) -> SignedMessage | None:
        if msg.envelope.kind != "seats" or msg.envelope.hand != 3:
            return msg
        if i in (0, 1):
            held.append(msg)  # the step stays open everywhere until 3's leave is in
            return None
        if i == 3:
            table.protos[3].quit("p3")
        return msg

    def release(i: int, p: GameProtocol) -> bool:
        if not held:
            return False
        table.queue += [(j, m) for m in held for j in range(4) if j != m.envelope.sender]
        held.clear()
        return True

    rerun = table._maybe_rerun
    table.tampering(leave)
    table.choose = lambda i, p: rerun(i, p) or release(i, p)
    table.play()
    stayed = table.protos[:3]
    for p in stayed:
        assert p.status is Status.FINISHED and p.table_seats == {3}, (p.step, p.abort)
    assert len({tuple(p.entries) for p in stayed}) == 1
    assert [e.hand for e in events_of(table, SeatReclaimed)] == [4]  # type: ignore[attr-defined]
    s = table.protos[0]._s
    gone = pass_key(s.table[3].secret)
    for sender in (0, 1, 2):
        box = s.escrow[sender][3]
        assert open_entry(box, GAME_ID, sender, 3, gone, s.pass_key_of(3)) is not None


def test_a_welcome_carrying_a_rejoin_that_is_not_valid_is_its_senders_cheat(
    tmp_path: Path,
) -> None:
    table = ComebackTable(dead=2, hand=1, step="play.9", rerun=2)

    def junk(i: int, msg: SignedMessage) -> SignedMessage:
        env = msg.envelope
        if i == 0 and env.kind == "welcome" and env.body["rejoin"] is not None:
            return signed_as(table.ids[0], msg, body={**env.body, "rejoin": b"junk"})
        return msg

    table.tampering(junk)
    table.play()
    honest = [table.protos[1], table.protos[2], table.protos[3]]
    assert len({tuple(p.entries) for p in honest}) == 1
    for p in honest:
        assert p.abort is not None and p.abort.culprit == 0, (p.step, p.abort)
        assert "carried a rejoin that is not valid" in p.abort.reason
    report = audit(tmp_path, honest[0].entries)
    assert isinstance(report, AuditReport) and report.valid, report.problems
    assert report.abort is not None and (report.abort.blamed or "").endswith("(p0)")


def test_a_returner_that_signs_two_rejoins_stays_the_tables_for_that_hand_naming_nobody(
    tmp_path: Path,
) -> None:
    """The returner gives players 0 and 1 one rejoin and player 3 another (both valid): the
    welcomes carry different rejoins, so nobody switches; nobody present is named, and the seat
    is back at the next boundary."""
    table = ComebackTable(dead=2, hand=1, step="play.9", rerun=2)
    split: list[SignedMessage] = []

    def two(i: int, msg: SignedMessage) -> SignedMessage | None:
        if i != 2 or msg.envelope.kind != "rejoin" or split:
            return msg
        other = signed_as(table.ids[2], msg, body={**msg.envelope.body, "bad": [0]})
        split.append(other)
        table.queue += [(0, msg), (1, msg), (3, other)]
        return None

    table.tampering(two)
    table.play()
    assert split
    assert all(p.status is Status.FINISHED and not p.table_seats for p in table.protos)
    assert len({tuple(p.entries) for p in table.protos}) == 1
    (refused,) = events_of(table, ReclaimRefused)
    assert refused.hand == 3 and refused.by == ()  # type: ignore[attr-defined]
    assert [e.hand for e in events_of(table, SeatReclaimed)] == [4]  # type: ignore[attr-defined]
    welcomes = {e.body["rejoin"] for e in envelopes(table.protos[0]) if e.kind == "welcome"}
    assert len(welcomes) == 3  # two rejoins at hand 3, one at hand 4
    report = audit(tmp_path, table.protos[0].entries)
    assert isinstance(report, AuditReport) and report.valid, report.problems
    assert report.abort is None
