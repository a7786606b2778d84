"""The remix after the pass: plays open slots of each seat's re-keyed hand, so an uninvolved seat
cannot tell a received card from a kept one; a false remix or slot open is named by every peer."""

from __future__ import annotations

import pytest

from hearts_p2p.cards import QUEEN_SPADES, cards_of
from hearts_p2p.deck import (
    DeckCheatError,
    Message,
    Open,
    Phase,
    PublicHand,
    Remix,
    Reveal,
    SeatDeck,
    encrypt,
)
from hearts_p2p.deck.curve import CARD_POINTS, ORDER, scalar_bytes

from .table import assert_caught, assert_honest, make_table, replace, tampering

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
    # The audit maps every slot back to its position: the card it names is the one there.
    cards = results[0].cards
    assert all(cards[p.position] == p.card for p in results[0].plays)


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
def test_a_remix_holding_a_card_the_seat_does_not_hold_is_named_by_the_audit(
    players: int,
) -> None:
    cheater = (_queen_holder(players) + 1) % players  # a seat without Q♠
    table = make_table(players, cheater=cheater, cls=SwapsInAQueen)
    table.run()
    # Q♠ comes out twice: the second open is true, the hand stops, the audit names the cheater.
    assert all(seat.public.anomaly is not None for seat in table.seats if seat.seat != cheater)
    assert_caught(table, cheater)
    honest = next(s for s in table.seats if s.seat != cheater)
    reasons = [str(p) for p in (honest.public.result.problems if honest.public.result else ())]
    assert any("remixed hand does not match" in r for r in reasons), reasons


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


def test_the_remix_keys_are_what_the_reveal_says() -> None:
    """A reveal whose remix keys do not give its remix is named by the audit; one with too few
    is refused on receipt."""

    def bump(m: Message) -> Message:
        assert isinstance(m, Reveal)
        first = scalar_bytes(int.from_bytes(m.remix_keys[0], "big") % (ORDER - 1) + 1)
        return replace(m, remix_keys=(first, *m.remix_keys[1:]))

    table = make_table(4, cheater=3, cls=tampering(Reveal, bump))
    table.run()
    assert_caught(table, 3)

    table = make_table(4, cheater=3, cls=tampering(Reveal, lambda m: replace(m, remix_keys=())))
    table.run()
    assert {s: e.seat for s, e in table.errors.items()} == {0: 3, 1: 3, 2: 3}


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("cheats", [False, True], ids=["honest", "swaps-in-a-queen"])
def test_each_remix_is_checked_as_its_reveal_comes_and_the_audit_agrees(
    players: int, cheats: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A watcher checks each seat's remix when that seat's reveal arrives, while the others
    are on their way: the audit of a clean hand, once every reveal is in, multiplies nothing
    more, and what was found on receipt is what a fresh check finds."""
    from hearts_p2p.deck import public as public_module

    cheater = (_queen_holder(players) + 1) % players if cheats else None
    table = make_table(players, cheater=cheater, cls=SwapsInAQueen)
    table.run()
    watcher = PublicHand(table.seats[0].params)
    for msg in table.transcript:
        watcher.receive(msg)
    on_receipt = [str(p) for p in watcher._audit_remixes(None)]
    calls: list[int] = []
    real = public_module.multiply

    def counting(key: object, x: object) -> object:
        calls.append(1)
        return real(key, x)  # type: ignore[arg-type]

    monkeypatch.setattr(public_module, "multiply", counting)
    result = watcher.audit()
    monkeypatch.undo()
    watcher._remix_checked.clear()
    assert [str(p) for p in watcher._audit_remixes(None)] == on_receipt
    if cheats:
        assert on_receipt and {p.seat for p in result.problems} == {cheater}
    else:
        assert calls == [] and on_receipt == [] and not result.problems
