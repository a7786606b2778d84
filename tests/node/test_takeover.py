"""Seat takeover in memory: a peer dies for good at a seeded point of the game and the others,
each on its own clock, take its seat over from the escrow; the game finishes with every
survivor's log byte for byte the same, valid in the audit, naming no one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from hearts_p2p.audit import audit_log
from hearts_p2p.cards import CLUB_2
from hearts_p2p.game import GameProtocol, LocalTable, Status, StepKind, Termination
from hearts_p2p.game.rollcall import NOLEAD
from hearts_p2p.log import GameLog
from hearts_p2p.rules import GameKind, Rules
from hearts_p2p.wire import PROTOCOL_VERSION, Envelope, SignedMessage, decode_frame, encode_message

from .table import GAME_ID, TEST_PROOF_ROUNDS, Table, forge, send_to_all

TIMEOUT = 60.0


class DyingTable(Table):
    """A table where player ``dead`` stops for good (sends nothing, relays nothing) once its
    game reaches ``hand``'s step ``step``, or it would send for that step; the survivors' clocks
    run out on it when the table settles. With ``logs_its_part`` it makes its message for the
    step (logging it, as a node does before it sends) and dies before any peer gets it; its log
    then is ``log_at_death``."""

    def __init__(
        self,
        rules: Rules,
        dead: int,
        hand: int,
        step: str,
        seed: int = 1,
        *,
        logs_its_part: bool = False,
    ) -> None:
        super().__init__(rules, seed=seed)
        self.dead = dead
        self.when = (hand, step)
        self.died = False
        self.logs_its_part = logs_its_part
        self.log_at_death: list[bytes] = []
        self.tamper = self._die

    def _die(self, i: int, msg: SignedMessage) -> SignedMessage | None:
        if i == self.dead and (msg.envelope.hand, msg.envelope.step) == self.when:
            if not self.died:
                self.log_at_death = list(self.protos[i].entries)
            self.died = True
        return None if i == self.dead and self.died else msg

    def _send(self, i: int, p: GameProtocol) -> None:
        reached = (p.step.hand, p.step.name) == self.when
        if i == self.dead and reached and not self.logs_its_part:
            self.died = True  # the table reached the step: it dies before its part of it
        if i == self.dead and self.died:
            self.drain(i, p)
            p.take_relays()
            return
        super()._send(i, p)

    def play(self) -> None:
        self.run()
        self.expire()

    def expire(self) -> None:
        """Let the survivors' clocks run out on the dead peer, as often as the table needs."""
        for _ in range(20):  # each round of timeouts moves the table on; none is ever needed twice
            expired = False
            for i, p in enumerate(self.protos):
                if i == self.dead or p.status is not Status.RUNNING:
                    continue
                if self.dead in p.waiting_for():  # its clock runs out on the one that died
                    p.give_up_on(self.dead, TIMEOUT)
                    expired = True
            if not expired:
                return
            self.settle()
        raise AssertionError("the table needed more timeouts than it has seats")


def survivors(table: DyingTable) -> list[GameProtocol]:
    return [p for i, p in enumerate(table.protos) if i != table.dead]


def finished_alike(table: DyingTable, taken: set[int]) -> list[GameProtocol]:
    """The survivors, each having finished the game with the seats ``taken`` played by the
    table, on one log."""
    alive = survivors(table)
    assert [p.status for p in alive] == [Status.FINISHED] * len(alive), [p.abort for p in alive]
    assert all(p.table_seats == taken for p in alive)
    assert len({tuple(p.entries) for p in alive}) == 1
    return alive


def audit(tmp_path: Path, entries: list[bytes]) -> object:
    log = GameLog.open(tmp_path / "game.log")
    for e in entries:
        log.append(e)
    log.close()
    return audit_log(tmp_path / "game.log")


ONE_HAND = Rules(target=1)
ONE_HAND_PLUS = Rules(target=40)  # a few hands
HAND_ONE = [
    "shuffle.0", "shuffle.2", "shuffle.3", "echo_shuffle", "lock.1", "lock.3", "echo_lock",
    "deal", "dealt", "pass_commit", "pass_reveal", "passed", "remix", "remix_share", "remix_answer",
    "play.0", "play.1", "play.4",
    "play.17", "play.30", "play.51", "reveal",
]  # fmt: skip


