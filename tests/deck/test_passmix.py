"""The private pass on a real dealt hand: each seat's split and remix are proven re-keyings of
its dealt positions, every slot opens to the card it traces to, a swap between colluders cannot
be proven, and nothing published links any position of the final deck to its card."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from hearts_p2p.deck import Loopback, SeatDeck, SeededRandomness
from hearts_p2p.deck.curve import CARD_BY_POINT, CARD_POINTS, ORDER, encrypt
from hearts_p2p.deck.params import PASS_COUNT
from hearts_p2p.deck.passmix import Proven, remix, split
from hearts_p2p.deck.shuffleproof import (
    ProofResponse,
    challenge_bits,
    check_commitment,
    check_response,
    joint_challenge,
    respond,
)

from .table import make_table

ROUNDS = 16
PLAYERS = 4


@dataclass(frozen=True)
class Dealt:
    entries: tuple[bytes, ...]  # the seat's positions of the final deck
    totals: tuple[int, ...]  # the product of every lock key of each: its card's point to it
    cards: tuple[int, ...]


def _dealt_table(players: int = PLAYERS) -> Loopback:
    table = make_table(players, seed=b"passmix")
    table.start()  # shuffled, locked, dealt: every seat knows its hand
    assert not table.errors
    return table


def _dealt(seat: SeatDeck) -> Dealt:
    pub = seat.public
    final = pub.locks[pub.n - 1].deck
    positions = seat.params.positions_of(seat.seat)
    totals = []
    for i in positions:
        total = seat._locks[i]
        for other in pub.known[i].values():
            total = total * other % ORDER
        totals.append(total)
    return Dealt(
        tuple(final[i] for i in positions), tuple(totals), tuple(seat._cards[i] for i in positions)
    )


def _card_of(entry: bytes, key: int) -> int | None:
    return CARD_BY_POINT.get(encrypt(pow(key, -1, ORDER), entry))


def _hand(table: Loopback) -> tuple[list[Dealt], list[Proven], list[Proven], list[int]]:
    """Every seat splits off its first three dealt entries and remixes what it keeps with what
    it receives, checking each received entry opens to a card it does not hold."""
    seats = table.seats
    players = len(seats)
    targets = seats[0].params.pass_targets
    dealt = [_dealt(s) for s in seats]
    rngs = [SeededRandomness(b"passmix seat %d" % s) for s in range(players)]
    splits = [
        split(d.entries, d.totals, range(PASS_COUNT), ROUNDS, rngs[s]) for s, d in enumerate(dealt)
    ]
    source = [targets.index(s) for s in range(players)]
    mixes = []
    for s in range(players):
        mine, given = splits[s], splits[source[s]]
        kept = len(mine.entries) - PASS_COUNT
        received = given.openings[kept:]
        held = set(dealt[s].cards)
        for entry, key in zip(given.entries[kept:], received, strict=True):
            card = _card_of(entry, key)
            assert card is not None and card not in held
        inputs = (*mine.entries[:kept], *given.entries[kept:])
        mixes.append(remix(inputs, (*mine.openings[:kept], *received), ROUNDS, rngs[s]))
    return dealt, splits, mixes, source


def _inputs(splits: list[Proven], source: list[int], s: int) -> tuple[bytes, ...]:
    kept = len(splits[s].entries) - PASS_COUNT
    return (*splits[s].entries[:kept], *splits[source[s]].entries[kept:])


def _challenge() -> bytes:
    shares = [SeededRandomness(b"share %d" % s).token_bytes(32) for s in range(PLAYERS)]
    return joint_challenge(b"passmix hand", shares)


def _verdict(
    xs: tuple[bytes, ...], proven: Proven, label: bytes, ys: tuple[bytes, ...] | None = None
) -> str | None:
    ys = proven.entries if ys is None else ys
    bits = challenge_bits(_challenge(), label, xs, ys, proven.commitment)
    answer = respond(proven.witness, proven.rounds, bits)
    return check_commitment(xs, ys, proven.commitment, ROUNDS) or check_response(
        xs, ys, proven.commitment, answer, bits
    )


@pytest.mark.parametrize("players", [3, 6])
def test_a_private_pass_proves_every_step_and_opens_every_card(players: int) -> None:
    """At 3 and 6 seats (the largest and smallest hands) with 16 rounds: every split and remix
    passes its proof under the joint challenge, every slot opens with its key to a card, the
    opened cards are the deck once, and each seat opens exactly its dealt cards less the three
    it passed plus the three it received."""
    table = _dealt_table(players)
    dealt, splits, mixes, source = _hand(table)
    opened: list[int] = []
    for s in range(players):
        assert _verdict(dealt[s].entries, splits[s], b"split %d" % s) is None
        assert _verdict(_inputs(splits, source, s), mixes[s], b"remix %d" % s) is None
        cards = [_card_of(e, k) for e, k in zip(mixes[s].entries, mixes[s].openings, strict=True)]
        assert None not in cards
        src = dealt[source[s]].cards
        expected = {*dealt[s].cards[PASS_COUNT:], *src[:PASS_COUNT]}
        assert set(cards) == expected
        opened += [c for c in cards if c is not None]
    assert sorted(opened) == sorted(table.seats[0].params.cards)


def test_the_colluders_swap_cannot_be_proven() -> None:
    """Seat 2 hands seat 1 the key of one of its dealt positions; seat 1 puts that card in its
    remix in place of one of its own. The slot opens, but the remix's proof fails on a round
    asking intermediate to output, so the audit names seat 1 without any key revealed."""
    table = _dealt_table()
    dealt, splits, mixes, source = _hand(table)
    stolen = encrypt(dealt[2].totals[5], CARD_POINTS[dealt[2].cards[5]])
    assert stolen == dealt[2].entries[5]
    forged = (mixes[1].entries[0], stolen, *mixes[1].entries[2:])
    why = _verdict(_inputs(splits, source, 1), mixes[1], b"remix 1", forged)
    assert why is not None and "(intermediate to output)" in why


def test_nothing_published_decrypts_any_position() -> None:
    """After a clean private pass, no scalar the hand publishes (every proof answer, every
    slot's key) is the key taking a card to its position of the final deck, nor does any slot
    key decrypt any position to a card: the view of an uninvolved seat holds no key to another
    seat's dealt hand."""
    table = _dealt_table()
    dealt, splits, mixes, source = _hand(table)
    published: set[int] = {k for m in mixes for k in m.openings}
    for s in range(PLAYERS):
        for proven, xs, label in (
            (splits[s], dealt[s].entries, b"split %d" % s),
            (mixes[s], _inputs(splits, source, s), b"remix %d" % s),
        ):
            bits = challenge_bits(_challenge(), label, xs, proven.entries, proven.commitment)
            answer: ProofResponse = respond(proven.witness, proven.rounds, bits)
            published |= {int.from_bytes(k, "big") for r in answer.rounds for k in r.keys}
    position_keys = {t for d in dealt for t in d.totals} | {
        ORDER - t for d in dealt for t in d.totals
    }
    assert not published & position_keys
    entries = [e for d in dealt for e in d.entries]
    for key in {k for m in mixes for k in m.openings}:
        assert all(_card_of(e, key) is None for e in entries)
