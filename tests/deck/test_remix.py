"""The remix after the pass: plays open slots of each seat's re-keyed hand, so an uninvolved seat
cannot tell a received card from a kept one; a false remix or slot open is named by every peer."""

from __future__ import annotations

from typing import ClassVar

import pytest

from hearts_p2p.cards import QUEEN_SPADES, cards_of
from hearts_p2p.deck import (
    DeckCheatError,
    Loopback,
    Message,
    Open,
    Phase,
    PublicHand,
    Remix,
    Reveal,
    SeatDeck,
    SeededRandomness,
    audit_hand,
    encrypt,
)
from hearts_p2p.deck.curve import CARD_POINTS, ORDER, scalar_bytes

from .table import assert_caught, assert_honest, make_params, make_table, replace, tampering

PLAYERS = [3, 4, 5, 6]


@pytest.mark.parametrize("players", PLAYERS)
def test_an_honest_remixed_hand_audits_and_plays_open_slots(players: int) -> None:
    table = make_table(players)
    table.run()
    results = assert_honest(table)
    public = table.seats[0].public
    assert public.remixed
    opens = [m for m in table.transcript if isinstance(m, Open)]
    assert len(opens) == public.m
    for o in opens:
        assert o.position in public.slots(o.seat)  # a slot of its own hand, never a position
        assert o.nonce == bytes(16)
    # The audit knows each seat's hand after the pass from its slots, and nothing more.
    result = results[0]
    assert result.passes_private and result.cards == result.dealt == result.passes == ()
    for p in result.plays:
        assert p.position in public.slots(p.seat) and result.held[p.seat] >> p.card & 1
    assert result.held == tuple(seat.held for seat in table.seats)


@pytest.mark.parametrize("players", PLAYERS)
def test_a_clean_remixed_hands_reveals_show_no_key(players: int) -> None:
    """No lock key, nonce, remix key or order, or pass secret in any reveal: the pass boxes
    stay sealed and no position's card can be worked out by anyone who was not its holder."""
    table = make_table(players)
    table.run()
    assert_honest(table)
    reveals = [m for m in table.transcript if isinstance(m, Reveal)]
    assert len(reveals) == players
    for r in reveals:
        assert r.lock_keys == r.lock_nonces == r.remix_keys == r.remix_order == ()
        assert r.pass_secret == r.shuffle_key == b"" and r.permutation == ()
    watcher = PublicHand(table.seats[0].params)
    for msg in table.transcript:
        watcher.receive(msg)
    for i, known in enumerate(watcher.known):
        assert watcher.params.dealt_to[i] not in known, i


class RevealsItsRemix(SeatDeck):
    """Reveals its remix keys and order (and lock keys) in a clean remixed hand."""

    def _reveal(self) -> Reveal:
        msg = super()._reveal()
        keys = tuple(scalar_bytes(u) for u in self._remix_keys)
        return replace(msg, remix_keys=keys, remix_order=self._remix_order)  # type: ignore[return-value]


def test_a_key_revealed_in_a_clean_remixed_hand_is_named_on_receipt() -> None:
    table = make_table(4, cheater=2, cls=RevealsItsRemix)
    table.run()
    assert {s: e.seat for s, e in table.errors.items()} == {0: 2, 1: 2, 3: 2}
    assert all("in a clean remixed hand" in str(e) for e in table.errors.values())


@pytest.mark.parametrize("players", PLAYERS)
def test_plays_publish_no_lock_key_of_any_position(players: int) -> None:
    """Before the reveals, nobody but a position's holders can decrypt it: no play publishes the
    dealt owner's key, as plays of positions did. So no play links a card to the seat dealt it."""
    table = make_table(players)
    table.start()
    table.pass_lowest()
    table.play_lowest()
    watcher = PublicHand(table.seats[0].params)
    for msg in table.transcript:
        if msg.KIND.value == "reveal":
            break
        watcher.receive(msg)
    assert len(watcher.opened) == watcher.m
    for i, known in enumerate(watcher.known):
        assert watcher.params.dealt_to[i] not in known, i


@pytest.mark.parametrize("players", [3, 4])
def test_the_slot_order_is_the_seats_secret(players: int) -> None:
    """A seat's received cards do not come at fixed slots: across seeds they land anywhere."""
    received_slots: set[int] = set()
    for seed in range(6):
        table = make_table(players, seed=b"order %d" % seed)
        table.run()
        seat = table.seats[1]
        results = seat.audit()
        got = seat.received
        for play in results.plays:
            if play.seat == 1 and got >> play.card & 1:
                slot = next(
                    o.position
                    for o in table.transcript
                    if isinstance(o, Open) and o.seat == 1 and o.card == play.card
                )
                received_slots.add(slot - seat.public.share)
    assert len(received_slots) > 6


