"""A newcomer takes an open seat, in memory: a peer dies for good, the table takes its seat
over, and another identity, following the game as a watcher, asks for that seat and holds it
from the next hand boundary on, re-keyed like a return; every log is the same and audits
valid, and the audit lists who took which seat from which hand."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from hearts_p2p.audit import AuditReport
from hearts_p2p.game import GameProtocol, Status
from hearts_p2p.game.events import SeatTaken, SitAsked
from hearts_p2p.game.keys import pass_public_key
from hearts_p2p.game.sitdown import next_hand
from hearts_p2p.identity import Identity
from hearts_p2p.rules import OpenSeats, Rules
from hearts_p2p.wire import PROTOCOL_VERSION, Envelope, SignedMessage, decode_frame, encode_message

from .table import GAME_ID, TEST_PROOF_ROUNDS
from .test_comeback import ComebackTable
from .test_takeover import audit

KIM = Identity.from_seed(bytes([200]) * 32)
KIM_SECRET = bytes([201]) * 32


class SitdownTable(ComebackTable):
    """Player ``dead`` dies at ``hand``'s ``step``; once the others play its seat and have
    reached hand ``rerun``, the newcomer Kim connects, is caught up from the log by one peer as
    a sync does, and asks for that seat."""

    def __init__(self, rules: Rules, dead: int = 2, hand: int = 1, step: str = "play.9",
                 rerun: int = 2, newcomer: Identity = KIM) -> None:  # fmt: skip
        super().__init__(dead=dead, hand=hand, step=step, rerun=rerun, fresh=None, rules=rules)
        self.newcomer = newcomer
        self.asked_seat = False

    def _maybe_rerun(self, i: int, p: GameProtocol) -> bool:
        kim = self.reborn
        if kim is not None and not self.asked_seat and self.dead in kim.table_seats:
            self.asked_seat = True
            kim.ask_seat(self.dead, "Kim", True)
            return True
        if self.reborn is not None or i == self.dead or self.dead not in p.table_seats:
            return False
        if p.game is None or p.game.number < self.rerun:
            return False
        kim = GameProtocol(
            GAME_ID,
            self.ids[0].public_key,
            self.newcomer,
            KIM_SECRET,
            min_proof_rounds=TEST_PROOF_ROUNDS,
        )
        self.reborn = self.protos[self.dead] = kim
        for link in [k for k in self.links if k[1] == self.dead]:
            del self.links[link]
        self.links[(i, self.dead)] = deque([decode_frame(raw) for raw in p.entries] + p.pending())
        return True


def test_a_newcomer_takes_an_open_seat_at_the_next_hand_and_plays_to_the_end(
    tmp_path: Path,
) -> None:
    """At an ``anyone`` table, Kim asks during hand 2 and holds seat 2's player from hand 3:
    every peer, Kim included, finishes with one log the audit finds valid, listing the sit."""
    table = SitdownTable(Rules(target=40, open_seats=OpenSeats.ANYONE))
    table.play()
    kim = table.reborn
    assert kim is not None and table.asked_seat
    for p in table.protos:
        assert p.status is Status.FINISHED and not p.table_seats, (p.step, p.abort)
    assert len({tuple(p.entries) for p in table.protos}) == 1
    assert kim.me == 2 and kim.holders[2].name == "Kim"
    taken = [e for e in table.events[0] if isinstance(e, SeatTaken)]
    assert [(e.name, e.was, e.hand) for e in taken] == [("Kim", "p2", 3)]
    assert any(isinstance(e, SitAsked) for e in table.events[1])
    last = [decode_frame(raw).envelope for raw in kim.entries[-40:]]
    assert any(e.sender == 2 and e.kind == "play" for e in last)
    report = audit(tmp_path, kim.entries)
    assert isinstance(report, AuditReport) and report.valid, report.problems
    assert [(s.name, s.seat, s.hand, s.was, s.taken) for s in report.sits] == [
        ("Kim", kim.my_seat, 3, "p2", True)
    ]
    assert report.to_json()["sits"][0]["fingerprint"] == taken[0].fingerprint


ANYONE = Rules(target=40, open_seats=OpenSeats.ANYONE)
ASK = Rules(target=40, open_seats=OpenSeats.ASK)


def finish_alike(table: SitdownTable, tmp_path: Path, *, seated: bool) -> AuditReport:
    """Every peer finishes with one log the audit finds valid, naming nobody; Kim holds seat
    2's player (``seated``) or the table plays it to the end."""
    for p in table.protos:
        assert p.status is Status.FINISHED, (p.step, p.abort)
        assert p.table_seats == (frozenset() if seated else {2}), p.table_seats
    assert len({tuple(p.entries) for p in table.protos}) == 1
    report = audit(tmp_path, table.protos[0].entries)
    assert isinstance(report, AuditReport) and report.valid, report.problems
    assert [s.taken for s in report.sits if s.taken] == ([True] if seated else [])
    return report