@pytest.mark.parametrize("step", HAND_ONE)
def test_a_peer_dead_for_good_is_taken_over_and_the_game_finishes(
    step: str, tmp_path: Path
) -> None:
    table = DyingTable(ONE_HAND, dead=2, hand=1, step=step)
    table.play()
    assert table.died
    alive = survivors(table)
    for p in alive:
        assert p.status is Status.FINISHED, (p.step, p.abort)
        assert p.table_seats == {2}
    assert len({tuple(p.entries) for p in alive}) == 1
    report = audit(tmp_path, alive[0].entries)
    assert report.valid, report.problems  # type: ignore[attr-defined]
    (taken,) = report.takeovers  # type: ignore[attr-defined]
    assert taken.name == "p2" and taken.ending in ("gone", "stalled") and taken.hand == 1


@pytest.mark.parametrize(
    ("dead", "hand", "step"),
    [
        (0, 2, "shuffle.1"),
        (1, 2, "play.9"),
        (3, 1, "deal"),
        (2, 2, "echo_shuffle"),
        (3, 2, "lock.2"),
        (1, 2, "echo_lock"),
    ],
)
def test_takeover_in_a_longer_game_covers_later_hands(
    dead: int, hand: int, step: str, tmp_path: Path
) -> None:
    """The seat is dealt open in every later hand, its shuffles and locks computed from its
    recovered secret, its choices the table's; the host may be the one that dies. Hand h's
    shuffles, locks and echoes run during hand h-1's plays (SPEC 6.3): a seat that dies in one
    of them leaves two decks, both of which the table goes on with."""
    table = DyingTable(Rules(target=26), dead=dead, hand=hand, step=step, seed=3)  # 3 hands
    ahead = step.split(".")[0] in ("shuffle", "echo_shuffle", "lock", "echo_lock") and hand > 1
    table.play()
    assert table.died
    alive = survivors(table)
    for p in alive:
        assert p.status is Status.FINISHED, (p.step, p.abort)
        assert p.game is not None and p.game.number > (hand - 1 if ahead else hand)
    assert len({tuple(p.entries) for p in alive}) == 1
    report = audit(tmp_path, alive[0].entries)
    assert report.valid, report.problems  # type: ignore[attr-defined]
    # A survivor restarted from its log re-derives the takeover and the table's every part.
    i = next(i for i in range(4) if i != dead)
    key, me, secret = table.ids[0].public_key, table.ids[i], bytes([i + 9]) * 32
    again = GameProtocol(
        GAME_ID,
        key,
        me,
        secret,
        choices=table.protos[i].choices,
        min_proof_rounds=TEST_PROOF_ROUNDS,
    )
    again.resume(alive[0].entries)
    assert again.status is Status.FINISHED and again.head == alive[0].head
    assert again.table_seats == {dead}


def test_a_player_who_quits_is_taken_over_without_a_clock_and_recorded_as_left(
    tmp_path: Path,
) -> None:
    table = Table(ONE_HAND, seed=5)

    def choose(player: int, p: GameProtocol) -> bool:
        if player == 1 and p.step.name == "play.9" and p.status is Status.RUNNING:
            p.quit("p1")
            return True
        return False

    table.choose = choose
    table.run()  # no clock needed: its signed leave starts the votes
    leaver = table.protos[1]
    assert leaver.termination is Termination.LEFT
    alive = [p for i, p in enumerate(table.protos) if i != 1]
    assert all(p.status is Status.FINISHED for p in alive)
    assert len({tuple(p.entries) for p in alive}) == 1
    report = audit(tmp_path, alive[0].entries)
    assert report.valid, report.problems  # type: ignore[attr-defined]
    assert [t.ending for t in report.takeovers] == ["left"]  # type: ignore[attr-defined]