def _replace_entry(k: int, entry: bytes) -> type[SeatDeck]:
    return tampering(Remix, lambda m: replace(m, deck=(*m.deck[:k], entry, *m.deck[k + 1 :])))


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize(
    "entry, why",
    [
        (b"\xff" * 32, "is not a point"),
        (CARD_POINTS[3], "bare card point"),
    ],
)
def test_a_malformed_remix_is_named_on_receipt(players: int, entry: bytes, why: str) -> None:
    table = make_table(players, cheater=1, cls=_replace_entry(0, entry))
    table.run()
    for seat, error in table.errors.items():
        assert seat != 1 and isinstance(error, DeckCheatError) and error.seat == 1
        assert why in error.reason
    assert set(table.errors) == set(range(players)) - {1}


def test_a_remix_repeating_an_entry_or_of_the_wrong_size_is_named_on_receipt() -> None:
    repeat = tampering(Remix, lambda m: replace(m, deck=(m.deck[1], *m.deck[1:])))
    short = tampering(Remix, lambda m: replace(m, deck=m.deck[:-1]))
    for cls, why in ((repeat, "repeats entry"), (short, "entries, not")):
        table = make_table(4, cheater=2, cls=cls)
        table.run()
        assert {s: e.seat for s, e in table.errors.items()} == {0: 2, 1: 2, 3: 2}
        assert all(why in str(e) for e in table.errors.values())


class SwapsInAQueen(SeatDeck):
    """Remixes Q♠, which it does not hold, in place of its highest card, and plays it: what no
    check on receipt can see. Its reveal is honest about every key, so the audit shows it."""

    def _remix(self) -> Remix:
        honest = super()._remix()
        where = {c: q for q, c in self._where_after(honest).items()}
        self._fake_slot = where[max(where)]
        entry = encrypt(self._fake_key, CARD_POINTS[QUEEN_SPADES])
        k = self._fake_slot - self.seat * self.public.share
        return replace(honest, deck=(*honest.deck[:k], entry, *honest.deck[k + 1 :]))

    _fake_key = 0xC0FFEE
    _fake_slot = -1

    def _where_after(self, remix: Remix) -> dict[int, int]:
        first = self.seat * self.public.share
        held = self.public.held(self.seat)
        return {first + k: self._cards[held[j]] for k, j in enumerate(self._remix_order)}

    def _where(self) -> dict[int, int]:
        where = super()._where()
        if self._fake_slot in where:
            where[self._fake_slot] = QUEEN_SPADES
        return where

    def _proof(self, at: int, card: int) -> Open:
        if at != self._fake_slot:
            return super()._proof(at, card)
        return Open(self.seat, at, card, scalar_bytes(self._fake_key), bytes(16))


def _queen_holder(players: int) -> int:
    """Who holds Q♠ after the pass in the seeded hand."""
    table = make_table(players)
    table.run()
    result = table.seats[0].audit()
    return next(s for s in range(players) if result.held[s] >> QUEEN_SPADES & 1)


@pytest.mark.parametrize("players", PLAYERS)
def test_a_remix_holding_a_card_the_seat_does_not_hold_is_named_by_its_proof(
    players: int,
) -> None:
    cheater = (_queen_holder(players) + 1) % players  # a seat without Q♠
    table = make_table(players, cheater=cheater, cls=SwapsInAQueen)
    table.run()
    # Its proof's answer cannot open a round asked from intermediate to output: named before
    # any card is played, by every honest seat and the offline audit.
    assert all(m.seat == cheater for m in table.transcript if isinstance(m, Open))
    assert_caught(table, cheater)
    assert all("its remix proof fails" in str(e) for e in table.errors.values())


@pytest.mark.parametrize(
    "forge, why",
    [
        (lambda o, s: replace(o, key=scalar_bytes(int.from_bytes(o.key, "big") ^ 1)), "from slot"),
        (lambda o, s: replace(o, nonce=b"\x01" * 16), "nonce"),
        (lambda o, s: replace(o, position=(o.position + s) % 52), "which seat"),
        (lambda o, s: replace(o, card=(o.card + 1) % 52), "from slot"),
    ],
)
def test_a_false_slot_open_is_named_on_receipt(forge: object, why: str) -> None:
    table = make_table(4)
    table.start()
    table.pass_lowest()
    seat = table.seats[0]
    assert seat.phase is Phase.PLAY and seat.public.remixed
    card = cards_of(seat.hand)[0]
    honest = seat.show(card)
    assert callable(forge)
    bad: Message = forge(honest, seat.public.share)
    table.post([bad])
    assert {s: e.seat for s, e in table.errors.items()} == {1: 0, 2: 0, 3: 0}
    assert all(why in str(e) for e in table.errors.values()), table.errors


