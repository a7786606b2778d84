"""Passes stay private after the hand: a clean remixed hand's log never shows which cards were
passed, to an uninvolved seat, to the audit or to ``hearts replay``, and every check still holds.

Two colluders who swap cards by remixing each other's positions are named by their proofs.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

import hearts_p2p.deck.seat as deck_seat
from hearts_p2p.coinflip import HashStream
from hearts_p2p.deck import PROOF_ROUNDS, HandParams, Remix, SeatDeck
from hearts_p2p.deck.curve import encrypt, scalar_bytes
from hearts_p2p.game import GameProtocol, HandRecord, Status
from hearts_p2p.game.genesis import Genesis, GenesisError
from hearts_p2p.game.keys import derive, pass_key, pass_public_key
from hearts_p2p.rules import Rules
from hearts_p2p.wire import decode_frame

from .table import GAME_ID, Table
from .test_blame import audit_of

RULES = Rules(players=4, target=10)  # one hand with a pass, most deals


def _records(table: Table) -> dict[int, list[HandRecord]]:
    """Every peer's end-of-hand records, kept as its events go by."""
    records: dict[int, list[HandRecord]] = {i: [] for i in range(len(table.protos))}
    for i, p in enumerate(table.protos):
        drain = p.drain

        def keeping(i: int = i, drain: Any = drain) -> Any:
            out = drain()
            records[i] += [e for e in out[2] if isinstance(e, HandRecord)]
            return out

        p.drain = keeping  # type: ignore[method-assign]
    return records


def _secret(player: int) -> bytes:
    return bytes([player + 9]) * 32  # as Table gives each player


def _hand_one_deck(p: GameProtocol, player: int) -> SeatDeck:
    """The deck of hand 1 as ``player``'s secret draws it: its lock keys, never sent."""
    assert p.genesis is not None
    keys = [pass_public_key(_secret(q)) for q in p.player_at]
    params = HandParams.for_rules(p.genesis.rules, GAME_ID, 1, keys, p.genesis.proof_rounds)
    rng = HashStream(derive(_secret(player), "hand 1"))
    return SeatDeck(params, p.seat_of[player], pass_key(_secret(player)), rng)


def test_a_clean_remixed_game_never_shows_a_pass_to_a_seat_it_does_not_involve(
    tmp_path: Path,
) -> None:
    table = Table(RULES, seed=5)
    records = _records(table)
    table.run()
    assert all(p.status is Status.FINISHED for p in table.protos)
    entries = table.protos[0].entries
    assert all(p.entries == entries for p in table.protos)
    frames = [decode_frame(e).envelope for e in entries]
    reveals = [f.body for f in frames if f.kind == "reveal" and f.hand == 1]
    assert len(reveals) == 4
    for body in reveals:
        assert body["lock_keys"] == body["lock_nonces"] == body["remix_keys"] == []
        assert body["remix_order"] == body["permutation"] == []
        assert body["pass_secret"] == body["shuffle_key"] == b""
    # No lock key of a passed position is in the log: its card can be read by its receiver
    # alone, who was sent the key sealed to it, and the box's secret never comes out either.
    blob = b"".join(entries)
    passes = {f.body["seat"]: f.body["positions"] for f in frames if f.kind == "pass_reveal"}
    p0 = table.protos[0]
    for player in range(4):
        deck = _hand_one_deck(p0, player)
        for i in passes[deck.seat]:
            assert scalar_bytes(deck._locks[i]) not in blob, (player, i)
    # Each peer knows its own pass and the one it received, and no other.
    for i, p in enumerate(table.protos):
        (record,) = [r for r in records[i] if r.number == 1]
        seat = p.my_seat
        assert seat is not None
        known = {seat, next(s for s in range(4) if RULES.pass_target(s, 1) == seat)}
        assert {s for s in range(4) if record.passed[s] is not None} == known
        assert {s for s in range(4) if record.dealt[s] is not None} == {seat}
        assert sum(m.bit_count() for m in record.held) == 52
    report = audit_of(tmp_path, table.protos[0])
    assert report["valid"], report["problems"]
    (hand,) = [h for h in report["hands"] if h["number"] == 1]
    assert [p["cards"] for p in hand["passes"]] == [None] * 4