def _answering(
    table: SitdownTable, answers: tuple[bool, ...]
) -> Callable[[int, GameProtocol], bool]:
    """Kim's arrival, then players 0, 1 and 3 answering its ask with ``answers``."""
    first = table._maybe_rerun

    def consent(i: int, p: GameProtocol) -> bool:
        if table.reborn is None and first(i, p):
            for j, yes in zip((0, 1, 3), answers, strict=True):
                table.protos[j].consent(KIM.public_key, yes)
            return True
        return first(i, p)

    return consent


def test_at_an_ask_table_every_seated_player_consents_or_the_seat_stays_the_tables(
    tmp_path: Path,
) -> None:
    """``ask``: with every seated player's yes Kim sits; one no (or no answer) keeps the seat
    the table's to the end, the game finishing all the same, nobody blamed."""
    for answers, seated in (((True, True, True), True), ((True, False, True), False)):
        table = SitdownTable(ASK)

        table.choose = _answering(table, answers)
        table.play()
        finish_alike(table, tmp_path / str(seated), seated=seated)
        assert (table.reborn is not None and table.reborn.me == 2) is seated


LEE = Identity.from_seed(bytes([210]) * 32)
MALLORY = Identity.from_seed(bytes([220]) * 32)


def sit_frame(p: GameProtocol, signer: Identity, **changes: Any) -> SignedMessage:
    """A sit for seat 2's player as ``p`` (a seated peer) would take one for the coming hand,
    signed by ``signer``, with ``changes`` to its envelope or (``body``) its body."""
    s = p._s
    body = {"key": signer.public_key, "name": "Lee", "bot": True,
            "dh": pass_public_key(bytes([99]) * 32), **changes.pop("body", {})}  # fmt: skip
    env = Envelope(PROTOCOL_VERSION, GAME_ID, next_hand(s), "sit", 2, s.next_seq[2] + 1,
                   s.step.prev, "sit", body)  # fmt: skip
    return encode_message(signer, replace(env, **changes))


class InjectingTable(SitdownTable):
    """A sitdown table where ``inject`` gives frames every peer receives as Kim connects (and
    Kim is left out when ``kim`` is False: only the injected frames ask)."""

    def __init__(self, rules: Rules, inject: Callable[[GameProtocol], list[SignedMessage]],
                 kim: bool = True) -> None:  # fmt: skip
        super().__init__(rules)
        self.inject = inject
        self.kim = kim
        self.injected = False

    def _maybe_rerun(self, i: int, p: GameProtocol) -> bool:
        if self.injected or i == self.dead or self.dead not in p.table_seats:
            return super()._maybe_rerun(i, p) if self.kim else False
        if p.game is None or p.game.number < self.rerun:
            return False
        self.injected = True
        self.queue += [(j, m) for m in self.inject(p) for j in (0, 1, 3)]
        return (super()._maybe_rerun(i, p) if self.kim else False) or True


def _second_seat(p: GameProtocol) -> SignedMessage:
    assert p.identity is not None
    return sit_frame(p, p.identity, body={"key": p.identity.public_key})


FORGED: dict[str, Callable[[GameProtocol], SignedMessage]] = {
    "wrong-signature": lambda p: sit_frame(p, MALLORY, body={"key": LEE.public_key}),
    "another-game": lambda p: sit_frame(p, LEE, game_id=bytes(16)),
    "another-hand": lambda p: sit_frame(p, LEE, hand=next_hand(p._s) - 1),
    "a-later-hand": lambda p: sit_frame(p, LEE, hand=next_hand(p._s) + 1),
    "a-second-seat": _second_seat,
    "low-order-key": lambda p: sit_frame(p, LEE, body={"dh": bytes(32)}),
}


