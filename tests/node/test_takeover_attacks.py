"""Attacks on the escrow and the takeover, in memory: whoever spoils a recovery is named with
proof by every honest peer and by the audit, and no honest seat ever is.

The three ways a takeover can fail: a holder shows a false share; a player escrows shares that
do not give back its game secret; a player signs messages its escrowed secret does not give. And
the two sides of a box dispute at the coin flip: a box that does not open, a false alarm.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import hearts_p2p.game.seating as seating
from hearts_p2p.audit import audit_log
from hearts_p2p.game import GameProtocol, Status, Termination
from hearts_p2p.log import GameLog
from hearts_p2p.rules import Rules

from .table import Table
from .test_takeover import DyingTable

RULES = Rules(target=1)
DEAD = 2


def honest(table: Table, *bad: int) -> list[GameProtocol]:
    return [p for i, p in enumerate(table.protos) if i not in bad]


def assert_named(tmp_path: Path, peers: list[GameProtocol], culprit: int, words: str) -> None:
    """Every honest peer ends on the same proven cheat by ``culprit``, with one log, and the
    audit of that log names the same player."""
    for p in peers:
        assert p.status is Status.ABORTED, (p.step, p.abort)
        assert p.abort is not None and p.abort.termination is Termination.CHEAT_PROVEN
        assert p.abort.culprit == culprit and words in p.abort.reason, p.abort
    assert len({tuple(p.entries) for p in peers}) == 1
    log = GameLog.open(tmp_path / "game.log")
    for e in peers[0].entries:
        log.append(e)
    log.close()
    report = audit_log(tmp_path / "game.log")
    assert report.valid, report.problems
    assert report.abort is not None and report.abort.blamed is not None
    assert report.abort.blamed.endswith(f"(p{culprit})"), report.abort
    assert words in report.abort.reason


def test_a_holder_showing_a_false_share_is_named(tmp_path: Path) -> None:
    table = DyingTable(RULES, dead=DEAD, hand=1, step="play.6")
    liar = 0

    def lie(player: int, p: GameProtocol) -> bool:
        if player == liar and DEAD in p._s.shares:
            p._s.shares[DEAD] = bytes(32)
        return False

    table.choose = lie
    table.play()
    assert_named(tmp_path, honest(table, DEAD, liar), liar, "false escrow share")


@pytest.fixture
def bad_split() -> Iterator[None]:
    """Player ``DEAD`` escrows the shares of another secret than its own: each share opens and
    matches its commitment, so nobody can tell until the shares are shown."""
    real = seating.make_escrow

    def make(secret: bytes, game_id: bytes, sender: int, keys: Any) -> Any:
        if sender == DEAD:
            secret = bytes(b ^ 1 for b in secret)
        return real(secret, game_id, sender, keys)

    seating.make_escrow = make  # type: ignore[assignment]
    try:
        yield
    finally:
        seating.make_escrow = real


@pytest.mark.usefixtures("bad_split")
def test_a_seat_whose_escrow_does_not_give_its_secret_is_named(tmp_path: Path) -> None:
    table = DyingTable(RULES, dead=DEAD, hand=1, step="play.3")
    table.play()
    assert_named(tmp_path, honest(table, DEAD), DEAD, "does not give back its game secret")


def test_a_seat_whose_deck_is_not_from_its_secret_is_named(tmp_path: Path) -> None:
    """Its escrow is right, but it drew its hand's secrets from elsewhere: replaying its part of
    the hand from the recovered secret does not give the messages it signed."""
    table = DyingTable(RULES, dead=DEAD, hand=1, step="play.3")
    state = table.protos[DEAD]._s
    real = state.derive
    state.derive = lambda label: real(label + " elsewhere" if label.startswith("hand") else label)  # type: ignore[method-assign]
    table.play()
    assert_named(tmp_path, honest(table, DEAD), DEAD, "do not come from its escrowed game secret")


def test_a_box_that_does_not_open_is_named_before_a_card_is_dealt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Player 1 seals garbage to player 3: player 3 says so at the coin flip, player 1 must show
    that box's key, and the box proves it bad."""
    real = seating.make_escrow

    def make(secret: bytes, game_id: bytes, sender: int, keys: Any) -> Any:
        entries = real(secret, game_id, sender, keys)
        if sender == 1:
            bad = entries[2]  # holders in player order: 0, 2, 3
            entries[2] = type(bad)(bad.commitment, bad.ephemeral, bytes(len(bad.sealed)))
        return entries

    monkeypatch.setattr(seating, "make_escrow", make)
    table = Table(RULES, seed=4)
    table.run()
    peers = honest(table, 1)
    assert_named(tmp_path, peers, 1, "sealed a bad escrow share")
    assert all(p.game is None for p in peers)  # no seat was drawn, no card dealt


def test_a_false_alarm_about_a_good_box_names_the_alarm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = seating.open_entry

    def deny(entry: Any, game_id: bytes, sender: int, holder: int, *rest: Any) -> Any:
        if holder == 3 and sender == 0:
            return None  # player 3 says the host's box to it does not open
        return real(entry, game_id, sender, holder, *rest)

    monkeypatch.setattr(seating, "open_entry", deny)
    table = Table(RULES, seed=4)
    table.run()
    assert_named(tmp_path, honest(table, 3), 3, "but it opens")


def test_a_seat_whose_next_deck_is_not_from_its_secret_is_named(tmp_path: Path) -> None:
    """Only the next hand's deck, shuffled and locked during this hand's plays, comes from
    elsewhere: the takeover replays that deck too, and names the seat. (A game to 30: its
    first hand is not sure to end it, so the next deck is shuffled during it.)"""
    table = DyingTable(Rules(target=30), dead=DEAD, hand=1, step="play.12")
    state = table.protos[DEAD]._s
    real = state.derive
    state.derive = lambda label: real(label + " elsewhere" if label == "hand 2" else label)  # type: ignore[method-assign]
    table.play()
    assert_named(tmp_path, honest(table, DEAD), DEAD, "do not come from its escrowed game secret")
