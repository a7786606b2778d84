"""A long game's memory stays flat: what a peer holds about past hands does not grow with them,
and a rule that asks about an old hand still gets its answer, from the log."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from hearts_p2p.chain import GENESIS_HEAD, chain
from hearts_p2p.game import GameProtocol, Genesis, Status
from hearts_p2p.game.abort import ONE_NUMBER, ONE_STEP
from hearts_p2p.game.outcome import Termination
from hearts_p2p.log import read_log
from hearts_p2p.rules import Rules
from hearts_p2p.wire import SignedMessage, decode_frame, encode_message

from .table import Table, identities, send_to_all

DIR = Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "log"
CHEAT = 1  # the player who signs a second message about an old hand


def _sampled(table: Table) -> dict[int, list[dict[str, int]]]:
    """Each player's ``held()`` at its first decision of every hand, by hand."""
    by_hand: dict[int, list[dict[str, int]]] = {}

    def look(i: int, p: GameProtocol) -> bool:
        number = p.game.number if p.game is not None else 0
        samples = by_hand.setdefault(number, [])
        if len(samples) == i:
            samples.append(p.held())
        return False

    table.choose = look
    return by_hand


def test_what_a_peer_holds_does_not_grow_with_the_hands_played() -> None:
    table = Table(Rules(target=100), logs=True)
    by_hand = _sampled(table)
    table.run()
    assert all(p.status is Status.FINISHED for p in table.protos)
    hands = sorted(h for h, samples in by_hand.items() if h >= 3 and len(samples) == 4)
    assert len(hands) >= 8
    early, late = hands[: len(hands) // 2], hands[len(hands) // 2 :]
    for kind in by_hand[hands[0]][0]:
        bound = max(s[kind] for h in early for s in by_hand[h])
        assert max(s[kind] for h in late for s in by_hand[h]) <= bound * 1.25, kind
    entries = len(table.logs[0])
    assert max(s["entries"] for h in hands for s in by_hand[h]) * 3 < entries


def _old_part(table: Table, hand: int) -> SignedMessage:
    """The cheat's first logged part of ``hand``, as the log holds it."""
    for raw in table.logs[0]:
        msg = decode_frame(raw)
        if msg.envelope.hand == hand and msg.envelope.sender == CHEAT:
            return msg
    raise AssertionError(f"no part of player {CHEAT} in hand {hand}")


def _at_hand(table: Table, hand: int, act: Callable[[], None]) -> None:
    """``act`` once, when the table waits on its first decision of ``hand``."""
    done = False

    def look(i: int, p: GameProtocol) -> bool:
        nonlocal done
        if not done and i == 0 and p.game is not None and p.game.number == hand:
            done = True
            act()
        return False

    table.choose = look


def _resigned(old: SignedMessage, seq: int | None = None) -> SignedMessage:
    """The old part signed again with another body, under its number or under ``seq``."""
    env = old.envelope
    body = {**env.body, "again": True}
    again = replace(env, body=body) if seq is None else replace(env, body=body, seq=seq)
    return encode_message(identities(4)[CHEAT], again)


def _ended_on(table: Table, reason: str) -> None:
    """Every honest peer proved the cheat, its log cut back to the old step the evidence names
    (long out of memory) and the evidence after it, the chain's head that of the log."""
    for i, p in enumerate(table.protos):
        if i == CHEAT:
            continue
        assert p.status is Status.ABORTED
        assert p.abort is not None and p.abort.termination is Termination.CHEAT_PROVEN
        assert p.abort.culprit == CHEAT and reason in p.abort.reason
        log = table.logs[i]
        assert (
            decode_frame(log[-3]).envelope.hand == 1
        )  # the last before the old step, then the pair
        head = GENESIS_HEAD
        for raw in log:
            head = chain(head, decode_frame(raw).envelope_bytes)
        assert p.head == head and p.entries == log


def test_a_second_message_under_a_number_of_a_hand_long_gone_is_still_proven() -> None:
    table = Table(Rules(target=100), logs=True)
    table.protos[0].propose(table.genesis)
    _at_hand(table, 5, lambda: send_to_all(table, CHEAT, _resigned(_old_part(table, 1))))
    table.settle()
    _ended_on(table, ONE_NUMBER)


def test_a_second_part_of_a_step_of_a_hand_long_gone_is_still_proven() -> None:
    table = Table(Rules(target=100), logs=True)
    table.protos[0].propose(table.genesis)

    def cheat() -> None:
        seq = table.protos[CHEAT].next_seq + 100  # under no number it has used: the step proves it
        send_to_all(table, CHEAT, _resigned(_old_part(table, 1), seq))

    _at_hand(table, 5, cheat)
    table.settle()
    _ended_on(table, ONE_STEP)


def test_a_late_copy_of_a_message_of_a_hand_long_gone_changes_nothing() -> None:
    plain = Table(Rules(target=100), logs=True)
    plain.run()
    table = Table(Rules(target=100), logs=True)
    table.protos[0].propose(table.genesis)
    dropped: list[int] = []

    def copy() -> None:
        old = _old_part(table, 1)
        for i, p in enumerate(table.protos):
            if i != CHEAT:  # as a relay, long after, brings it
                before = p.dropped
                p.receive(old)
                dropped.append(p.dropped - before)

    _at_hand(table, 5, copy)
    table.settle()
    assert dropped == [0, 0, 0]
    assert all(p.status is Status.FINISHED for p in table.protos)
    assert [p.head for p in table.protos] == [p.head for p in plain.protos]
    assert table.logs == plain.logs


@pytest.mark.parametrize("name", ["reclaimed.log", "taken_over.log", "voided.log"])
def test_a_watcher_fed_the_log_again_from_its_start_ends_as_the_log_does(name: str) -> None:
    """A new feed starts from entry 0 (watch_client): the old entries, their frames long out of
    memory, are copies, a returned seat's too (its old numbers are void, its old steps not)."""
    entries = read_log(DIR / name).entries
    first = decode_frame(entries[0]).envelope
    genesis = Genesis.from_wire(first.game_id, first.body)
    ends = []
    for feeds in (1, 2):
        p = GameProtocol(genesis.game_id, genesis.players[0].key)
        for raw in [*entries[: len(entries) // 2]] * (feeds - 1) + entries:
            if not p.has_frame(raw):
                p.receive(decode_frame(raw))
        ends.append((p.status, p.head))
    assert ends[0] == ends[1] and ends[0][0] is Status.FINISHED