class StepRace:
    """The race between a takeover round and the step it is voted in. Once ``start`` says the
    trouble begins at player X's move, X waits while every vote goes round and every escrow share
    is held back; then X makes its part, the shares are let go (so X completes the step before
    any share reaches it), and survivor B, the lowest other survivor, gets X's part only once
    nothing else is left to deliver: after every share. A round decided in that step would then
    be logged by B and not by X."""

    def __init__(
        self, table: LocalTable, alive: tuple[int, ...], start: Callable[[int, GameProtocol], bool]
    ) -> None:
        self.table, self.alive, self.start = table, alive, start
        self.x: tuple[int, str, int] | None = None  # X, the step it owes, and its hand
        self.phase = 0  # 1: the trouble began, X waits; 2: X moved; 3: X's part let through
        self.shares: dict[int, list[SignedMessage]] = {i: [] for i in alive}
        self.for_b: list[SignedMessage] = []
        for i in alive:
            self._hold(i)
        table.choose = self._choose

    @property
    def b(self) -> int:
        assert self.x is not None
        return min(i for i in self.alive if i != self.x[0])

    def _choose(self, player: int, p: GameProtocol) -> bool:
        waits = self.phase == 0 and player in self.alive and p.choice_needed() is not None
        if waits and self.start(player, p):
            self.x = (player, p.step.name, p.step.hand)
            self.phase = 1
            return True  # X waits: the trouble and every vote go round first
        if self.phase == 1 and self.x is not None and player == self.x[0]:
            self.phase = 2
            for i, held in self.shares.items():
                self.table.queue += [(i, m) for m in held]
                held.clear()
            # X moves now, before the shares it is sent are delivered; unless it may not move
            # while the round is open (a roll call: then its lead waits for the round).
            return p.choice_needed() is None
        if self.phase == 2 and self.for_b:
            self.phase = 3
            self.table.queue += [(self.b, m) for m in self.for_b]
            self.for_b.clear()
            return True
        return False

    def _hold(self, i: int) -> None:
        take = self.table.protos[i].receive

        def receive(m: SignedMessage, **kw: bool) -> None:
            env = m.envelope
            if self.phase == 1 and env.kind == "recover":
                self.shares[i].append(m)
                return
            if self.phase == 2 and i == self.b and (env.sender, env.step, env.hand) == self.x:
                self.for_b.append(m)
                return
            take(m, **kw)

        self.table.protos[i].receive = receive  # type: ignore[method-assign]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_leave_in_a_step_that_does_not_wait_on_the_leaver_is_logged_alike_by_all(
    seed: int,
) -> None:
    """Player 1 leaves while another player, X, owes the step, and every survivor votes in that
    step before X plays; then the race (``StepRace``). All three log the same: the step does not
    wait on the leaver, so its round takes nothing over, and the first step that waits on
    player 1 does. (A leave once decided a round in any step: B took the seat over mid-step, X
    after the step, and the two never agreed on a step again.)"""
    table = Table(ONE_HAND, seed=seed)

    def leave(player: int, p: GameProtocol) -> bool:
        if p.step.kind is not StepKind.OPEN or int(p.step.name[5:]) < 9:
            return False
        table.protos[1].quit("p1")
        return True

    race = StepRace(table, (0, 2, 3), leave)
    table.run()
    assert race.phase == 3, race.phase
    alive = [table.protos[i] for i in (0, 2, 3)]
    assert [p.status for p in alive] == [Status.FINISHED] * 3, [p.abort for p in alive]
    assert all(p.table_seats == {1} for p in alive)
    assert len({tuple(p.entries) for p in alive}) == 1


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_seat_gone_at_a_first_lead_is_taken_over_alike_whatever_the_holder_s_timing(
    seed: int,
) -> None:
    """Player 3 is gone when hand 2's first lead begins; the holder of the lead card, X, is slow
    to lead it, and every survivor's clock runs out on player 3 meanwhile, X's too; then the race
    (``StepRace``). The others do not know who holds the card, so the step awaits player 3 there
    and their round would take it over; X knows its own lead makes the step, so at X the round
    changes nothing and X shows no share. No peer recovers the seat in that step, then, and the
    survivors' logs agree."""
    table = DyingTable(ONE_HAND_PLUS, dead=3, hand=2, step="play.0", seed=seed)

    def clocks(player: int, p: GameProtocol) -> bool:
        if (p.step.hand, p.step.name) != (2, "play.0"):
            return False
        for i in (0, 1, 2):
            table.protos[i].give_up_on(3, TIMEOUT)  # X too: its clock runs while it thinks
        return True

    race = StepRace(table, (0, 1, 2), clocks)
    table.play()
    assert race.phase == 3, race.phase
    finished_alike(table, {3})


