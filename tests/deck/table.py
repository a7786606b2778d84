"""Building tables of seats for the deck tests, honest or with one cheating seat."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest

from hearts_p2p.deck import (
    AuditResult,
    DeckCheatError,
    HandParams,
    Loopback,
    Message,
    Phase,
    SeatDeck,
    SeededRandomness,
    audit_hand,
    new_pass_key,
)
from hearts_p2p.deck.passbox import public_bytes
from hearts_p2p.rules import Rules

GAME_ID = b"test-game-0001"
Tamper = Callable[[Message], Message]


def make_params(players: int, hand: int = 1, *, seed: bytes = b"") -> tuple[HandParams, list]:
    keys = [new_pass_key(SeededRandomness(seed + b"pass-key %d" % s)) for s in range(players)]
    params = HandParams.for_rules(
        Rules(players=players), GAME_ID, hand, [public_bytes(k) for k in keys]
    )
    return params, keys


def make_table(
    players: int,
    hand: int = 1,
    *,
    cheater: int | None = None,
    cls: type[SeatDeck] = SeatDeck,
    seed: bytes = b"",
) -> Loopback:
    """A table whose seat ``cheater`` runs ``cls`` (a subclass that misbehaves)."""
    params, keys = make_params(players, hand, seed=seed)
    seats = [
        (cls if s == cheater else SeatDeck)(
            params, s, keys[s], SeededRandomness(seed + b"seat %d" % s)
        )
        for s in range(players)
    ]
    return Loopback(seats)


def tampering(kind: type, tamper: Tamper) -> type[SeatDeck]:
    """A seat class that rewrites its own messages of ``kind`` before anyone sees them."""

    class Tampering(SeatDeck):
        def _emit(self, msg: Message) -> list[Message]:
            if isinstance(msg, kind):
                msg = tamper(msg)
            return super()._emit(msg)

    return Tampering


def replace(msg: Message, **changes: object) -> Message:
    return dataclasses.replace(msg, **changes)  # type: ignore[type-var]


def assert_caught(table: Loopback, cheater: int) -> None:
    """Every honest seat names ``cheater``, live or in its audit, and blames no one else; so
    does the offline audit of the transcript."""
    for seat in table.seats:
        if seat.seat == cheater:
            continue
        error = table.errors.get(seat.seat)
        if error is None:
            assert seat.phase is Phase.AUDIT, (seat.seat, seat.phase, seat.owed())
            with pytest.raises(DeckCheatError) as caught:
                seat.audit()
            error = caught.value
            result = seat.public.result
            assert result is not None and result.culprits == {cheater}, result.problems
        assert isinstance(error, DeckCheatError), error
        assert error.seat == cheater, error
    offline = audit_hand(table.seats[0].params, table.transcript)
    assert offline.culprits == {cheater}, offline.problems


def assert_honest(table: Loopback) -> list[AuditResult]:
    assert table.errors == {}
    results = [seat.audit() for seat in table.seats]
    assert all(r.ok for r in results)
    assert all(r == results[0] for r in results)
    return results
