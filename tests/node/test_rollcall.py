"""The first lead's roll call, in memory: no peer knows who holds 2♣, so when the first lead
waits past the timeout each other seat says the card is not its (``nolead``). A holder that
never leads is then the one left, taken over; a holder that says ``nolead`` too is named by
the hand's reveals; one that also leads signed two messages for one step. An honest game's log
is the same bytes with or without a roll call, and no honest seat is ever named."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hearts_p2p.cards import CLUB_2
from hearts_p2p.engine import HandPhase, PassCards
from hearts_p2p.game import GameProtocol, Status, Termination
from hearts_p2p.game.abort import ONE_STEP
from hearts_p2p.game.rollcall import NOLEAD
from hearts_p2p.rules import GameKind, Rules
from hearts_p2p.wire import PROTOCOL_VERSION, Envelope, SignedMessage, decode_frame, encode_message

from .table import GAME_ID, Table
from .test_gongzhu_exposure import Exposing
from .test_takeover import DyingTable, audit, survivors

RULES = Rules(players=4, target=20)
SEED = 3


def leader() -> int:
    """The player who leads 2♣ in hand 1 of the seeded game."""
    rehearsal = Table(RULES, seed=SEED)
    rehearsal.run()
    envs = [decode_frame(e).envelope for e in rehearsal.protos[0].entries]
    return next(e.sender for e in envs if e.kind == "play" and e.step == "play.0" and e.hand == 1)


def nolead_of(table: Table, player: int, prev: bytes, seq: int) -> SignedMessage:
    """A ``nolead`` signed by ``player`` for the first lead of hand 1 (the step at ``prev``),
    whatever its own client did: what a hostile holder sends."""
    env = Envelope(PROTOCOL_VERSION, GAME_ID, 1, NOLEAD, player, seq, prev, NOLEAD, {})
    return encode_message(table.ids[player], env)


def at_first_lead(p: GameProtocol) -> bool:
    return p.step.hand == 1 and p.step.name == "play.0"


def found_and_taken_over(
    tmp_path: Path,
    table: Table,
    alive: list[GameProtocol],
    lead: int,
    expire: Callable[[], None],
    taken: frozenset[int] = frozenset(),
) -> None:
    """Every survivor's clock runs out on the first lead: each says ``nolead``, the holder is
    the one left awaited, and ``expire`` (the clocks running out on it) has the table take it
    over, beside the seats ``taken`` before; one log, valid, naming no one."""
    for p in alive:
        assert p.roll_call()
    table.settle()
    assert all(p.waiting_for() == [lead] for p in alive)
    expire()
    for p in alive:
        assert p.status is Status.FINISHED and p.table_seats == {lead, *taken}, p.abort
    assert len({tuple(p.entries) for p in alive}) == 1
    report = audit(tmp_path, alive[0].entries)
    assert report.valid and report.abort is None, report.problems  # type: ignore[attr-defined]


def everyone_says_nolead(table: Table, alive: list[GameProtocol], lead: int) -> None:
    """Each survivor's clock runs out on the first lead and it says ``nolead``; the holder's
    ``nolead`` (a lie) reaches each of them too."""
    lie = nolead_of(table, lead, alive[0].step.prev, table.protos[lead].next_seq)
    for p in alive:
        p.roll_call()
        p.receive(lie)


def liar_named(tmp_path: Path, table: DyingTable, alive: list[GameProtocol], lead: int) -> Any:
    """The table settles and the clocks run out on the liar: every survivor proves it held 2♣,
    one log, valid in the audit (returned)."""
    table.settle()
    table.expire()
    for p in alive:
        assert p.abort is not None and p.abort.termination is Termination.CHEAT_PROVEN, p.step
        assert p.abort.culprit == lead and "held it" in p.abort.reason, p.abort
    assert len({tuple(p.entries) for p in alive}) == 1
    report = audit(tmp_path, alive[0].entries)
    assert report.valid, report.problems
    return report


def test_noleads_said_before_the_holder_leads_leave_the_log_as_it_was() -> None:
    """Every other seat's clock runs out just before the holder leads: the game goes on, and
    every log is byte for byte the log of the same game without a roll call."""
    plain = Table(RULES, seed=SEED)
    plain.run()
    called = Table(RULES, seed=SEED)
    said: list[int] = []

    def roll(i: int, p: GameProtocol) -> bool:
        if at_first_lead(p) and p.roll_call():
            said.append(i)
        return False

    called.choose = roll
    called.run()
    assert len(said) == 3
    assert all(p.status is Status.FINISHED for p in called.protos)
    assert [p.entries for p in called.protos] == [p.entries for p in plain.protos]


def test_a_holder_that_never_leads_is_found_by_the_roll_call_and_taken_over(
    tmp_path: Path,
) -> None:
    """The holder stops for good before its lead and every link stays up (no gone clock): the
    others' noleads leave it the one awaited, their clocks name it, the table takes its seat
    over and leads 2♣ for it; one log, valid, naming no one."""
    lead = leader()
    table = DyingTable(RULES, dead=lead, hand=1, step="play.0", seed=SEED)
    table.run()
    alive = survivors(table)
    assert all(p.waiting_for() == [0, 1, 2, 3] for p in alive)  # anyone may hold it
    found_and_taken_over(tmp_path, table, alive, lead, table.expire)


def test_a_holder_that_says_the_card_is_not_its_is_named_by_the_reveals(tmp_path: Path) -> None:
    """The holder says nolead too and never leads: every player has said it, so the noleads
    are the step's parts and the hand stops; the reveals (the holder's computed by the table,
    which takes it over when it does not reveal) show 2♣ in its hand: every honest peer names
    it alone, with one log, and the audit agrees."""
    lead = leader()
    table = DyingTable(RULES, dead=lead, hand=1, step="play.0", seed=SEED)
    table.run()
    alive = survivors(table)
    everyone_says_nolead(table, alive, lead)
    report = liar_named(tmp_path, table, alive, lead)
    kinds = [decode_frame(e).envelope.kind for e in alive[0].entries]
    assert kinds.count("nolead") == 4  # the step's parts, in the log
    name = table.protos[0].genesis.players[lead].name  # type: ignore[union-attr]
    assert report.abort.blamed.endswith(f"({name})")


def test_a_holder_that_leads_for_some_and_says_nolead_to_others_is_named_everywhere() -> None:
    """The holder's lead reaches one peer and its nolead the others: two messages for one step,
    each peer ends on the pair once relays bring both, and every honest log is the same."""
    lead = leader()
    first = next(i for i in range(4) if i != lead)
    table = Table(RULES, seed=SEED)
    lie: list[SignedMessage] = []

    def split(i: int, j: int, msg: SignedMessage) -> SignedMessage | None:
        if i != lead or not (msg.envelope.hand == 1 and msg.envelope.step == "play.0"):
            return msg
        if not lie:
            lie.append(nolead_of(table, lead, msg.envelope.prev, msg.envelope.seq))
            for k in range(4):
                if k not in (lead, first):
                    table.queue.append((k, lie[0]))
        return msg if j == first else None

    table.route = split
    table.run()
    honest = [p for i, p in enumerate(table.protos) if i != lead]
    for p in honest:
        assert p.abort is not None and p.abort.termination is Termination.CHEAT_PROVEN, p.step
        assert p.abort.culprit == lead, p.abort
    assert len({tuple(p.entries) for p in honest}) == 1


def test_a_holder_that_says_nolead_twice_under_two_numbers_is_named_everywhere(
    tmp_path: Path,
) -> None:
    """The holder never leads, and says ``nolead`` to one peer under its next number and to
    the others under a later one: two messages for one step, which relays bring together at
    every peer, whichever it took first. Every honest peer names the holder alone on the same
    pair, their logs are the same bytes, and the audit agrees."""
    lead = leader()
    table = DyingTable(RULES, dead=lead, hand=1, step="play.0", seed=SEED)
    table.run()
    alive = survivors(table)
    seq = table.protos[lead].next_seq
    lies = [nolead_of(table, lead, alive[0].step.prev, n) for n in (seq, seq + 3)]
    for i, p in enumerate(alive):
        p.roll_call()
        p.receive(lies[0] if i == 0 else lies[1])
    table.settle()
    table.expire()
    for p in alive:
        assert p.status is Status.ABORTED, p.step
        assert p.abort is not None and p.abort.termination is Termination.CHEAT_PROVEN
        assert p.abort.culprit == lead and p.abort.reason == ONE_STEP, p.abort
    assert len({tuple(p.entries) for p in alive}) == 1
    report = audit(tmp_path, alive[0].entries)
    assert report.valid, report.problems  # type: ignore[attr-defined]
    name = table.protos[0].genesis.players[lead].name  # type: ignore[union-attr]
    assert report.abort.blamed.endswith(f"({name})")  # type: ignore[attr-defined]


def passes_the_lead_card(i: int, p: GameProtocol) -> bool:
    """A seat holding 2♣ in hand 1 passes it, with its two highest cards: the seat it passes
    to leads, and the passer knows that, as the two other seats do not."""
    view = p.choice_needed()
    if view is None or view.hand_number != 1 or view.phase is not HandPhase.PASSING:
        return False
    if CLUB_2 not in view.hand:
        return False
    p.submit(PassCards((CLUB_2, *view.hand[-2:])))
    return True


def given_2c_by_a_pass() -> tuple[int, DyingTable, list[GameProtocol]]:
    """Hand 1 with 2♣ passed (``passes_the_lead_card``), its holder stopped for good before
    its lead: the holder, the table, and the survivors, at the first lead."""
    rehearsal = Table(RULES, seed=SEED)
    rehearsal.choose = passes_the_lead_card
    rehearsal.run()
    envs = [decode_frame(e).envelope for e in rehearsal.protos[0].entries]
    lead = next(e.sender for e in envs if e.kind == "play" and e.step == "play.0" and e.hand == 1)
    table = DyingTable(RULES, dead=lead, hand=1, step="play.0", seed=SEED)
    table.choose = passes_the_lead_card
    table.run()
    return lead, table, survivors(table)


def test_a_holder_given_2c_by_a_pass_that_never_leads_is_found_by_every_peer_alike(
    tmp_path: Path,
) -> None:
    """The seat that passed 2♣ knows who leads; the other two do not. All three run the roll
    call alike: the passer says ``nolead`` too, so the others are left awaiting the holder
    alone, and every clock names it; one log, valid, naming no one."""
    lead, table, alive = given_2c_by_a_pass()
    knowers = [p for p in alive if not p.step.any_one]
    assert len(knowers) == 1  # the passer: its first lead awaits the holder alone
    found_and_taken_over(tmp_path, table, alive, lead, table.expire)  # the passer too


def test_a_holder_given_2c_by_a_pass_that_lies_is_named_by_every_peer_alike(
    tmp_path: Path,
) -> None:
    """The same, the holder saying ``nolead`` too: the passer, which knows it lies, completes
    the step with the four ``nolead``s as the others do, and every peer names the holder on
    the reveals, one log."""
    lead, table, alive = given_2c_by_a_pass()
    everyone_says_nolead(table, alive, lead)
    liar_named(tmp_path, table, alive, lead)


class Deaths(Table):
    """A table where each player of ``deaths`` stops for good (sends and relays nothing) once
    its game reaches its (hand, step), or it would send for it."""

    def __init__(
        self, rules: Rules, deaths: dict[int, tuple[int, str]], seed: int, deal: int = 0
    ) -> None:
        super().__init__(rules, seed=seed, deal=deal)
        self.deaths = deaths
        self.dead: set[int] = set()
        self.tamper = self._die

    def _die(self, i: int, msg: SignedMessage) -> SignedMessage | None:
        if (msg.envelope.hand, msg.envelope.step) == self.deaths.get(i):
            self.dead.add(i)
        return None if i in self.dead else msg

    def _send(self, i: int, p: GameProtocol) -> None:
        if (p.step.hand, p.step.name) == self.deaths.get(i):
            self.dead.add(i)
        if i in self.dead:
            self.drain(i, p)
            p.take_relays()
            return
        super()._send(i, p)

    def alive(self) -> list[GameProtocol]:
        return [p for i, p in enumerate(self.protos) if i not in self.deaths]

    def expire(self, on: int) -> None:
        """Each living peer's clock runs out on dead ``on`` while it waits for it."""
        for _ in range(20):
            gone = False
            for p in (p for i, p in enumerate(self.protos) if i not in self.dead):
                waiting = [d for d in p.waiting_for() if d == on and d in self.dead]
                if p.status is Status.RUNNING and waiting:
                    p.give_up_on(waiting[0], 120)
                    gone = True
            if not gone:
                return
            self.settle()


