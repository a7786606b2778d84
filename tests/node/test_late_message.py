"""A seat's second message for a step that finished earlier, sent late: every honest peer names
it with the same two messages, and the log each one keeps, cut back to that step, passes the
audit with the same verdict in its JSON and its text.

The late message carries any number: the seat's next one (there is a gap in the cut log between
the two), the original's own, one between, or that of a message still waiting. It may repeat
the original's body, name a step of an earlier hand, or come from a seat the table plays by then.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hearts_p2p.audit import AuditReport, audit_log
from hearts_p2p.cli.audit import render_report
from hearts_p2p.cli.render import Style
from hearts_p2p.game import GameProtocol, Status, StepId, StepKind, Termination
from hearts_p2p.log import GameLog
from hearts_p2p.rules import Rules
from hearts_p2p.wire import Envelope, SignedMessage, decode_frame, encode_message

from .table import Table

CHEATER = 2
RULES = Rules(players=4, target=10)
ONE_NUMBER = "sent two different messages under one number"
ONE_STEP = "sent two different messages for one step"
# Which number the late message carries, given the original's and the cheater's next one.
Numbering = Callable[[int, int], int]


class LateTable(Table):
    """A table whose cheater, once the ``at``-th play of a hand (hand, n) or a later one has
    been sent, signs another message for the step of its ``original`` message (its first of a
    (hand, kind)) and sends it to every other peer. With ``leave`` it has left at that (hand,
    step) before, and the table plays its seat. With ``race`` the late message takes the number
    of the next message the cheater's software sends, and the two cross: peer 1 gets the late
    one first, peer 3 the genuine one first, peer 0 the late one only (and the genuine one as
    the others pass it on)."""

    def __init__(
        self,
        rules: Rules,
        original: tuple[int, str],
        at: tuple[int, int],
        numbering: Numbering,
        change: Callable[[dict[str, Any]], dict[str, Any]],
        *,
        leave: tuple[int, str] | None = None,
        race: bool = False,
        seed: int = 1,
    ) -> None:
        super().__init__(rules, seed=seed)
        self.original, self.at, self.leave = original, at, leave
        self.numbering, self.change = numbering, change
        self.sent: SignedMessage | None = None
        self.first: SignedMessage | None = None
        self.mine: dict[int, SignedMessage] = {}  # what the cheater's software sent, by number
        self.taken_over = False  # whether player 0's table played the cheater's seat by then
        self.due = False  # someone has played the ``at``-th card or later: the late message next
        self.held: list[tuple[int, SignedMessage]] = []  # for the next time the table settles
        self.tamper = self._keep
        self.choose = self._act_for
        if race:
            self.route = self._cross

    def _keep(self, sender: int, msg: SignedMessage) -> SignedMessage | None:
        env = msg.envelope
        step = StepId.parse(env.step)
        if step is not None and step.kind is StepKind.OPEN and step.index is not None:
            self.due = self.due or (env.hand, step.index) >= self.at
        if sender == CHEATER and env.kind not in ("abort", "takeover", "recover"):
            self.mine.setdefault(env.seq, msg)
            if self.first is None and (env.hand, env.kind) == self.original:
                self.first = msg
        return msg

    def _late(self, seq: int) -> SignedMessage:
        assert self.first is not None
        env = self.first.envelope
        fields = {f: getattr(env, f) for f in Envelope.__slots__}
        fields["seq"] = seq
        fields["body"] = self.change(dict(env.body))
        self.sent = encode_message(self.ids[CHEATER], Envelope(**fields))
        self.taken_over = CHEATER in self.protos[0].table_seats
        return self.sent

    def _act_for(self, player: int, p: GameProtocol) -> bool:
        if player == CHEATER and self.leave == (p.step.hand, p.step.name):
            if p.status is not Status.RUNNING:
                return False
            p.quit("p2")
            return True
        if self.held:
            self.queue += self.held
            self.held = []
            return True
        if player != 0 or self.sent is not None or self.first is None or not self.due:
            return False
        if self.route is None:
            late = self._late(
                self.numbering(self.first.envelope.seq, self.protos[CHEATER].next_seq)
            )
            self.queue += [(j, late) for j in range(4) if j != CHEATER]
        return False

    def _cross(self, sender: int, to: int, msg: SignedMessage) -> SignedMessage | None:
        env = msg.envelope
        if sender != CHEATER or env.kind in ("abort", "takeover", "recover"):
            return msg
        if self.sent is None and self.due and self.first is not None:
            self._late(env.seq)
        late = self.sent
        if late is None or late.envelope.seq != env.seq:
            return msg
        if to == 3:
            self.held.append((to, late))
            return msg
        self.queue.append((to, late))
        return None if to == 0 else msg

    def expected(self) -> tuple[str, tuple[bytes, ...]]:
        """The verdict every honest peer must reach: two messages under one number where the
        cheater's software sent another under the late one's, else two for one step."""
        assert self.sent is not None and self.first is not None
        twin = self.mine.get(self.sent.envelope.seq)
        if twin is not None:
            return ONE_NUMBER, tuple(sorted([twin.raw, self.sent.raw]))
        return ONE_STEP, tuple(sorted([self.first.raw, self.sent.raw]))


def honest(table: Table) -> list[GameProtocol]:
    return [p for i, p in enumerate(table.protos) if i != CHEATER]


def audited(tmp_path: Path, p: GameProtocol) -> AuditReport:
    path = tmp_path / f"peer{p.me}.log"
    log = GameLog.open(path)
    for e in p.entries:
        log.append(e)
    log.close()
    return audit_log(path)


def assert_named(table: LateTable, tmp_path: Path) -> str:
    """Every honest peer names the cheater on its two messages, in one log; each honest log's
    audit is valid and names it, in JSON and in text, and no honest seat. Returns the reason."""
    reason, evidence = table.expected()
    aborts = [p.abort for p in honest(table)]
    assert all(a is not None and a.termination is Termination.CHEAT_PROVEN for a in aborts), aborts
    assert {(a.culprit, a.evidence, a.reason) for a in aborts if a is not None} == {
        (CHEATER, evidence, reason)
    }
    assert len({tuple(p.entries) for p in honest(table)}) == 1
    assert [decode_frame(e).raw for e in honest(table)[0].entries[-2:]] == list(evidence)
    for p in honest(table):
        report = audited(tmp_path, p)
        assert report.valid, report.problems
        doc = report.to_json()
        assert doc["status"] == "aborted" and doc["abort"]["reason"] == reason
        blamed = doc["abort"]["blamed"]
        assert blamed == f"seat {p.seat_of[CHEATER]} (p{CHEATER})", doc["abort"]
        text = "\n".join(render_report(report, Style(color=False), tricks=False))
        assert f"cheat proven: {blamed}" in text, text
        assert text.startswith("VALID") or "\nVALID" in text, text
        assert report.final_hash == p.head.hex()
    return reason


def next_number(original: int, following: int) -> int:
    return following


def other_card(body: dict[str, Any]) -> dict[str, Any]:
    return {**body, "card": (body["card"] + 1) % 52}


def reordered(body: dict[str, Any]) -> dict[str, Any]:
    """The same fields in another order: other signed bytes, the same meaning."""
    return dict(reversed(list(body.items())))


def same_body(body: dict[str, Any]) -> dict[str, Any]:
    return body


@pytest.mark.parametrize(
    ("original", "at", "change", "reason"),
    [
        ((1, "play"), (1, 14), other_card, ONE_STEP),
        ((1, "deal"), (1, 14), reordered, ONE_STEP),
        # The cheater's own software sends its next message later, under the late one's number.
        ((1, "shuffle"), (1, 9), reordered, ONE_NUMBER),
        ((1, "play"), (1, 30), same_body, ONE_NUMBER),
    ],
    ids=["play", "deal", "shuffle", "same-body"],
)
@pytest.mark.parametrize("seed", [1, 2])
def test_a_late_second_message_under_a_later_number_is_named_and_audits(
    original: tuple[int, str],
    at: tuple[int, int],
    change: Any,
    reason: str,
    seed: int,
    tmp_path: Path,
) -> None:
    table = LateTable(RULES, original, at, next_number, change, seed=seed)
    table.run()
    assert assert_named(table, tmp_path) == reason


@pytest.mark.parametrize(
    "numbering",
    [
        lambda original, following: original,
        lambda original, following: original + 1,
        lambda original, following: following - 1,
        lambda original, following: following + 3,
    ],
    ids=["the-original-s", "the-next-after-it", "the-last-taken", "one-ahead"],
)
def test_a_late_second_message_under_any_other_number_is_named_and_audits(
    numbering: Numbering, tmp_path: Path
) -> None:
    table = LateTable(RULES, (1, "play"), (1, 21), numbering, other_card)
    table.run()
    assert_named(table, tmp_path)


def test_a_late_copy_of_the_original_changes_nothing(tmp_path: Path) -> None:
    """The very message again, late, is the one already taken: the game finishes."""
    table = LateTable(RULES, (1, "play"), (1, 21), lambda o, f: o, same_body)
    table.run()
    assert table.sent is not None and table.first is not None
    assert table.sent.envelope_bytes == table.first.envelope_bytes
    assert all(p.status is Status.FINISHED for p in table.protos), [p.abort for p in table.protos]
    assert len({tuple(p.entries) for p in table.protos}) == 1
    assert audited(tmp_path, table.protos[0]).valid


def test_a_late_second_message_for_a_step_of_an_earlier_hand_is_named_and_audits(
    tmp_path: Path,
) -> None:
    table = LateTable(Rules(players=4, target=40), (1, "play"), (2, 6), next_number,
                      other_card)  # fmt: skip
    table.run()
    assert table.sent is not None and table.sent.envelope.hand == 1
    assert_named(table, tmp_path)


@pytest.mark.parametrize("seed", [1, 2])
def test_a_late_second_message_from_a_seat_the_table_plays_is_named_and_audits(
    seed: int, tmp_path: Path
) -> None:
    """The cheater has left and the table plays its seat; its player's word is over, but two
    messages of its own for one step still prove what it did, at every peer alike."""
    table = LateTable(RULES, (1, "play"), (1, 22), next_number, other_card,
                      leave=(1, "play.10"), seed=seed)  # fmt: skip
    table.run()
    assert table.taken_over
    assert_named(table, tmp_path)


@pytest.mark.parametrize("seed", [1, 2])
def test_a_late_second_message_crossing_the_genuine_one_under_its_number_ends_alike(
    seed: int, tmp_path: Path
) -> None:
    """Peers that see the late message first name it for one step, until the genuine message
    under its number comes: then every peer ends on the two under one number."""
    table = LateTable(RULES, (1, "play"), (1, 17), next_number, other_card, race=True, seed=seed)
    table.run()
    assert table.sent is not None and table.sent.envelope.seq in table.mine
    assert assert_named(table, tmp_path) == ONE_NUMBER
