"""Two seats gone in one step, in memory: neither secret can be recovered (each one's escrow needs
the other's share), so the hand in play is voided and re-dealt among the rest, the two seats
dealt open and played by the table; the game finishes with totals and a winner, every survivor's
log byte for byte the same, valid in the audit, naming no one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hearts_p2p.audit import AuditReport, audit_log
from hearts_p2p.game import GameProtocol, Status, Termination
from hearts_p2p.log import GameLog
from hearts_p2p.rules import Rules
from hearts_p2p.wire import SignedMessage, decode_frame

from .table import GAME_ID, TEST_PROOF_ROUNDS, Table

TIMEOUT = 60.0


class GroupDyingTable(Table):
    """A table where each player of ``dead`` stops for good (sends and relays nothing) once the
    game reaches its point ``(hand, step)``, or it would send for that step; players with one
    point die together, as soon as the first of them reaches it. The others' clocks run out on
    the dead when the table settles."""

    def __init__(self, rules: Rules, dead: dict[int, tuple[int, str]], seed: int = 1) -> None:
        super().__init__(rules, seed=seed)
        self.dead = dead
        self.died: set[int] = set()
        self.tamper = self._die

    def _reach(self, i: int, point: tuple[int, str]) -> None:
        if self.dead.get(i) == point:
            self.died |= {d for d, at in self.dead.items() if at == point}

    def _die(self, i: int, msg: SignedMessage) -> SignedMessage | None:
        self._reach(i, (msg.envelope.hand, msg.envelope.step))
        return None if i in self.died else msg

    def _send(self, i: int, p: GameProtocol) -> None:
        self._reach(i, (p.step.hand, p.step.name))
        if i in self.died:
            self.drain(i, p)
            p.take_relays()
            return
        super()._send(i, p)

    def play(self) -> None:
        self.run()
        self.expire()

    def expire(self) -> None:
        """Let the survivors' clocks run out on the dead, as often as the table needs."""
        for _ in range(40):
            expired = False
            for i, p in enumerate(self.protos):
                if i in self.died or p.status is not Status.RUNNING:
                    continue
                for d in sorted(self.died):
                    if d in p.waiting_for():
                        p.give_up_on(d, TIMEOUT)
                        expired = True
            if not expired:
                return
            self.settle()
        raise AssertionError("the table needed more timeouts than it has seats")

    def alive(self) -> list[GameProtocol]:
        return [p for i, p in enumerate(self.protos) if i not in self.died]


def audit(tmp_path: Path, entries: list[bytes]) -> AuditReport:
    log = GameLog.open(tmp_path / "game.log")
    for e in entries:
        log.append(e)
    log.close()
    return audit_log(tmp_path / "game.log")


def finished_alike(table: GroupDyingTable, tmp_path: Path) -> AuditReport:
    """Every survivor finished with one log, which audits valid and blames no one."""
    alive = table.alive()
    for p in alive:
        assert p.status is Status.FINISHED, (p.step, p.abort)
        assert p.result is not None and p.result.winners
    assert len({tuple(p.entries) for p in alive}) == 1
    report = audit(tmp_path, alive[0].entries)
    assert report.valid, report.problems
    assert report.abort is None
    assert report.totals == alive[0].result.totals  # type: ignore[union-attr]
    return report


TWO_HANDS = Rules(target=30)
POINTS = [
    (1, "shuffle.1"), (1, "echo_lock"), (1, "deal"), (1, "dealt"), (1, "pass_commit"),
    (1, "pass_reveal"), (1, "remix"), (1, "play.0"), (1, "play.6"), (1, "play.29"),
    (1, "reveal"), (2, "lock.2"), (2, "play.13"),
]  # fmt: skip
AHEAD = ("shuffle", "echo_shuffle", "lock", "echo_lock")  # hand h's run during hand h-1 (6.3)