def test_a_seat_the_table_plays_is_not_awaited_at_a_first_lead_the_holder_never_makes(
    tmp_path: Path,
) -> None:
    """A seat taken over in hand 1 holds no 2♣ in hand 2, whose holder never leads: every peer
    knows the table seat's cards, so the roll call awaits only the players; the holder is the one
    left, and the table takes it over too. One log, valid, naming no one."""
    rules = Rules(players=4, target=40)
    rehearsal = Table(rules, seed=SEED)
    rehearsal.run()
    envs = [decode_frame(e).envelope for e in rehearsal.protos[0].entries]
    leads = {e.hand: e.sender for e in envs if e.kind == "play" and e.step == "play.0"}
    lead = leads[2]
    plays = [e for e in envs if e.hand == 1 and e.kind == "play" and e.step != "play.0"]
    first = next(e for e in plays if e.sender not in (leads[1], lead))
    taken = first.sender
    table = Deaths(rules, {taken: (1, first.step), lead: (2, "play.0")}, seed=SEED)
    table.run()
    table.expire(on=taken)  # taken over in hand 1; hand 2 waits on its first lead
    alive = table.alive()
    assert all(p.step.hand == 2 and p.step.name == "play.0" for p in alive), [p.step for p in alive]
    assert all(p.table_seats == {taken} for p in alive)
    found_and_taken_over(
        tmp_path, table, alive, lead, lambda: table.expire(on=lead), frozenset({taken})
    )


