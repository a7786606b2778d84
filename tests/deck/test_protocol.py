"""Honest hands for 3 to 6 seats: everyone learns only its own cards, the deal partitions the
deck, passes and plays line up, and the audit (live and offline) agrees."""

from __future__ import annotations

import dataclasses

import pytest

from hearts_p2p.cards import cards_of, mask_of
from hearts_p2p.deck import (
    DeckUsageError,
    Kind,
    Phase,
    Reveal,
    audit_hand,
    message_from_wire,
    position_owner,
)
from hearts_p2p.rules import Rules, deck_mask

from .table import assert_honest, make_table


@pytest.mark.parametrize(("players", "hand"), [(3, 1), (4, 1), (4, 2), (4, 4), (5, 2), (6, 3)])
def test_honest_hand(players: int, hand: int) -> None:
    table = make_table(players, hand)
    table.start()
    dealt = [seat.dealt for seat in table.seats]
    assert sum(bin(m).count("1") for m in dealt) == bin(deck_mask(players)).count("1")
    assert mask_of(c for m in dealt for c in cards_of(m)) == deck_mask(players)
    table.pass_lowest()
    table.play_lowest()
    assert all(seat.phase is Phase.AUDIT for seat in table.seats)
    result = assert_honest(table)[0]
    reveals = [m for m in table.transcript if isinstance(m, Reveal)]
    assert len(reveals) == players
    assert all(r.shuffle_key == b"" and r.permutation == () for r in reveals)
    assert len(result.plays) == bin(deck_mask(players)).count("1")
    rules = Rules(players=players)
    if rules.pass_target(0, hand) is None:
        assert result.dealt == tuple(dealt)  # from the opens alone: the hand was clean
        assert result.held == result.dealt and result.passes == ()
        assert not result.passes_private
    else:
        # A clean remixed hand: every seat's cards after the pass, and nothing of the passes.
        assert result.passes_private and result.dealt == result.passes == result.cards == ()
        after = []
        for s, seat in enumerate(table.seats):
            passed = mask_of(cards_of(dealt[s])[:3])
            after.append(dealt[s] & ~passed | seat.received)
        assert result.held == tuple(after)
    assert audit_hand(table.seats[0].params, table.transcript) == result


def test_wire_round_trip_of_a_whole_hand() -> None:
    table = make_table(4)
    table.run()
    for msg in table.transcript:
        assert message_from_wire(msg.to_wire()) == msg


def test_positions_go_round_from_the_dealers_left() -> None:
    assert [position_owner(i, 4, 0) for i in range(5)] == [1, 2, 3, 0, 1]
    assert [position_owner(i, 3, 2) for i in range(4)] == [0, 1, 2, 0]


def test_a_seat_sees_only_its_own_cards() -> None:
    table = make_table(4)
    table.start()
    for seat in table.seats:
        own = set(seat.params.positions_of(seat.seat))
        assert set(seat._cards) == own


def test_owed_names_the_seat_being_waited_for() -> None:
    table = make_table(4)
    seats = table.seats
    assert seats[2].owed() == {0: Kind.SHUFFLE}
    (shuffle,) = seats[0].start()
    assert seats[2].receive(shuffle) == []
    assert seats[2].owed() == {1: Kind.SHUFFLE}
    table.post([shuffle])  # seat 2 has it already: an exact repeat is ignored
    table.pass_lowest()
    table.play_lowest()
    assert seats[2].owed() == {}


def test_messages_may_arrive_out_of_order() -> None:
    table = make_table(3)
    table.run()
    reference = table.seats[0].audit()
    late = make_table(3)
    observer = late.seats[0].public.__class__(late.seats[0].params)
    for sender in (2, 1, 0):  # each sender's stream in order, the senders one after another
        for msg in table.transcript:
            if msg.seat == sender:
                observer.receive(msg)
    assert observer.phase is Phase.AUDIT
    result = observer.audit()
    assert set(result.plays) == set(reference.plays)
    assert dataclasses.replace(result, plays=reference.plays) == reference


def test_local_misuse_is_refused() -> None:
    table = make_table(4)
    table.start()
    seat = table.seats[0]
    with pytest.raises(DeckUsageError):
        seat.open(cards_of(seat.dealt)[0])
    with pytest.raises(DeckUsageError):
        seat.choose_pass(cards_of(seat.dealt)[:2])
    with pytest.raises(DeckUsageError):
        seat.receive(table.transcript[0])
