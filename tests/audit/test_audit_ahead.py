"""The audit's checks done ahead (signatures, each hand's deck): same verdicts, no repeated work."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from unittest import mock

import pytest

import hearts_p2p.deck.public as deck_public
import hearts_p2p.wire as wire
from hearts_p2p.audit import AuditStatus, audit_log
from hearts_p2p.benchmarks.audit import game_log
from hearts_p2p.deck import (
    DeckCheatError,
    DeckUsageError,
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
from hearts_p2p.log import GameLog, read_log
from hearts_p2p.rules import Rules
from hearts_p2p.wire import decode_frame

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

    with (  # the genesis is checked by ``SignedMessage.verify``, the rest ahead
        mock.patch("hearts_p2p.wire.verify_signature", counted),
        mock.patch("hearts_p2p.auditwork.verify_signature", counted),
    ):
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
    k = next(i for i, m in enumerate(messages) if isinstance(m, Shuffle) and m.seat == 2)
    assert check_hand(params, messages[:k] + messages[k + 1 :]) is None  # a shuffle missing
    shuffle = messages[k]
    assert isinstance(shuffle, Shuffle)
    bad = dataclasses.replace(shuffle, deck=(shuffle.deck[1], *shuffle.deck[1:]))
    assert check_hand(params, [*messages[:k], bad, *messages[k + 1 :]]) is None


def test_a_hand_the_log_cuts_short_is_checked_as_far_as_it_goes() -> None:
    """The next hand's deck, shuffled ahead when the game ends, is checked once, ahead; its
    audit, which needs every reveal, is the plain hand's (here: refused)."""
    params, messages = _hand()
    checked = check_hand(params, messages[:-1])  # a reveal missing
    assert checked is not None and checked.result is None
    hand = PresumedHand(checked)
    with (
        mock.patch.object(deck_public, "multiply", side_effect=AssertionError("E_k repeated")),
        mock.patch.object(deck_public, "load_x", side_effect=AssertionError("point decoded")),
    ):
        for msg in messages[:-1]:
            hand.receive(msg)
    assert hand.presumed
    with pytest.raises(DeckUsageError, match="needs every reveal"):
        hand.audit()
    hand.receive(messages[-1])  # not checked ahead: the hand is checked in full from here
    whole = check_hand(params, messages)
    assert whole is not None and whole.result is not None and whole.result.ok
    assert not hand.presumed and hand.audit() == whole.result


def test_the_deck_shuffled_ahead_of_a_hand_never_played_is_decoded_once() -> None:
    """A bench game's log ends with the next hand's shuffle and lock: the replay takes them as
    checked ahead, so every published deck's points are decoded once in the whole audit."""
    decoded: list[bytes] = []
    real = deck_public.load_x

    def counted(x: bytes) -> object:
        decoded.append(x)
        return real(x)

    with mock.patch.object(deck_public, "load_x", counted):
        report = audit_log(DIR / "valid.log", workers=0)
    assert report.valid
    assert len(decoded) == len(set(decoded))


def _die(job: object) -> None:
    os._exit(3)  # a worker killed mid-audit


def test_a_worker_that_dies_costs_speed_not_the_verdict() -> None:
    alone = audit_log(DIR / "valid.log", workers=0).to_json()
    with mock.patch("hearts_p2p.auditwork._check_deck", _die):
        pooled = audit_log(DIR / "valid.log", workers=2).to_json()
    assert pooled == alone


def test_every_hand_of_an_honest_log_is_taken_as_checked_ahead() -> None:
    """Each deck message kind goes to the check ahead (the remix too): every hand of an honest
    game is taken as checked, and so is the next deck shuffled ahead when the game ended; none
    checks its cryptography a second time."""
    presumed: list[int] = []
    real = PresumedHand.__init__

    def counted(self: PresumedHand, checked: CheckedHand) -> None:
        presumed.append(checked.params.hand_number)
        real(self, checked)

    with mock.patch.object(PresumedHand, "__init__", counted):
        report = audit_log(DIR / "valid.log", workers=0)
    assert report.valid
    last = report.hands[-1].number
    assert presumed == [h.number for h in report.hands] + [last + 1]


def _entries_of(path: Path) -> list[bytes]:
    return read_log(path).entries


def _write(path: Path, entries: list[bytes]) -> Path:
    log = GameLog.open(path)
    for entry in entries:
        log.append(entry)
    log.close()
    return path


@pytest.fixture(scope="module")
def bot_game(tmp_path_factory: pytest.TempPathFactory) -> list[bytes]:
    """The entries of a 4-bot game to 30: a few hands, the last one's deck shuffled ahead."""
    path = tmp_path_factory.mktemp("bot") / "game.log"
    game_log(path, Rules(target=30), seed=3)
    return _entries_of(path)


def _cut_points(entries: list[bytes]) -> dict[str, int]:
    envs = [decode_frame(e).envelope for e in entries]
    first = {h: next(i for i, e in enumerate(envs) if e.hand == h) for h in {e.hand for e in envs}}
    ahead = max(first)
    return {
        "in the seating": first[1] - 3,
        "in the second hand's deck": first[2] + 5,
        "in the second hand's plays": next(
            i + 7 for i, e in enumerate(envs) if e.hand == 2 and e.kind == "play"
        ),
        "in the deck shuffled ahead": first[ahead] + 9,
    }


@pytest.mark.parametrize(
    "cut",
    ["in the seating", "in the second hand's deck", "in the second hand's plays",
     "in the deck shuffled ahead"],
)  # fmt: skip
def test_a_long_log_cut_anywhere_gives_one_report_pooled_or_alone(
    bot_game: list[bytes], tmp_path: Path, cut: str
) -> None:
    """Chunks of signatures split at each hand, the seating checked here, a hand the log cuts
    short checked ahead as far as it goes: the workers change no verdict."""
    path = _write(tmp_path / "cut.log", bot_game[: _cut_points(bot_game)[cut]])
    alone = audit_log(path, workers=0)
    pooled = audit_log(path, workers=2)
    assert pooled.to_json() == alone.to_json()
    assert alone.sound_so_far, alone.problems


def test_a_long_log_with_a_damaged_entry_gives_one_report_pooled_or_alone(
    bot_game: list[bytes], tmp_path: Path
) -> None:
    entries = list(bot_game)
    envs = [decode_frame(e).envelope for e in entries]
    at = [i for i, e in enumerate(envs) if e.hand == 2 and e.kind == "play"][7]
    entries[at] = entries[at][:-1] + bytes([entries[at][-1] ^ 1])  # its signature's last byte
    path = _write(tmp_path / "damaged.log", entries)
    alone = audit_log(path, workers=0)
    pooled = audit_log(path, workers=2)
    assert pooled.to_json() == alone.to_json()
    assert alone.problems[0].what.startswith("bad signature on a play message")
    assert alone.status is AuditStatus.INCOMPLETE


def test_a_whole_bot_game_gives_one_report_pooled_or_alone(
    bot_game: list[bytes], tmp_path: Path
) -> None:
    path = _write(tmp_path / "whole.log", bot_game)
    alone = audit_log(path, workers=0)
    assert alone.valid and len(alone.hands) >= 3
    assert audit_log(path, workers=2).to_json() == alone.to_json()