@pytest.mark.parametrize(("hand", "step"), POINTS)
def test_two_seats_gone_in_one_step_void_the_hand_and_the_game_finishes(
    hand: int, step: str, tmp_path: Path
) -> None:
    table = GroupDyingTable(TWO_HANDS, {1: (hand, step), 2: (hand, step)}, seed=3)
    table.play()
    assert table.died == {1, 2}
    report = finished_alike(table, tmp_path)
    (void,) = report.voids
    if hand > 1 and step.split(".")[0] in AHEAD:
        hand -= 1  # a step of hand 2's deck, run during hand 1: hand 1 is the one in play
    assert void.hand == hand and sorted(void.names) == ["p1", "p2"] and void.redeal == hand + 1
    assert report.hands and all(h.number != hand for h in report.hands)
    assert {t.name for t in report.takeovers} == {"p1", "p2"}
    for p in table.alive():
        assert p.table_seats == {1, 2}
        assert p.game is not None and p.game.results[hand - 1].points == (0, 0, 0, 0)


class HalfSentTable(GroupDyingTable):
    """Two seats die together as their point comes, and the first message of that point reaches
    only ``reach``: a seat killed mid-broadcast, its part of the step held by some survivors.
    The survivors' clocks run as a node's do: the gone clock on every dead seat at each tick,
    whatever the step awaits, then the stall clock on the first awaited seat unless one
    awaited is gone (node/runner.py)."""

    def __init__(self, point: tuple[int, str], reach: set[int], seed: int) -> None:
        super().__init__(TWO_HANDS, {1: point, 2: point}, seed=seed)
        self.reach = reach
        self.tamper = None
        self.route = self._half

    def _send(self, i: int, p: GameProtocol) -> None:
        if i in self.died:
            self.drain(i, p)
            p.take_relays()
            return
        Table._send(self, i, p)

    def _half(self, i: int, j: int, msg: SignedMessage) -> SignedMessage | None:
        if i in self.died:
            return None
        if self.dead.get(i) == (msg.envelope.hand, msg.envelope.step):
            self.died |= set(self.dead)
            return msg if j in self.reach else None
        return msg

    def expire(self) -> None:
        for _ in range(40):
            live = [p for i, p in enumerate(self.protos) if i not in self.died]
            if all(p.status is not Status.RUNNING for p in live):
                return
            for p in live:
                for d in sorted(self.died):
                    p.give_up_on(d, TIMEOUT)
            self.settle()
            for p in live:
                waiting = [w for w in p.waiting_for() if w != p.me]
                if p.status is not Status.RUNNING or not waiting or self.died & set(waiting):
                    continue
                if p.waiting_on_machines() or len(waiting) == 1:
                    p.give_up_on(waiting[0], TIMEOUT, stalled=True)
            self.settle()
        raise AssertionError("the table needed more timeouts than it has seats")


@pytest.mark.parametrize(
    ("step", "reach"),
    [("pass_reveal", {0, 3}), ("dealt", {0}), ("remix", {3}), ("reveal", {0, 3})],
)
def test_a_seat_gone_after_its_part_is_lost_with_the_one_gone_before_it(
    tmp_path: Path, step: str, reach: set[int]
) -> None:
    """Two seats die in one step, one of them just after sending its part to some survivors:
    that seat is there in the step but never votes in the round, and the other's escrow needs
    its share. A part carried by an accusation shows nothing (SPEC 6.14), and a survivor that
    defended it at once accuses it when its own clock runs out: both seats are lost, the hand
    voided and re-dealt, one log, valid, naming no one."""
    table = HalfSentTable((1, step), reach, seed=3)
    table.play()
    assert table.died == {1, 2}
    report = finished_alike(table, tmp_path)
    (void,) = report.voids
    assert void.hand == 1 and sorted(void.names) == ["p1", "p2"]


def test_the_seats_that_shuffle_are_the_live_ones_and_the_rest_are_open(tmp_path: Path) -> None:
    """After the void no frame of the two lost seats is in the log: their parts of every later
    step are computed by every peer from a public stand-in secret."""
    table = GroupDyingTable(TWO_HANDS, {0: (1, "play.3"), 3: (1, "play.3")}, seed=4)
    table.play()
    report = finished_alike(table, tmp_path)
    assert [v.hand for v in report.voids] == [1]
    envelopes = [decode_frame(e).envelope for e in table.alive()[0].entries]
    void = max(i for i, e in enumerate(envelopes) if e.kind == "takeover")  # its last vote
    later = envelopes[void + 1 :]  # hand 2's deck shuffled anew, from the live seats alone
    assert later and {e.sender for e in later} == {1, 2}
    assert later[0].hand == 2 and later[0].kind == "shuffle"