class AlarmsInPlay(SeatDeck):
    """Stops the hand after the first card with an alarm nothing justifies: the hand is not
    clean, so every seat reveals its keys and the audit checks each remix by them."""

    def open(self, card: int) -> list[Message]:
        return super().open(card) + self.alarm("a card looked wrong")


def _stopped_table(players: int, cheater: int, cls: type[SeatDeck]) -> Loopback:
    params, keys = make_params(players)
    seats = [
        (cls if s == cheater else AlarmsInPlay if s == 0 else SeatDeck)(
            params, s, keys[s], SeededRandomness(b"seat %d" % s)
        )
        for s in range(players)
    ]
    table = Loopback(seats)
    table.run()
    return table


def test_the_remix_keys_are_what_the_reveal_says_in_a_hand_not_clean() -> None:
    """In a stopped hand a reveal whose remix keys do not give its remix is named by the
    audit; one with too few is refused on receipt."""

    def bump(m: Message) -> Message:
        assert isinstance(m, Reveal)
        first = scalar_bytes(int.from_bytes(m.remix_keys[0], "big") % (ORDER - 1) + 1)
        return replace(m, remix_keys=(first, *m.remix_keys[1:]))

    table = _stopped_table(4, 3, tampering(Reveal, bump))
    assert not table.seats[1].public.clean
    assert_caught(table, 3)

    table = _stopped_table(4, 3, tampering(Reveal, lambda m: replace(m, remix_keys=())))
    assert {s: e.seat for s, e in table.errors.items()} == {0: 3, 1: 3, 2: 3}


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("clean", [True, False], ids=["clean", "stopped"])
def test_each_remix_is_checked_as_its_reveal_comes_and_the_audit_agrees(
    players: int, clean: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A watcher checks each seat's remix by its keys when that seat's reveal arrives in a
    hand that stopped; a clean remixed hand's audit multiplies nothing at all (its remixes
    were proven before the first play)."""
    from hearts_p2p.deck import public as public_module

    table = make_table(players) if clean else _stopped_table(players, 1, SeatDeck)
    if clean:
        table.run()
    watcher = PublicHand(table.seats[1].params)
    for msg in table.transcript:
        watcher.receive(msg)
    calls: list[int] = []
    real = public_module.multiply

    def counting(key: object, x: object) -> object:
        calls.append(1)
        return real(key, x)  # type: ignore[arg-type]

    monkeypatch.setattr(public_module, "multiply", counting)
    result = watcher.audit()
    monkeypatch.undo()
    assert not result.problems and result.passes_private is clean
    if clean:
        assert calls == [] and watcher._remix_checked == {}
    else:
        assert sorted(watcher._remix_checked) == list(range(players))


class SwapsWithAPartner(SeatDeck):
    """Seats 1 and 2 collude: each remixes the other's lowest held position in place of its
    own lowest, so every position is still in exactly one remix and every card comes out once:
    only the remix proofs can tell. The proof is the real prover's, over its true positions."""

    partner: ClassVar[dict[int, int]] = {1: 2, 2: 1}

    def _remix(self) -> Remix:
        honest = super()._remix()
        mine = self.public.held(self.seat)[0]
        theirs = self.public.held(self.partner[self.seat])[0]
        k = self._slot_positions.index(mine)
        entry = encrypt(self._remix_keys[k], self.public.locks[-1].deck[theirs])
        return replace(honest, deck=(*honest.deck[:k], entry, *honest.deck[k + 1 :]))  # type: ignore[return-value]


@pytest.mark.parametrize("seed", [b"", b"collusion 1", b"collusion 2"])
def test_two_colluders_swapping_positions_are_named_by_the_seeded_challenge(seed: bytes) -> None:
    params, keys = make_params(4, seed=seed)
    seats = [
        (SwapsWithAPartner if s in (1, 2) else SeatDeck)(
            params, s, keys[s], SeededRandomness(seed + b"seat %d" % s)
        )
        for s in range(4)
    ]
    table = Loopback(seats)
    table.run()
    honest = {0, 3}
    named = {
        table.errors[s].seat for s in honest if isinstance(table.errors.get(s), DeckCheatError)
    }
    assert set(table.errors) >= honest and len(named) == 1 and named <= {1, 2}, table.errors
    assert all("its remix proof fails" in str(table.errors[s]) for s in honest)
    offline = audit_hand(params, table.transcript)
    assert offline.culprits == named
