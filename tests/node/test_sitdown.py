"""A newcomer takes an open seat, in memory: a peer dies for good, the table takes its seat
over, and another identity, following the game as a watcher, asks for that seat and holds it
from the next hand boundary on, re-keyed like a return; every log is the same and audits
valid, and the audit lists who took which seat from which hand."""

from __future__ import annotations

from collections import deque
from pathlib import Path

from hearts_p2p.audit import AuditReport
from hearts_p2p.game import GameProtocol, Status
from hearts_p2p.game.events import SeatTaken, SitAsked
from hearts_p2p.identity import Identity
from hearts_p2p.rules import OpenSeats, Rules
from hearts_p2p.wire import decode_frame

from .table import GAME_ID
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
        kim = GameProtocol(GAME_ID, self.ids[0].public_key, self.newcomer, KIM_SECRET)
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
