"""Cheating peers at an in-memory table: every honest peer names the cheat, none is blamed.

A cheat is sent through the protocol's internals (or by rewriting a message on its way out),
never through ``submit``, which refuses anything illegal. The audit of an honest peer's log of
such a game must call it a consistent aborted game, and a tampered copy of that log invalid.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest

import hearts_p2p.deck.seat as deck_seat
from hearts_p2p.audit import audit_log
from hearts_p2p.cards import cards_of
from hearts_p2p.cli.audit import EXIT_INVALID, EXIT_VALID, run_audit
from hearts_p2p.deck import Open
from hearts_p2p.game import GameProtocol, Status, StepKind, Termination
from hearts_p2p.log import GameLog
from hearts_p2p.rules import Rules
from hearts_p2p.wire import Envelope, SignedMessage, decode_frame, encode_message, pack

from .table import Table, forge, play_unchecked, send_to_all

RULES = Rules(players=4, target=10)
CHEATER = 2


def resigned(p: GameProtocol, msg: SignedMessage, body: dict[str, Any]) -> SignedMessage:
    """``msg`` with another body, signed by its sender ``p``."""
    env = msg.envelope
    assert p.identity is not None
    new = Envelope(env.version, env.game_id, env.hand, env.step, env.sender, env.seq, env.prev,
                   env.kind, body)  # fmt: skip
    return encode_message(p.identity, new)


def honest(table: Table) -> list[GameProtocol]:
    return [p for i, p in enumerate(table.protos) if i != CHEATER]


def assert_named(table: Table, cheater: int, *, reason: str) -> None:
    """Every honest peer stopped the game blaming ``cheater``, for ``reason`` (a substring),
    on the same signed evidence, and every honest peer's log is the same bytes."""
    for p in honest(table):
        assert p.status is Status.ABORTED
        assert p.abort is not None
        assert p.abort.blamed == cheater, p.abort
        assert reason in p.abort.reason, p.abort.reason
    assert len({p.abort.evidence for p in honest(table) if p.abort is not None}) == 1
    assert len({tuple(p.entries) for p in honest(table)}) == 1


