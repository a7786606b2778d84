"""The audit's checks done ahead (signatures, each hand's deck): same verdicts, no repeated work."""

from __future__ import annotations

import dataclasses
import os
from unittest import mock

import pytest

import hearts_p2p.deck.public as deck_public
import hearts_p2p.wire as wire
from hearts_p2p.audit import audit_log
from hearts_p2p.deck import (
    DeckCheatError,
    HandParams,
    Loopback,
    Message,
    PublicHand,
    SeatDeck,
    Shuffle,
    new_pass_key,
)
from hearts_p2p.deck.passbox import public_bytes
from hearts_p2p.deck.presumed import CheckedHand, PresumedHand, check_hand
from hearts_p2p.deck.randomness import SeededRandomness
from hearts_p2p.log import read_log
from hearts_p2p.rules import Rules

from .log_vectors import DIR
from .test_log_vectors import EXPECTED

# A handful of vectors cover honest games, a proven cheat, bad signatures, reordering and a torn
# tail; every vector runs through the same code in the other tests (short logs check in-process).
POOLED = ["valid.log", "changed_card.log", "bad_signature.log", "equivocation.log", "alarm.log",
          "forged_sender.log", "reordered.log", "torn_tail.log", "cut_mid_game.log"]  # fmt: skip


@pytest.mark.parametrize("name", POOLED)
def test_worker_processes_give_the_same_report(name: str) -> None:
    alone = audit_log(DIR / name, workers=0).to_json()
    pooled = audit_log(DIR / name, workers=2).to_json()
    assert pooled == alone
    assert {k: pooled[k] for k in ("valid", "status", "final_hash")} == {
        k: EXPECTED[name][k] for k in ("valid", "status", "final_hash")
    }


def test_each_signature_is_checked_once() -> None:
    calls = []
    real = wire.verify_signature

    def counted(key: bytes, env: bytes, sig: bytes) -> bool:
        calls.append(env)
        return real(key, env, sig)

    with mock.patch("hearts_p2p.auditwork.verify_signature", counted):
        report = audit_log(DIR / "valid.log", workers=0)
    assert report.valid
    entries = read_log(DIR / "valid.log").entries
    assert len(calls) == len(entries) == len(set(calls))


def _hand() -> tuple[HandParams, list[Message]]:
    keys = [new_pass_key(SeededRandomness(b"key %d" % s)) for s in range(4)]
    params = HandParams.for_rules(Rules(), b"ahead", 1, [public_bytes(k) for k in keys])
    seats = [SeatDeck(params, s, keys[s], SeededRandomness(b"seat %d" % s)) for s in range(4)]
    table = Loopback(seats)
    table.run()
    assert not table.errors
    return params, list(table.transcript)


def test_a_hand_checked_ahead_is_taken_without_repeating_its_cryptography() -> None:
    params, messages = _hand()
    checked = check_hand(params, messages)
    assert checked is not None
    hand = PresumedHand(checked)
    with (
        mock.patch.object(deck_public, "multiply", side_effect=AssertionError("E_k repeated")),
        mock.patch.object(deck_public, "load_x", side_effect=AssertionError("point decoded")),
    ):
        for msg in messages:
            hand.receive(msg)
        result = hand.audit()
    assert hand.presumed and result == checked.result and result.ok


def test_a_message_other_than_the_one_checked_is_checked_in_full() -> None:
    params, messages = _hand()
    checked = check_hand(params, messages)
    assert checked is not None
    k = next(i for i, m in enumerate(messages) if isinstance(m, Shuffle) and m.seat == 1)
    shuffle = messages[k]
    assert isinstance(shuffle, Shuffle)
    bad = dataclasses.replace(shuffle, deck=(shuffle.deck[1], shuffle.deck[1], *shuffle.deck[2:]))
    plain, presumed = PublicHand(params), PresumedHand(checked)
    for hand in (plain, presumed):
        for msg in messages[:k]:
            hand.receive(msg)
        with pytest.raises(DeckCheatError) as caught:
            hand.receive(bad)
        assert "repeats entry" in caught.value.reason
    assert not presumed.presumed


def test_a_hand_that_fails_its_checks_is_not_presumed() -> None:
    params, messages = _hand()
    assert check_hand(params, messages[:-1]) is None  # a reveal missing
    k = next(i for i, m in enumerate(messages) if isinstance(m, Shuffle) and m.seat == 2)
    assert check_hand(params, messages[:k] + messages[k + 1 :]) is None  # a shuffle missing


def _die(job: object) -> None:
    os._exit(3)  # a worker killed mid-audit


def test_a_worker_that_dies_costs_speed_not_the_verdict() -> None:
    alone = audit_log(DIR / "valid.log", workers=0).to_json()
    with mock.patch("hearts_p2p.auditwork._check_deck", _die):
        pooled = audit_log(DIR / "valid.log", workers=2).to_json()
    assert pooled == alone


def test_every_hand_of_an_honest_log_is_taken_as_checked_ahead() -> None:
    """Each deck message kind goes to the check ahead (the remix too): every hand of an honest
    game is taken as checked, none checks its cryptography a second time."""
    presumed: list[int] = []
    real = PresumedHand.__init__

    def counted(self: PresumedHand, checked: CheckedHand) -> None:
        presumed.append(checked.params.hand_number)
        real(self, checked)

    with mock.patch.object(PresumedHand, "__init__", counted):
        report = audit_log(DIR / "valid.log", workers=0)
    assert report.valid
    assert presumed == [h.number for h in report.hands]