@pytest.mark.parametrize("first", [0, 1, 2])
def test_a_liar_gone_right_after_its_nolead_is_named_alike_whatever_comes_first(
    tmp_path: Path, first: int
) -> None:
    """The holder says ``nolead`` and its links drop at once: two survivors' gone clocks vote on
    it before the roll call's ``nolead``s reach them, the third (``first``) completes the step
    on them before any vote. Every peer still names the holder on the reveals, one log."""
    lead = leader()
    table = DyingTable(RULES, dead=lead, hand=1, step="play.0", seed=SEED)
    table.run()
    alive = survivors(table)
    everyone_says_nolead(table, alive, lead)
    for k, p in enumerate(alive):
        if k != first:
            p.give_up_on(lead, 120)
    liar_named(tmp_path, table, alive, lead)


FORCE_FOURTH = Rules(game=GameKind.GONGZHU, limit=300, force_fourth=True)


def fourth_card_table() -> tuple[int, Deaths]:
    """A Gong Zhu game under 逼明 whose hand 1 puts three exposable cards out (deal 0, the
    first that does): the fourth card's holder stops for good at its ``expose_fourth``."""
    rehearsal = Table(FORCE_FOURTH, seed=2)
    rehearsal.seats = [Exposing(bot, most=i != 3) for i, bot in enumerate(rehearsal.seats)]
    rehearsal.run()
    envs = [decode_frame(e).envelope for e in rehearsal.protos[0].entries]
    holder = next(e.sender for e in envs if (e.hand, e.step) == (1, "expose_fourth"))
    table = Deaths(FORCE_FOURTH, {holder: (1, "expose_fourth")}, seed=2)
    table.seats = [Exposing(bot, most=i != 3) for i, bot in enumerate(table.seats)]
    table.run()
    assert all(p.step.name == "expose_fourth" for p in table.alive())
    return holder, table


