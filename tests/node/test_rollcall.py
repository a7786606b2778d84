"""The first lead's roll call, in memory: no peer knows who holds 2♣, so when the first lead
waits past the timeout each other seat says the card is not its (``nolead``). A holder that
never leads is then the one left, taken over; a holder that says ``nolead`` too is named by
the hand's reveals; one that also leads signed two messages for one step. An honest game's log
is the same bytes with or without a roll call, and no honest seat is ever named."""

from __future__ import annotations

from pathlib import Path

from hearts_p2p.game import GameProtocol, Status, Termination
from hearts_p2p.game.abort import ONE_STEP
from hearts_p2p.game.rollcall import NOLEAD
from hearts_p2p.rules import Rules
from hearts_p2p.wire import PROTOCOL_VERSION, Envelope, SignedMessage, decode_frame, encode_message

from .table import GAME_ID, Table
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
    for p in alive:
        assert p.roll_call()
    table.settle()
    assert all(p.waiting_for() == [lead] for p in alive)
    table.expire()
    for p in alive:
        assert p.status is Status.FINISHED and p.table_seats == {lead}, p.abort
    assert len({tuple(p.entries) for p in alive}) == 1
    report = audit(tmp_path, alive[0].entries)
    assert report.valid and report.abort is None, report.problems  # type: ignore[attr-defined]


def test_a_holder_that_says_the_card_is_not_its_is_named_by_the_reveals(tmp_path: Path) -> None:
    """The holder says nolead too and never leads: every player has said it, so the noleads
    are the step's parts and the hand stops; the reveals (the holder's computed by the table,
    which takes it over when it does not reveal) show 2♣ in its hand: every honest peer names
    it alone, with one log, and the audit agrees."""
    lead = leader()
    table = DyingTable(RULES, dead=lead, hand=1, step="play.0", seed=SEED)
    table.run()
    alive = survivors(table)
    lie = nolead_of(table, lead, alive[0].step.prev, table.protos[lead].next_seq)
    for p in alive:
        p.roll_call()
        p.receive(lie)
    table.settle()
    table.expire()
    for p in alive:
        assert p.status is Status.ABORTED, p.step
        assert p.abort is not None and p.abort.termination is Termination.CHEAT_PROVEN
        assert p.abort.culprit == lead and "held it" in p.abort.reason, p.abort
    assert len({tuple(p.entries) for p in alive}) == 1
    kinds = [decode_frame(e).envelope.kind for e in alive[0].entries]
    assert kinds.count("nolead") == 4  # the step's parts, in the log
    report = audit(tmp_path, alive[0].entries)
    assert report.valid, report.problems  # type: ignore[attr-defined]
    name = table.protos[0].genesis.players[lead].name  # type: ignore[union-attr]
    assert report.abort.blamed.endswith(f"({name})")  # type: ignore[attr-defined]


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