class SplittingHolder:
    """A hostile holder of 2\u2663 at hand 2's first lead, player 3 being gone there: every
    survivor's clock runs out on player 3, X's too, and the votes go round with every escrow
    share held back; then X signs its lead anyway and gets it to B (the lowest other survivor)
    before anything else, and shows its share to A (the other) alone. Where a holder's lead
    could complete the step after its vote, B completed it while A recovered the seat mid-step:
    two logs, and each peer's clock then on a different honest player."""

    def __init__(self, table: DyingTable) -> None:
        self.table = table
        self.x = -1
        self.phase = 0  # 1: the clocks ran out, X waits; 2: X's lead and share are out
        self.shares: list[tuple[int, SignedMessage]] = []
        for i in (0, 1, 2):
            self._hold(i)
        table.choose = self._choose
        table.route = self._route

    @property
    def a(self) -> int:
        return max(i for i in (0, 1, 2) if i != self.x)

    @property
    def b(self) -> int:
        return min(i for i in (0, 1, 2) if i != self.x)

    def _choose(self, player: int, p: GameProtocol) -> bool:
        at_lead = (p.step.hand, p.step.name) == (2, "play.0") and player != 3
        if self.phase == 0 and at_lead and p.choice_needed() is not None:
            self.x, self.phase = player, 1
            for i in (0, 1, 2):
                self.table.protos[i].give_up_on(3, TIMEOUT)
            return True
        if self.phase == 1 and player == self.x:
            self.phase = 2
            assert p.flow is not None and p.flow.deck is not None
            lead = forge(p, p.flow.deck.show(int(CLUB_2)).to_wire())  # what its lead would be
            body = {"player": 3, "share": p._s.shares[3]}  # shown whatever its round says
            env = Envelope(PROTOCOL_VERSION, GAME_ID, 2, "recover", self.x, p.next_seq,
                           p.step.prev, "recover", body)  # fmt: skip
            self.table.protos[self.b].receive(lead)
            self.table.queue.append((self.a, encode_message(self.table.ids[self.x], env)))
            self.table.queue += self.shares
            self.table.queue += [(j, lead) for j in (0, 1, 2, 3) if j not in (self.x, self.b)]
            return True
        return False

    def _route(self, sender: int, receiver: int, msg: SignedMessage) -> SignedMessage | None:
        shown = sender == self.x and msg.envelope.kind == "recover"
        return None if shown and receiver != self.a else msg

    def _hold(self, i: int) -> None:
        take = self.table.protos[i].receive

        def receive(m: SignedMessage, **kw: bool) -> None:
            if self.phase == 1 and m.envelope.kind == "recover":
                self.shares.append((i, m))
                return
            take(m, **kw)

        self.table.protos[i].receive = receive  # type: ignore[method-assign]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_holder_that_votes_then_leads_to_one_peer_and_shows_its_share_to_another_splits_nothing(
    tmp_path: Path, seed: int
) -> None:
    """``SplittingHolder``. At a roll call a voter takes nobody's lead but as a vote's evidence,
    and every peer, the holder too, awaits the gone seat there: so every survivor decides the
    round alike, takes seat 3 over mid-step (A relays X's share to B), and only then takes X's
    lead. One log, finished, valid in the audit; nobody named."""
    table = DyingTable(ONE_HAND_PLUS, dead=3, hand=2, step="play.0", seed=seed)
    holder = SplittingHolder(table)
    table.play()
    assert holder.phase == 2, holder.phase
    alive = finished_alike(table, {3})
    report = audit(tmp_path, alive[0].entries)
    assert report.valid and report.abort is None, report.problems  # type: ignore[attr-defined]