def _swapping(colluders: tuple[int, int]) -> Any:
    """A remix that takes the partner's lowest held position in place of its own lowest: the
    two hands together still hold every position once, and every card comes out once."""
    real = deck_seat.SeatDeck._remix

    def remix(deck: SeatDeck) -> Remix:
        honest = real(deck)
        if deck.seat not in colluders:
            return honest
        partner = colluders[1] if deck.seat == colluders[0] else colluders[0]
        mine, theirs = deck.public.held(deck.seat)[0], deck.public.held(partner)[0]
        k = deck._slot_positions.index(mine)
        entry = encrypt(deck._remix_keys[k], deck.public.locks[-1].deck[theirs])
        deck._slot_positions = tuple(theirs if q == mine else q for q in deck._slot_positions)
        return dataclasses.replace(honest, deck=(*honest.deck[:k], entry, *honest.deck[k + 1 :]))

    return remix


def test_two_colluders_swapping_positions_in_their_remixes_are_named_by_their_proofs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Seats 1 and 2 each remix the other's position for one of their own, so no card comes
    out twice; their proofs, made with the real prover over their true held positions, cannot
    answer the seeded joint challenge. Every honest peer names the same colluder, before the
    first play, and so does the audit of every honest log."""
    table = Table(RULES, seed=5, proof_rounds=PROOF_ROUNDS)
    monkeypatch.setattr(deck_seat.SeatDeck, "_remix", _swapping((1, 2)))
    table.run()
    colluding = {table.protos[0].player_at[1], table.protos[0].player_at[2]}
    honest = [p for i, p in enumerate(table.protos) if i not in colluding]
    verdicts = {(p.abort.blamed, p.abort.reason) for p in honest if p.abort is not None}
    assert len(verdicts) == 1 and all(p.status is Status.ABORTED for p in honest), verdicts
    ((blamed, reason),) = verdicts
    assert blamed in colluding and "its remix proof fails" in reason, verdicts
    for p in honest:
        assert p.game is not None and p.game.hand is not None and not p.game.hand.played
    assert len({tuple(p.entries) for p in honest}) == 1
    report = audit_of(tmp_path, honest[0])
    abort = report["abort"]
    assert abort["ending"] == "cheat proven" and "its remix proof fails" in abort["reason"]
    assert abort["blamed"].endswith(f"(p{blamed})"), abort


def test_a_player_asked_for_fewer_proof_rounds_than_it_accepts_leaves_and_no_one_is_blamed(
    tmp_path: Path,
) -> None:
    """The host's genesis sets R (here 4); a peer that accepts no fewer than 16, as every peer
    the hearts command runs, leaves before the seats are drawn, and every peer and the audit
    record a departure, not a cheat."""
    table = Table(RULES, seed=5, proof_rounds=4)
    strict = 2
    old = table.protos[strict]
    table.protos[strict] = GameProtocol(GAME_ID, old.host_key, table.ids[strict], _secret(strict))
    table.run()
    for p in table.protos:
        assert p.status is Status.ABORTED and p.abort is not None, p.status
        assert p.abort.blamed is None and p.abort.culprit == strict, p.abort
    reason = table.protos[strict].abort.reason  # type: ignore[union-attr]
    assert "remix proofs of 4 rounds, fewer than the 16" in reason, reason
    assert len({tuple(p.entries) for p in table.protos}) == 1
    report = audit_of(tmp_path, table.protos[0])
    assert report["abort"]["ending"] != "cheat proven" and report["abort"]["blamed"] is None


@pytest.mark.parametrize(
    ("rounds", "why"),
    [(16, "leaves proof_rounds out at 16"), (0, "proof_rounds is 1 to 64"),
     (65, "proof_rounds is 1 to 64"), (True, "proof_rounds is a number"),
     ("4", "proof_rounds is a number")],
)  # fmt: skip
def test_a_genesis_s_proof_rounds_are_refused_unless_one_encoding_of_1_to_64(
    rounds: object, why: str
) -> None:
    table = Table(RULES, proof_rounds=4)
    wire = table.genesis.to_wire()
    assert wire["proof_rounds"] == 4
    assert Genesis.from_wire(GAME_ID, wire) == table.genesis
    assert "proof_rounds" not in Table(RULES, proof_rounds=PROOF_ROUNDS).genesis.to_wire()
    with pytest.raises(GenesisError, match=why):
        Genesis.from_wire(GAME_ID, {**wire, "proof_rounds": rounds})