def test_a_third_seat_lost_with_one_player_left_ends_the_game_on_the_totals_so_far(
    tmp_path: Path,
) -> None:
    """Two seats lost together in hand 2; in hand 3 a third goes, whose escrow needs their
    shares: one player would be left, so hand 3 is voided and the game ends there, on the totals
    of hands 1 and 2, with a winner."""
    dead = {1: (2, "play.4"), 2: (2, "play.4"), 3: (3, "play.11")}
    table = GroupDyingTable(Rules(target=200), dead, seed=2)
    table.play()
    (alive,) = table.alive()
    assert alive.status is Status.FINISHED, (alive.step, alive.abort)
    report = audit(tmp_path, alive.entries)
    assert report.valid, report.problems
    assert [(v.hand, v.redeal) for v in report.voids] == [(2, 3), (3, None)]
    assert alive.result is not None and alive.result.winners and alive.result.hands == 3
    assert [h.number for h in report.hands] == [1]
    assert report.totals == alive.result.totals


def test_three_seats_two_gone_at_once_end_on_the_survivors_claim(tmp_path: Path) -> None:
    """At three seats the one player left cannot be told from a peer voting every other seat
    out at once: no hand is voided on one peer's word, and it ends on its own claim (6.9),
    blaming no one."""
    table = GroupDyingTable(Rules(players=3, target=200), {0: (2, "play.4"), 2: (2, "play.4")})
    table.run()
    table.expire()
    (alive,) = table.alive()
    assert alive.status is Status.ABORTED and alive.abort is not None
    assert alive.abort.culprit in (0, 2) and alive.abort.termination is not Termination.CHEAT_PROVEN
    report = audit(tmp_path, alive.entries)
    assert report.valid and not report.voids, report.problems


def test_two_seats_gone_one_after_the_other_are_both_recovered(tmp_path: Path) -> None:
    """The second seat's escrow needs the first's share of it, sealed to the first's key: that
    key is public once the first is recovered, so every peer opens that box itself."""
    table = GroupDyingTable(TWO_HANDS, {1: (1, "play.5"), 3: (1, "play.22")}, seed=6)
    table.play()
    report = finished_alike(table, tmp_path)
    assert not report.voids
    assert [t.name for t in report.takeovers] == ["p1", "p3"]


def test_a_third_seat_whose_escrow_needs_a_lost_seat_is_voided_too(tmp_path: Path) -> None:
    """Five seats: two lost together in hand 1, a third gone in hand 2 cannot be recovered (its
    escrow needs the lost seats' shares): hand 2 is voided as well, and two play on."""
    rules = Rules(players=5, target=40)
    dead = {1: (1, "play.7"), 2: (1, "play.7"), 4: (2, "play.11")}
    table = GroupDyingTable(rules, dead, seed=5)
    table.play()
    report = finished_alike(table, tmp_path)
    assert [(v.hand, sorted(v.names)) for v in report.voids] == [(1, ["p1", "p2"]), (2, ["p4"])]


def test_a_restarted_survivor_reaches_the_same_state_from_its_log(tmp_path: Path) -> None:
    table = GroupDyingTable(TWO_HANDS, {1: (1, "play.9"), 2: (1, "play.9")}, seed=3)
    table.play()
    alive = table.alive()
    finished_alike(table, tmp_path)
    again = GameProtocol(
        GAME_ID,
        table.ids[0].public_key,
        table.ids[0],
        bytes([9]) * 32,
        choices=table.protos[0].choices,
        min_proof_rounds=TEST_PROOF_ROUNDS,
    )
    again.resume(alive[0].entries)
    assert again.status is Status.FINISHED and again.head == alive[0].head
    assert again.table_seats == {1, 2}


# -- hostile survivors ---------------------------------------------------------------------


def _round_open(p: GameProtocol) -> bool:
    r = p._s.round
    return r is not None and r.prev == p.step.prev