def test_a_holder_that_says_nolead_while_another_seat_is_gone_is_named_once_that_seat_is_taken_over(
    tmp_path: Path,
) -> None:
    """Player 3 is gone at hand 2's first lead and the holder, X, says ``nolead`` too: every
    survivor has said it, so the roll call awaits player 3 alone, and the clocks take it over.
    Its seat does not hold 2\u2663 either, so every player has now said the card is not its: the
    step completes on the ``nolead``s (it would wait for ever otherwise, with nobody left to
    name), the hand stops, and every survivor names X on the reveals, with one log."""
    table = DyingTable(ONE_HAND_PLUS, dead=3, hand=2, step="play.0", seed=1)
    found: list[int] = []

    def lie(player: int, p: GameProtocol) -> bool:
        at_lead = (p.step.hand, p.step.name) == (2, "play.0") and player != 3
        if found or not at_lead or p.choice_needed() is None:
            return False
        found.append(player)
        env = Envelope(PROTOCOL_VERSION, GAME_ID, 2, NOLEAD, player, p.next_seq, p.step.prev,
                       NOLEAD, {})  # fmt: skip
        send_to_all(table, player, encode_message(table.ids[player], env))
        for q in survivors(table):
            q.roll_call()
        asks = p.choice_needed
        at = p.step.prev
        p.choice_needed = lambda: None if p.step.prev == at else asks()  # type: ignore[method-assign]
        return True  # and it never leads

    table.choose = lie
    table.play()
    (x,) = found
    alive = survivors(table)
    for p in alive:
        assert p.abort is not None and p.abort.termination is Termination.CHEAT_PROVEN, p.step
        assert p.abort.culprit == x and "held it" in p.abort.reason, p.abort
        assert p.table_seats == {3}
    assert len({tuple(p.entries) for p in alive}) == 1
    report = audit(tmp_path, alive[0].entries)
    assert report.valid, report.problems  # type: ignore[attr-defined]


def test_a_seat_that_said_nolead_and_went_is_defended_by_the_peers_that_hold_its_word(
    tmp_path: Path,
) -> None:
    """Player 3 says ``nolead`` at hand 2's first lead and goes at once; its word reaches the
    others but never B, the holder of 2\u2663, whose clock runs out on player 3 there. B, having
    voted, holds its lead until the round is decided; the others await player 3 no longer, so
    no clock of theirs would ever vote: they answer B's vote at once with its ``nolead``, which
    shows it there in that step. The round changes nothing, B leads, and the clocks take player
    3 over at the next step it owes. One log, valid; nobody named."""
    table = DyingTable(ONE_HAND_PLUS, dead=3, hand=2, step="play.0", seed=1)
    done: list[int] = []

    def said_and_went(player: int, p: GameProtocol) -> bool:
        if done or (p.step.hand, p.step.name) != (2, "play.0") or p.choice_needed() is None:
            return False
        done.append(player)  # B, the holder
        take = p.receive

        def receive(m: SignedMessage, **kw: bool) -> None:
            if not (m.envelope.sender == 3 and m.envelope.kind == NOLEAD):
                take(m, **kw)

        p.receive = receive  # type: ignore[method-assign]
        env = Envelope(PROTOCOL_VERSION, GAME_ID, 2, NOLEAD, 3, table.protos[3].next_seq,
                       p.step.prev, NOLEAD, {})  # fmt: skip
        nolead = encode_message(table.ids[3], env)
        for j in (0, 1, 2):
            if j != player:
                table.protos[j].receive(nolead)
        p.give_up_on(3, TIMEOUT)
        return True

    table.choose = said_and_went
    table.play()
    assert done
    alive = finished_alike(table, {3})
    report = audit(tmp_path, alive[0].entries)
    assert report.valid and report.abort is None, report.problems  # type: ignore[attr-defined]
    envs = [decode_frame(e).envelope for e in alive[0].entries]
    lead = next(e for e in envs if (e.hand, e.step) == (2, "play.0"))
    recovered = next(e for e in envs if e.kind == "recover")
    assert recovered.prev != lead.prev  # not at the first lead, where its word was shown


