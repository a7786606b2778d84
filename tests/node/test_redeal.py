"""Two seats gone in one step, in memory: neither secret can be recovered (each one's escrow needs
the other's share), so the hand in play is voided and re-dealt among the rest, the two seats
dealt open and played by the table; the game finishes with totals and a winner, every survivor's
log byte for byte the same, valid in the audit, naming no one."""

from __future__ import annotations

from pathlib import Path

import pytest

from hearts_p2p.audit import AuditReport, audit_log
from hearts_p2p.game import GameProtocol, Status
from hearts_p2p.log import GameLog
from hearts_p2p.rules import Rules
from hearts_p2p.wire import SignedMessage, decode_frame

from .table import GAME_ID, Table

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
            p.drain()
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


@pytest.mark.parametrize(("hand", "step"), POINTS)
def test_two_seats_gone_in_one_step_void_the_hand_and_the_game_finishes(
    hand: int, step: str, tmp_path: Path
) -> None:
    table = GroupDyingTable(TWO_HANDS, {1: (hand, step), 2: (hand, step)}, seed=3)
    table.play()
    assert table.died == {1, 2}
    report = finished_alike(table, tmp_path)
    (void,) = report.voids
    assert void.hand == hand and sorted(void.names) == ["p1", "p2"] and void.redeal == hand + 1
    assert report.hands and all(h.number != hand for h in report.hands)
    assert {t.name for t in report.takeovers} == {"p1", "p2"}
    for p in table.alive():
        assert p.table_seats == {1, 2}
        assert p.game is not None and p.game.results[hand - 1].points == (0, 0, 0, 0)


def test_the_seats_that_shuffle_are_the_live_ones_and_the_rest_are_open(tmp_path: Path) -> None:
    """After the void no frame of the two lost seats is in the log: their parts of every later
    step are computed by every peer from a public stand-in secret."""
    table = GroupDyingTable(TWO_HANDS, {0: (1, "play.3"), 3: (1, "play.3")}, seed=4)
    table.play()
    report = finished_alike(table, tmp_path)
    assert [v.hand for v in report.voids] == [1]
    envelopes = [decode_frame(e).envelope for e in table.alive()[0].entries]
    later = [e for e in envelopes if e.hand >= 2]
    assert later and {e.sender for e in later} == {1, 2}


def test_three_seats_with_one_left_live_end_the_game_on_the_totals_so_far(tmp_path: Path) -> None:
    rules = Rules(players=3, target=200)
    table = GroupDyingTable(rules, {0: (2, "play.4"), 2: (2, "play.4")}, seed=2)
    table.play()
    (alive,) = table.alive()
    assert alive.status is Status.FINISHED, (alive.step, alive.abort)
    report = audit(tmp_path, alive.entries)
    assert report.valid, report.problems
    (void,) = report.voids
    assert void.hand == 2 and void.redeal is None
    assert alive.result is not None and alive.result.hands == 2
    assert len(report.hands) == 1  # hand 1 counted, hand 2 voided


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
    again = GameProtocol(GAME_ID, table.ids[0].public_key, table.ids[0], bytes([9]) * 32,
                         choices=table.protos[0].choices)  # fmt: skip
    again.resume(alive[0].entries)
    assert again.status is Status.FINISHED and again.head == alive[0].head
    assert again.table_seats == {1, 2}