def test_a_fourth_card_holder_that_never_shows_it_is_found_by_the_roll_call(
    tmp_path: Path,
) -> None:
    """Gong Zhu's 逼明: only the fourth card's holder knows it must show it, so the step waits on
    every player, and a clock run out there named whoever came first. Now each other seat says
    ``nolead``; the holder is the one left, the table takes it over and shows the card for it.
    One log, valid, naming no one."""
    holder, table = fourth_card_table()
    alive = table.alive()
    assert all(not p.waiting_on_machines() for p in alive)  # no clock names one of many
    found_and_taken_over(tmp_path, table, alive, holder, lambda: table.expire(on=holder))


def test_a_fourth_card_holder_that_says_it_is_not_its_is_named_by_the_reveals(
    tmp_path: Path,
) -> None:
    """The fourth card's holder says ``nolead`` too: every player has, the hand stops, every
    seat reveals, and every peer names the holder for the card its hand held."""
    holder, table = fourth_card_table()
    alive = table.alive()
    everyone_says_nolead(table, alive, holder)
    table.settle()
    table.expire(on=holder)
    for p in alive:
        assert p.abort is not None and p.abort.termination is Termination.CHEAT_PROVEN, p.step
        assert p.abort.culprit == holder and "did not hold" in p.abort.reason, p.abort
        assert "and held it" in p.abort.reason and "2♣" not in p.abort.reason, p.abort
    assert len({tuple(p.entries) for p in alive}) == 1
    report = audit(tmp_path, alive[0].entries)
    assert report.valid, report.problems