def test_a_survivor_that_withholds_its_share_is_named_and_voids_only_that_hand(
    tmp_path: Path,
) -> None:
    """Player 2 dies; player 0 votes but never shows its share of player 2's secret. The others'
    clocks run out on player 0: two seats are now gone in one step, neither recoverable. The
    hand is voided, player 0 is named as the one that stalled, and its seat is open for good: it
    cannot come back to void the next hand it is losing too."""
    table = GroupDyingTable(TWO_HANDS, {2: (1, "play.6")}, seed=3)
    hostile, asked = 0, []

    def withhold(player: int, p: GameProtocol) -> bool:
        if player == hostile:
            p._s.shares.pop(2, None)  # it has no share to show: it sends none
            if p.taken_over and p.wants_secret and not asked:
                asked.append(True)
                p.come_back(bytes([77]) * 32)
        return False

    table.choose = withhold
    table.run()
    for _ in range(10):
        for i, p in enumerate(table.protos):
            if i in (hostile, 2) or p.status is not Status.RUNNING:
                continue
            for w in p.waiting_for():
                if w in (hostile, 2):
                    p.give_up_on(w, TIMEOUT, stalled=w == hostile)
        table.settle()
    honest = [table.protos[1], table.protos[3]]
    for p in honest:
        assert p.status is Status.FINISHED, (p.step, p.abort)
    assert honest[0].entries == honest[1].entries
    report = audit(tmp_path, honest[0].entries)
    assert report.valid and report.abort is None, report.problems
    (void,) = report.voids
    assert void.hand == 1 and sorted(void.names) == ["p0", "p2"]
    assert {(t.name, t.ending) for t in report.takeovers} == {("p0", "stalled"), ("p2", "gone")}
    assert asked and not report.returns  # its reclaim is not valid: the seat stays open
    assert table.protos[hostile].head == honest[0].head  # it follows, its log the same


def test_a_survivor_showing_a_false_share_in_a_void_is_named(tmp_path: Path) -> None:
    """Two seats gone; a survivor shows a share of one of them that is not its committed share:
    its own signed message proves it, at every honest peer and in the audit."""
    from hearts_p2p.game.takeover import RECOVER

    from .test_takeover_attacks import assert_named

    table = GroupDyingTable(Rules(players=5, target=1), {1: (1, "play.20"), 2: (1, "play.20")})
    liar, sent = 4, []

    def lie(player: int, p: GameProtocol) -> bool:
        if player == liar and _round_open(p) and not sent:
            s = p._s
            assert s.round is not None
            msg = s.sign(RECOVER, RECOVER, {"player": 1, "share": bytes(32)}, s.round.prev)
            table.queue += [(j, msg) for j in range(5)]
            sent.append(msg)
            return True
        return False

    table.choose = lie
    table.play()
    assert sent
    peers = [table.protos[0], table.protos[3]]
    assert_named(tmp_path, peers, liar, "false escrow share")


def test_a_false_second_vote_about_a_present_seat_changes_nothing(tmp_path: Path) -> None:
    """Player 2 dies; player 0 votes it out and also votes player 3 out, who is there. Each other
    survivor answers that vote at once with what player 3 owes the round: player 3 is shown
    present, keeps its seat, and player 2 alone is taken over, from the escrow."""
    from hearts_p2p.game.takeover import VOTE

    table = GroupDyingTable(TWO_HANDS, {2: (1, "play.6")}, seed=3)
    table.run()
    liar = table.protos[0]
    liar.give_up_on(2, TIMEOUT)
    r = liar._s.round
    assert r is not None
    body = {"player": 3, "ending": "gone", "evidence": []}
    table.queue += [(j, liar._s.sign(VOTE, VOTE, body, r.prev)) for j in (1, 3)]
    table.settle()
    table.expire()
    report = finished_alike(table, tmp_path)
    assert not report.voids
    assert [t.name for t in report.takeovers] == ["p2"]


def voting_on_three() -> tuple[GroupDyingTable, Callable[[dict[str, Any]], SignedMessage], bytes]:
    """Player 2 dies in `dealt` and player 0 votes it out; then the table, a signer of player
    0's further votes in that step (none sent yet), and player 3's part of the step."""
    from hearts_p2p.game.takeover import VOTE

    table = GroupDyingTable(TWO_HANDS, {2: (1, "dealt")}, seed=3)
    table.run()
    liar = table.protos[0]
    liar.give_up_on(2, TIMEOUT)
    r = liar._s.round
    part = liar._s.step.got.get(3)
    assert r is not None and part is not None
    prev = r.prev
    return table, lambda body: liar._s.sign(VOTE, VOTE, body, prev), part.raw


