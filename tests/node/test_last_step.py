"""The last step cannot split the table: a cheat shown to some peers after others have finished.

Honest peers that finished the `end` step keep the game finished; one still in it holds the
verdict and finishes alike once the step completes, and ends on the verdict only if the step
cannot complete (SPEC 6.11). Every case checks one outcome at every honest peer, one log, the
audit concluding the same, and no honest seat ever named.
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import pytest

from hearts_p2p.audit import audit_log
from hearts_p2p.game import GameProtocol, Status, Termination
from hearts_p2p.log import GameLog
from hearts_p2p.rules import Rules
from hearts_p2p.wire import Envelope, SignedMessage, decode_frame, encode_message

from .table import Table
from .test_blame import CHEATER, audit_of, honest, hostile_game, resigned

RULES = Rules(players=4, target=5)  # one hand, most deals: the reveal and `end` come soon


@functools.cache
def _before_the_last_reveal(seed: int) -> Table:
    """A game played until the cheat has taken the last play of the last hand, its reveal
    signed and not sent yet: the common start of every case here, played once per seed."""
    table = Table(RULES, seed=seed)
    cheat = table.protos[CHEATER]
    table.protos[0].propose(table.genesis)
    while cheat.game is None or not cheat.game.over:
        try:
            table.settle(max_rounds=1)
        except RuntimeError:
            continue  # one round done, more to come
        raise AssertionError("the game settled before its last hand was played")
    return table


def last_hand(seed: int) -> Table:
    """A copy of that game, for one case to go on with as it likes."""
    return copy.deepcopy(_before_the_last_reveal(seed))


def time_out(table: Table, rounds: int = 8) -> None:
    """Each honest peer still waiting gives up on the first player it waits on, as its node
    would once the timeout passes, until every honest peer has ended."""
    for _ in range(rounds):
        running = [p for p in honest(table) if p.status is Status.RUNNING and p.waiting_for()]
        if not running:
            return
        for p in running:
            p.give_up_on(p.waiting_for()[0], 60, stalled=True)
        table.settle()


def assert_one_outcome(table: Table, tmp_path: Path) -> GameProtocol:
    """One outcome at every honest peer, one log, the audit reading it alike, and only the
    cheater ever named."""
    peers = honest(table)
    ends = {(p.termination, p.abort.culprit if p.abort else None) for p in peers}
    assert len(ends) == 1, [(p.status, p.abort) for p in peers]
    ((termination, culprit),) = ends
    assert termination in (Termination.FINISHED, Termination.CHEAT_PROVEN), ends
    assert culprit in (None, CHEATER)
    assert len({tuple(p.entries) for p in peers}) == 1
    assert len({p.abort.evidence for p in peers if p.abort is not None}) <= 1
    report = audit_of(tmp_path, peers[0])
    if termination is Termination.FINISHED:
        assert report["status"] == "finished", report
    else:
        assert report["status"] == "aborted", report
        assert report["abort"]["blamed"].endswith(f"(p{CHEATER})")
    return peers[0]


def test_an_end_forged_in_another_s_name_leaves_the_game_finished_at_every_peer(
    tmp_path: Path,
) -> None:
    """The random hostile seat's case: the cheat's `end` goes to everyone, and a copy in
    player 1's name, signed with the cheat's key, to player 1 alone. Before, the peers that
    had finished stayed finished and those still in the step ended naming the forger."""
    table = hostile_game(256, [("forge", 31, 1)])
    assert all(p.game is not None and p.game.over for p in honest(table))
    assert assert_one_outcome(table, tmp_path).termination is Termination.FINISHED


def _last(table: Table, kind: str, what: str, to: int) -> list[SignedMessage]:
    """The cheat does ``what`` with its `kind` message of the last hand (once the game's
    totals are in), towards player ``to``; returns what it did."""
    done: list[SignedMessage] = []
    cheat = table.protos[CHEATER]

    def route(sender: int, j: int, msg: SignedMessage) -> SignedMessage | None:
        env = msg.envelope
        last = cheat.game is not None and cheat.game.over
        if sender != CHEATER or env.kind != kind or not last or j == CHEATER:
            return msg
        if what == "withhold_all" or (what == "withhold" and j == to):
            done.append(msg)
            return None
        if j != to:
            return msg
        if what in ("forge", "forge_all") and not done:
            fields = {f: getattr(env, f) for f in Envelope.__slots__}
            forged = encode_message(table.ids[CHEATER], Envelope(**{**fields, "sender": to}))
            reach = range(4) if what == "forge_all" else [to]
            table.queue += [(k, forged) for k in reach if k != CHEATER]
            done.append(forged)
        if what == "second" and not done:
            later = resigned(table, msg, seq=env.seq + 1)
            table.queue.append((to, later))
            done.append(later)
        if what == "equivocate":
            twin = resigned(table, msg, body={**env.body, "x": 1})  # refused where it goes
            done.append(twin)
            return twin
        return msg

    table.route = route
    return done


WHAT = ("forge", "forge_all", "withhold", "withhold_all", "second", "equivocate")
# Each cheat once at each of the last two steps, towards a player and over a network order
# that vary with it: every one of them split the table, or hung a peer, in some order before.
LAST_STEPS = [
    (kind, what, (0, 1, 3)[i % 3], (256, 31)[i % 2])
    for kind in ("reveal", "end")
    for i, what in enumerate(WHAT)
]


@pytest.mark.parametrize(("kind", "what", "to", "seed"), LAST_STEPS)
def test_a_cheat_around_the_last_reveal_and_the_end_ends_every_honest_peer_alike(
    seed: int, kind: str, what: str, to: int, tmp_path: Path
) -> None:
    table = last_hand(seed)
    done = _last(table, kind, what, to)
    table.settle()
    time_out(table)
    assert done
    assert_one_outcome(table, tmp_path)


def test_a_verdict_reached_before_the_end_by_one_peer_is_every_peer_s(tmp_path: Path) -> None:
    """The cheat shows one peer another reveal, the others its genuine one: they reach `end`,
    the one it fooled stops in `reveal` and never sends its end. Those in `end` hold the
    verdict; the step cannot complete without the stopped peer, so once they give up waiting
    on it, they end on the verdict too, naming the cheat, not the peer they waited on."""
    table = last_hand(31)  # a network order where the fooled peer sees both reveals
    done = _last(table, "reveal", "equivocate", 1)
    table.settle()
    assert done
    stopped, rest = table.protos[1], [table.protos[0], table.protos[3]]
    assert stopped.status is Status.ABORTED and stopped.step.kind.value == "reveal"
    # A peer the stopped one's abort reaches while still in `reveal` stops there too.
    waiting = [p for p in rest if p.status is Status.RUNNING]
    assert waiting and all(p.step.kind.value == "end" and 1 in p.waiting_for() for p in waiting)
    assert all(p.status is Status.ABORTED for p in rest if p not in waiting)
    time_out(table)
    peer = assert_one_outcome(table, tmp_path)
    assert peer.abort is not None and peer.abort.culprit == CHEATER


def test_a_finished_peer_answers_a_late_vote_in_the_end_step(tmp_path: Path) -> None:
    """A peer that has not had the cheat's `end` when its timeout passes votes the seat out;
    the end reaches it only after, when it counts as a vote's evidence alone. The peers that
    finished answer the vote with the end they hold, so it finishes too. Before, a finished
    peer took nothing more, and the voter, waiting on their votes, ended on its own claim."""
    table = last_hand(256)
    slow = table.protos[0]
    held: list[SignedMessage] = []
    receive = slow.receive

    def late(msg: SignedMessage, **kw: Any) -> None:
        env = msg.envelope
        if env.sender == CHEATER and env.kind == "end" and slow.step.prev not in voted:
            held.append(msg)
            return
        receive(msg, **kw)

    voted: set[bytes] = set()
    slow.receive = late  # type: ignore[method-assign]
    table.settle()
    assert slow.status is Status.RUNNING and slow.waiting_for() == [CHEATER] and held
    voted.add(slow.step.prev)
    slow.give_up_on(CHEATER, 60, stalled=True)
    for msg in held:
        slow.receive(msg)
    table.settle()
    assert slow.status is Status.FINISHED, slow.abort
    assert assert_one_outcome(table, tmp_path).termination is Termination.FINISHED


def test_a_verdict_on_the_end_step_alone_still_takes_a_lost_peer_over(tmp_path: Path) -> None:
    """The cheat forges an end in player 1's name to everyone, and player 3's end never reaches
    anyone. Evidence of `end` alone stopped no peer before `end`, so the others do not end on
    it when they give up on player 3: they take its seat over, as without a cheat, and finish
    like player 3, which had every end."""
    table = last_hand(256)
    done = _last(table, "end", "forge_all", 1)
    cheat_route = table.route
    assert cheat_route is not None

    def route(sender: int, j: int, msg: SignedMessage) -> SignedMessage | None:
        if sender == 3 and msg.envelope.kind == "end":
            return None
        return cheat_route(sender, j, msg)

    table.route = route
    table.settle()
    assert done
    for _ in range(4):
        for p in table.protos[:3]:
            if p.status is Status.RUNNING and p.waiting_for() == [3]:
                p.give_up_on(3, 60, stalled=True)
        table.settle()
    assert all(p.status is Status.FINISHED for p in honest(table)), [p.abort for p in honest(table)]
    assert table.protos[0].table_seats == {3} and table.protos[0].entries == table.protos[1].entries
    assert audit_of(tmp_path, table.protos[0])["status"] == "finished"


def test_the_audit_ends_a_log_on_the_verdict_it_holds_through_the_end(tmp_path: Path) -> None:
    """A log whose writer ended on a verdict held through `end`: every step before it, then
    the forgery. Read to its end, the audit names the forger, as the writer did."""
    table = last_hand(256)
    table.settle()
    peer = table.protos[0]
    assert peer.status is Status.FINISHED
    end = peer.step.prev
    cut = [raw for raw in peer.entries if decode_frame(raw).envelope.prev != end]
    mine = decode_frame(peer.entries[-1])
    fields = {f: getattr(mine.envelope, f) for f in Envelope.__slots__}
    forged = encode_message(table.ids[CHEATER], Envelope(**{**fields, "sender": 1}))
    writer = GameProtocol(peer.game_id, peer.host_key)
    for raw in [*cut, forged.raw]:
        writer.receive(decode_frame(raw))
    assert writer.status is Status.RUNNING  # held, in `end`
    writer.log_ended()
    assert writer.abort is not None and writer.abort.culprit == CHEATER
    path = tmp_path / "held.log"
    log = GameLog.open(path)
    for raw in writer.entries:
        log.append(raw)
    log.close()
    report = audit_log(path)
    assert report.valid and report.status.value == "aborted", report.problems
    assert report.to_json()["abort"]["blamed"].endswith(f"(p{CHEATER})")