def test_a_seat_gone_at_the_fourth_exposure_is_voted_on_while_the_holder_already_showed_it(
    tmp_path: Path,
) -> None:
    """Gong Zhu's 逼明, with another seat than the fourth card's holder gone at that step. The
    holder shows the card at once and moves on, but its exposure is slow to reach the others,
    whose clocks run out on the gone seat meanwhile: they vote, and so take no exposure of that
    step but as a vote's evidence. The holder answers their votes with its exposure, whoever
    the vote is about; the step completes alike everywhere, and the gone seat is taken over at
    a later step. One log, valid, naming no one."""
    rehearsal = Table(FORCE_FOURTH, seed=2)
    rehearsal.seats = [Exposing(bot, most=i != 3) for i, bot in enumerate(rehearsal.seats)]
    rehearsal.run()
    envs = [decode_frame(e).envelope for e in rehearsal.protos[0].entries]
    holder = next(e.sender for e in envs if (e.hand, e.step) == (1, "expose_fourth"))
    gone = next(i for i in range(4) if i != holder)
    table = Deaths(FORCE_FOURTH, {gone: (1, "expose_fourth")}, seed=2)
    table.seats = [Exposing(bot, most=i != 3) for i, bot in enumerate(table.seats)]
    held: list[tuple[int, SignedMessage]] = []

    def slow(sender: int, receiver: int, msg: SignedMessage) -> SignedMessage | None:
        if sender == holder and msg.envelope.step == "expose_fourth":
            held.append((receiver, msg))
            return None
        return msg

    table.route = slow
    table.run()
    assert held
    others = [p for i, p in enumerate(table.protos) if i not in (holder, gone)]
    assert all(p.step.name == "expose_fourth" for p in others), [p.step for p in others]
    for p in others:
        p.give_up_on(gone, 120)
    table.settle()
    assert all(p.step.name != "expose_fourth" for p in others)  # completed by the answer
    table.queue += held  # the slow copies come at last: nothing more
    table.route = None
    table.settle()
    table.expire(on=gone)
    alive = table.alive()
    assert [p.status for p in alive] == [Status.FINISHED] * 3, [p.abort for p in alive]
    assert all(p.table_seats == {gone} for p in alive)
    assert len({tuple(p.entries) for p in alive}) == 1
    report = audit(tmp_path, alive[0].entries)
    assert report.valid and report.abort is None, report.problems