def test_a_false_accusation_carrying_the_seats_own_part_changes_nothing(tmp_path: Path) -> None:
    """Player 2 dies in `dealt`; player 0 votes it out and accuses player 3, who is there,
    carrying player 3's own part of the step: an accusation's part shows nothing, but each
    other survivor holding that part defends player 3 at once, and player 3 itself votes in
    the round. Player 3 keeps its seat, player 2 alone is taken over, and no hand is voided."""
    table, vote, part = voting_on_three()
    table.queue += [(j, vote({"player": 3, "ending": "gone", "evidence": [part]})) for j in (1, 3)]
    table.settle()
    table.expire()
    report = finished_alike(table, tmp_path)
    assert not report.voids
    assert [t.name for t in report.takeovers] == ["p2"]


def test_a_defence_and_an_accusation_of_one_seat_are_two_votes_and_two_defences_a_cheat(
    tmp_path: Path,
) -> None:
    """A survivor may defend a seat at once and accuse it later, its own clock run out; two
    different defences of one seat in one step are equivocation, proven by the pair: the
    sender is named, and the honest peers agree."""
    from hearts_p2p.game.void import HERE

    table, vote, part = voting_on_three()
    first = vote({"player": 3, "ending": HERE, "evidence": [part]})
    second = vote({"player": 3, "ending": HERE, "evidence": []})
    table.queue += [(j, m) for m in (first, second) for j in (1, 3)]
    table.settle()
    for p in (table.protos[1], table.protos[3]):
        assert p.status is Status.ABORTED and p.abort is not None, p.step
        assert p.abort.culprit == 0 and p.abort.termination is Termination.CHEAT_PROVEN
    assert table.protos[1].entries == table.protos[3].entries
    report = audit(tmp_path, table.protos[1].entries)
    assert report.abort is not None and report.abort.blamed == "seat 2 (p0)"


@pytest.mark.parametrize("point", ["play.9", "dealt", "remix", "echo_lock"])
def test_one_peer_voting_every_other_seat_out_at_once_voids_nothing(
    tmp_path: Path, point: str
) -> None:
    """Player 3 dies; player 0 votes it out and, at once, players 1 and 2 as well. Its word alone
    is never enough: the others answer with what they hold of each other, both keep their seats,
    and player 3 alone is taken over, from the escrow. In a step every player sends, an honest
    peer's round may turn from seat to seat (void.promote) after its first vote: its vote on
    player 3 is still its own, new one, not that first vote sent again; and one whose round is
    about itself still counts the votes of a seat it voted on, which say it is there."""
    from hearts_p2p.game.takeover import VOTE

    table = GroupDyingTable(TWO_HANDS, {3: (1, point)}, seed=5)
    table.run()
    liar = table.protos[0]
    liar.give_up_on(3, TIMEOUT)
    r = liar._s.round
    assert r is not None
    for honest in (1, 2):
        body = {"player": honest, "ending": "gone", "evidence": []}
        table.queue += [(j, liar._s.sign(VOTE, VOTE, body, r.prev)) for j in (1, 2)]
    table.settle()
    table.expire()
    report = finished_alike(table, tmp_path)
    assert not report.voids
    assert [t.name for t in report.takeovers] == ["p3"]


def test_a_void_in_a_hand_sure_to_end_the_game_shuffles_its_re_deal_there(
    tmp_path: Path,
) -> None:
    """Hand 1 of a game to 1 is sure to end it (SPEC 6.3 "The last hand"), so no deck is
    shuffled during it. Voided all the same, its re-deal shuffles a deck of its own before its
    deal, and the game ends after it."""
    from tests.audit.log_vectors import steps

    table = GroupDyingTable(Rules(target=1), {1: (1, "play.20"), 2: (1, "play.20")}, seed=3)
    table.play()
    report = finished_alike(table, tmp_path)
    (void,) = report.voids
    assert void.hand == 1 and void.redeal == 2
    assert [h.number for h in report.hands] == [2]
    logged = steps(table.alive()[0].entries)
    first_of_2 = logged.index((2, "shuffle.0"))
    assert all(hand == 1 for hand, _ in logged[logged.index((1, "play.0")) : first_of_2])
    assert not any(hand == 3 for hand, _ in logged)  # hand 2 was sure to end the game too