def test_a_slow_seat_that_answers_a_vote_keeps_its_seat() -> None:
    """A survivor's clock runs out on a seat whose part another survivor holds: that survivor
    answers the vote with it, the round changes nothing and no seat is taken over."""
    table = Table(ONE_HAND, seed=2)
    held: list[SignedMessage] = []

    def route(sender: int, receiver: int, msg: SignedMessage) -> SignedMessage | None:
        # Player 3's first play reaches player 1 only; the others wait and vote.
        if sender == 3 and msg.envelope.kind == "play" and not held and receiver != 1:
            return None
        if sender == 3 and msg.envelope.kind == "play" and receiver == 1:
            held.append(msg)
        return msg

    table.route = route
    table.run()
    for p in table.protos:
        if p.status is Status.RUNNING and 3 in p.waiting_for():
            p.give_up_on(3, TIMEOUT)
    table.settle()
    assert all(p.status is Status.FINISHED and not p.table_seats for p in table.protos)
    assert len({tuple(p.entries) for p in table.protos}) == 1


def test_a_survivor_restarted_in_the_round_sends_the_same_vote_again(tmp_path: Path) -> None:
    """Its vote was saved before it left: the restarted peer sends those very bytes, never a
    second, different vote that would be equivocation."""
    table = DyingTable(ONE_HAND, dead=2, hand=1, step="play.6")
    table.run()
    first = table.protos[0]
    first.give_up_on(2, TIMEOUT)
    (vote,) = [m for m in first.drain()[0] if m.envelope.kind == "takeover"]
    table.queue += [(j, vote) for j in (1, 3)]  # it left before the restart
    again = GameProtocol(
        GAME_ID,
        table.ids[0].public_key,
        table.ids[0],
        bytes([9]) * 32,
        choices=first.choices,
        min_proof_rounds=TEST_PROOF_ROUNDS,
    )
    again.resume(first.entries)
    table.protos[0] = again
    (resent,) = [m for m in again.drain()[0] if m.envelope.kind == "takeover"]
    assert resent.raw == vote.raw
    table.settle()
    table.expire()
    alive = survivors(table)
    assert all(p.status is Status.FINISHED and p.table_seats == {2} for p in alive)
    assert len({tuple(p.entries) for p in alive}) == 1


def test_two_players_leaving_one_after_the_other_are_both_taken_over(tmp_path: Path) -> None:
    """The second takeover needs the first leaver's share too: every peer opens that box
    itself, with the first leaver's recovered key."""
    table = Table(ONE_HAND, seed=6)
    leaves = {1: "play.5", 3: "play.22"}

    def choose(player: int, p: GameProtocol) -> bool:
        if leaves.get(player) == p.step.name and p.status is Status.RUNNING:
            p.quit(f"p{player}")
            return True
        return False

    table.choose = choose
    table.run()
    alive = [table.protos[0], table.protos[2]]
    for p in alive:
        assert p.status is Status.FINISHED and p.table_seats == {1, 3}, (p.step, p.abort)
    assert alive[0].entries == alive[1].entries
    report = audit(tmp_path, alive[0].entries)
    assert report.valid, report.problems  # type: ignore[attr-defined]
    assert [t.ending for t in report.takeovers] == ["left", "left"]  # type: ignore[attr-defined]


@pytest.mark.parametrize(("options", "step"), [({}, "expose"), ({"expose_all": True}, "play.3")])
def test_a_gong_zhu_seat_is_taken_over_too(
    options: dict[str, bool], step: str, tmp_path: Path
) -> None:
    """The table's seat exposes no more than it must, and plays on; one log, audited valid."""
    rules = Rules(game=GameKind.GONGZHU, limit=150, **options)
    table = DyingTable(rules, dead=2, hand=1, step=step, seed=2)
    table.play()
    assert table.died
    alive = survivors(table)
    assert all(p.status is Status.FINISHED and p.table_seats == {2} for p in alive)
    assert len({tuple(p.entries) for p in alive}) == 1
    report = audit(tmp_path, alive[0].entries)
    assert report.valid, report.problems  # type: ignore[attr-defined]