def test_a_forged_or_replayed_sit_is_dropped_by_every_peer(tmp_path: Path) -> None:
    """A sit in another's name, from another game or hand, by a seated player for a second
    seat, or with a key every box to it could be read with, all delivered to every peer: no
    peer holds or carries any, the table plays the seat to the end, one log, valid, nobody
    named."""
    table = InjectingTable(ANYONE, lambda p: [forge(p) for forge in FORGED.values()], kim=False)
    table.play()
    assert table.injected
    finish_alike(table, tmp_path, seated=False)
    assert not [e for i in (0, 1, 3) for e in table.events[i] if isinstance(e, SitAsked)]


def test_no_open_seats_by_default_a_sit_is_dropped(tmp_path: Path) -> None:
    """The default rule is ``no`` (left out of the rules map): Kim's node signs no sit, and a
    well-formed sit of Lee's delivered to every peer is dropped: the table plays the seat to
    the end."""
    assert "open_seats" not in Rules(target=40).to_dict()
    table = InjectingTable(Rules(target=40), lambda p: [sit_frame(p, LEE)])
    table.play()
    assert table.injected and table.asked_seat
    finish_alike(table, tmp_path, seated=False)
    assert not [m for m in table.sent if m.envelope.kind == "sit"]
    assert not [e for i in (0, 1, 3) for e in table.events[i] if isinstance(e, SitAsked)]


def test_two_strangers_for_one_seat_sit_one_at_a_time_and_one_that_never_rejoins_costs_a_hand(
    tmp_path: Path,
) -> None:
    """Lee asks too but has no node to rejoin with: whichever frame counts first, the table
    waits its timeout at most once for Lee, and Kim holds the seat from a later boundary."""
    table = InjectingTable(ANYONE, lambda p: [sit_frame(p, LEE)])
    table.play()
    report = finish_alike(table, tmp_path, seated=True)
    assert [s.name for s in report.sits if s.taken] == ["Kim"]
    assert table.reborn is not None and table.reborn.me == 2


def test_a_stranger_asking_twice_sits_once(tmp_path: Path) -> None:
    """Kim's second sit for the same hand, with another fresh key: one of the two counts; a
    frame it did not sit with makes it no rejoin (a boundary lost), then it sits."""
    table = InjectingTable(ANYONE, lambda p: [sit_frame(p, KIM, body={"name": "Kim"})])
    table.play()
    report = finish_alike(table, tmp_path, seated=True)
    assert [s.name for s in report.sits if s.taken] == ["Kim"]


class LeavingAgainTable(SitdownTable):
    """Kim sits, then stops for good at hand ``again``'s shuffle."""

    def __init__(self, again: int) -> None:
        super().__init__(ANYONE)
        self.again = again
        self.gone = False

    def _send(self, i: int, p: GameProtocol) -> None:
        if i == self.dead and p is self.reborn and p.me == 2 and p.step.hand >= self.again:
            self.gone = True
        if self.gone and i == self.dead:
            self.drain(i, p)
            p.take_relays()
            return
        super()._send(i, p)


def test_a_newcomer_that_leaves_again_is_taken_over_from_its_new_escrow(tmp_path: Path) -> None:
    """Kim sits at hand 3 and goes silent in the next deck's steps: the survivors recover its
    fresh secret from the escrow of its rejoin and play its seat to the end, nobody blamed."""
    table = LeavingAgainTable(again=4)
    table.play()
    assert table.gone
    alive = [table.protos[i] for i in (0, 1, 3)]
    for p in alive:
        assert p.status is Status.FINISHED and p.table_seats == {2}, (p.step, p.abort)
    assert len({tuple(p.entries) for p in alive}) == 1
    report = audit(tmp_path, alive[0].entries)
    assert isinstance(report, AuditReport) and report.valid, report.problems
    assert (report.takeovers[0].name, report.takeovers[0].hand) == ("p2", 1)
    assert [(t.name, t.hand >= 3) for t in report.takeovers[1:]] == [("Kim", True)]
    assert [s.name for s in report.sits if s.taken] == ["Kim"]