def renege_once(table: Table) -> None:
    """The cheater discards off-suit once while holding a dealt card of the led suit.

    Its own engine is told to check the play as a stranger's, as a cheating client would.
    """
    done: list[bool] = []

    def choose(player: int, p: GameProtocol) -> bool:
        view = p.choice_needed()
        if player != CHEATER or done or view is None or p.game is None or p.flow is None:
            return False
        hand, seat = p.game.hand, p.my_seat
        assert hand is not None and seat is not None
        if not hand.tricks or not hand.trick:
            return False
        led = hand.trick[0] // 13
        held = [int(c) for c in view.hand]
        follow = [c for c in held if c // 13 == led]
        off = [c for c in held if c // 13 != led]
        if not follow or not off or set(follow) & set(p.flow.received_cards()):
            return False
        play_unchecked(table, player, min(off))
        done.append(True)
        return True

    table.choose = choose


def test_renege_is_named_by_every_peer_when_the_withheld_suit_shows() -> None:
    """Every card is played, so a renege shows itself at the latest when the seat plays the
    suit it claimed to lack: every peer refuses that play, naming the trick of the renege."""
    table = Table(RULES, seed=5)
    renege_once(table)
    table.run()
    assert_named(table, CHEATER, reason="a renege")
    for p in honest(table):
        assert p.abort is not None and "showed out of " in p.abort.reason


def lead_hearts_early(table: Table) -> None:
    """The cheater leads a heart before hearts are broken while holding other suits."""
    done: list[bool] = []

    def choose(player: int, p: GameProtocol) -> bool:
        view = p.choice_needed()
        if player != CHEATER or done or view is None or p.game is None or p.flow is None:
            return False
        hand, seat = p.game.hand, p.my_seat
        assert hand is not None and seat is not None
        held = [int(c) for c in view.hand]
        hearts = [c for c in held if c // 13 == 3]
        if (
            not hand.tricks
            or hand.trick
            or hand.hearts_open
            or not hearts
            or len(hearts) == len(held)
        ):
            return False
        play_unchecked(table, player, min(hearts))
        done.append(True)
        return True

    table.choose = choose


def test_leading_hearts_unbroken_is_named_by_every_peer() -> None:
    """Leading a heart before hearts are broken while holding other suits: only the cheat's
    own cards show it, so every peer alike finds it in the end-of-hand replay (the passer, who
    knows some of those cards, does not judge on what only it knows)."""
    for deal in range(1, 60):
        table = Table(RULES, seed=1, deal=deal)
        lead_hearts_early(table)
        table.run()
        if all(p.abort is not None for p in honest(table)):
            break
    assert_named(table, CHEATER, reason="hearts are not broken")


def test_opening_a_card_not_held_is_refused_on_receipt() -> None:
    table = Table(RULES, seed=6)
    done: list[bool] = []

    def choose(player: int, p: GameProtocol) -> bool:
        if player != CHEATER or done or p.choice_needed() is None or p.flow is None:
            return False
        if p.step.kind is not StepKind.OPEN:
            return False
        seat = p.my_seat
        assert seat is not None
        other = next(i for i in range(p.flow.params.size) if p.flow.public.holder[i] != seat)
        body = Open(seat, other, 0, bytes(31) + b"\x01", bytes(16)).to_wire()
        send_to_all(table, player, forge(p, body))
        done.append(True)
        return True

    table.choose = choose
    table.run()
    assert_named(table, CHEATER, reason=", which seat")


def test_a_play_out_of_turn_is_refused() -> None:
    """A play sent for the current trick by a seat whose turn it is not."""
    table = Table(RULES, seed=7)
    done: list[bool] = []

    def choose(player: int, p: GameProtocol) -> bool:
        if done or player == CHEATER or p.choice_needed() is None:
            return False
        if p.step.kind is not StepKind.OPEN or p.game is None:
            return False
        cheat = table.protos[CHEATER]
        if cheat.step.name != p.step.name or cheat.flow is None or cheat.flow.deck is None:
            return False
        seat, deck = cheat.my_seat, cheat.flow.deck
        assert seat is not None
        body = deck.show(cards_of(deck.hand)[0])  # a genuine open of a card it holds
        send_to_all(table, CHEATER, forge(cheat, body.to_wire()))
        done.append(True)
        return True

    table.choose = choose
    table.run()
    assert done
    assert_named(table, CHEATER, reason="out of turn")


def test_a_frame_with_a_bad_signature_is_dropped_and_the_game_goes_on() -> None:
    table = Table(RULES, seed=8)
    spoiled: list[int] = []

    def tamper(sender: int, msg: SignedMessage) -> SignedMessage | None:
        if sender == CHEATER and len(spoiled) < 3:
            sig = bytes([msg.signature[0] ^ 0x80]) + msg.signature[1:]
            bad = pack([msg.envelope_bytes, sig])
            send_to_all(table, sender, decode_frame(bad))
            spoiled.append(1)
        return msg

    table.tamper = tamper
    table.run()
    assert all(p.status is Status.FINISHED for p in table.protos)
    assert len({p.head for p in table.protos}) == 1
    assert all(p.dropped >= 3 for p in honest(table))


def test_two_different_messages_under_one_number_are_equivocation() -> None:
    """The same play twice in different bytes (its body's keys reordered): logs would fork."""
    table = Table(RULES, seed=9)
    done: list[bool] = []

    def tamper(sender: int, msg: SignedMessage) -> SignedMessage | None:
        if sender == CHEATER and not done and msg.envelope.kind == "play":
            body = dict(reversed(list(msg.envelope.body.items())))
            twin = resigned(table.protos[CHEATER], msg, body)
            assert twin.raw != msg.raw
            send_to_all(table, sender, twin)
            done.append(True)
        return msg

    table.tamper = tamper
    table.run()
    assert_named(table, CHEATER, reason="two different messages under one number")
    for p in honest(table):
        assert p.abort is not None and len(p.abort.evidence) == 2


def cheat_on_pass(table: Table, field: str) -> None:
    """The cheater's pass reveal goes out with ``field`` zeroed, re-signed."""

    def tamper(sender: int, msg: SignedMessage) -> SignedMessage | None:
        if sender != CHEATER or msg.envelope.kind != "pass_reveal":
            return msg
        body = dict(msg.envelope.body)
        body[field] = bytes(len(body[field]))
        return resigned(table.protos[CHEATER], msg, body)

    table.tamper = tamper


def test_a_pass_that_breaks_its_commitment_is_refused_on_receipt() -> None:
    table = Table(RULES, seed=10)
    cheat_on_pass(table, "nonce")
    table.run()
    assert_named(table, CHEATER, reason="its pass does not match its commitment")


def test_wrong_sealed_pass_keys_are_named_by_the_audit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the receiver can open the box, so it alone sees the keys are wrong: it says so at
    the ``passed`` checkpoint, every seat reveals, and the audit names the passer."""
    table = Table(RULES, seed=10)
    real_seal = deck_seat.seal_box

    def seal_garbage(params: Any, seat: int, positions: Any, keys: Any, eph: Any) -> bytes:
        if seat == table.protos[CHEATER].my_seat:
            keys = [(bytes(31) + b"\x01", nonce) for _, nonce in keys]
        return real_seal(params, seat, positions, keys, eph)

    monkeypatch.setattr(deck_seat, "seal_box", seal_garbage)
    table.run()
    assert_named(table, CHEATER, reason="sealed")


def test_a_player_who_leaves_is_taken_over_and_the_game_finishes() -> None:
    table = Table(RULES, seed=11)

    def choose(player: int, p: GameProtocol) -> bool:
        if player == CHEATER and p.step.name == "play.5" and p.status is Status.RUNNING:
            p.quit("p2")
            return True
        return False

    table.choose = choose
    table.run()
    leaver = table.protos[CHEATER]
    assert leaver.abort is not None and leaver.abort.termination is Termination.LEFT
    survivors = [p for i, p in enumerate(table.protos) if i != CHEATER]
    for p in survivors:
        assert p.status is Status.FINISHED and p.abort is None
        assert p.table_seats == {CHEATER}
    # The survivors log the leaver's signed word inside their votes, then play on: one log.
    assert len({tuple(p.entries) for p in survivors}) == 1


def write_log(path: Path, entries: list[bytes]) -> Path:
    log = GameLog.open(path)
    for e in entries:
        log.append(e)
    log.close()
    return path


def audit_exit(path: Path) -> int:
    return run_audit(argparse.Namespace(log=path, json=True))


def test_audit_of_a_caught_renege_is_a_valid_aborted_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = Table(RULES, seed=5)
    renege_once(table)
    table.run()
    cheater_seat = table.protos[0].seat_of[CHEATER]
    for i, p in enumerate(honest(table)):
        path = write_log(tmp_path / f"peer{i}.log", p.entries)
        report = audit_log(path)
        assert report.valid, report.problems
        assert report.status == "aborted"
        assert report.abort is not None
        assert report.abort.blamed == f"seat {cheater_seat} (p{CHEATER})"
        assert report.abort.confirmed is True
        assert audit_exit(path) == EXIT_VALID
    entries = list(table.protos[0].entries)
    entries[40] = entries[40][:-1] + bytes([entries[40][-1] ^ 1])  # a signature bit
    tampered = write_log(tmp_path / "tampered.log", entries)
    report = audit_log(tampered)
    assert not report.valid
    assert report.problems[0].where.startswith("entry 40 ")
    assert audit_exit(tampered) == EXIT_INVALID
    capsys.readouterr()
