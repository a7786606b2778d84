"""Every deviation of the issue's list is caught by every honest seat with the culprit named,
for 3 to 6 seats, and no honest seat is ever blamed."""

from __future__ import annotations

import pytest

from hearts_p2p.cards import QUEEN_SPADES, Card, cards_of
from hearts_p2p.deck import (
    DealKeys,
    DeckCheatError,
    Kind,
    Lock,
    Loopback,
    Message,
    Open,
    PassReveal,
    Phase,
    Reveal,
    SeatDeck,
    Shuffle,
    audit_hand,
    encrypt,
)
from hearts_p2p.deck.curve import CARD_POINTS, ORDER, scalar_bytes
from hearts_p2p.deck.passbox import seal_box

from .table import assert_caught, make_table, replace, tampering

PLAYERS = [3, 4, 5, 6]
GARBAGE = b"\xff" * 32  # above the field prime


def _no_pass(players: int) -> int:
    """A hand number without a pass: the pass cycle has 3 hands for 3 and 5 players, else 4."""
    return 3 if players in (3, 5) else 4


def _fresh_x(tag: int) -> bytes:
    """A valid x no honest step would produce."""
    return encrypt(1000 + tag, CARD_POINTS[0])


def _run(players: int, cheater: int, cls: type[SeatDeck], hand: int = 1) -> None:
    table = make_table(players, hand, cheater=cheater, cls=cls)
    table.run()
    assert_caught(table, cheater)


# --- shuffle ----------------------------------------------------------------------------


@pytest.mark.parametrize("players", PLAYERS)
def test_duplicate_in_shuffled_deck(players: int) -> None:
    cls = tampering(Shuffle, lambda m: replace(m, deck=(m.deck[1], *m.deck[1:])))
    _run(players, players - 1, cls)


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("entry", [GARBAGE, CARD_POINTS[5]])
def test_garbage_in_shuffled_deck(players: int, entry: bytes) -> None:
    cls = tampering(Shuffle, lambda m: replace(m, deck=(*m.deck[:3], entry, *m.deck[4:])))
    _run(players, 0, cls)


@pytest.mark.parametrize("players", PLAYERS)
def test_substituted_entry_in_shuffle(players: int) -> None:
    """A valid but foreign point passes the receipt checks; its holder finds no card at the
    deal, calls the audit, and the recomputed shuffle names the culprit."""
    cls = tampering(Shuffle, lambda m: replace(m, deck=(_fresh_x(1), *m.deck[1:])))
    _run(players, 1, cls)


# --- lock -------------------------------------------------------------------------------


@pytest.mark.parametrize("players", PLAYERS)
def test_duplicate_in_locked_deck(players: int) -> None:
    cls = tampering(Lock, lambda m: replace(m, deck=(*m.deck[:-1], m.deck[0])))
    _run(players, 0, cls)


@pytest.mark.parametrize("players", PLAYERS)
def test_garbage_in_locked_deck(players: int) -> None:
    cls = tampering(Lock, lambda m: replace(m, deck=(GARBAGE, *m.deck[1:])))
    _run(players, players - 1, cls)


@pytest.mark.parametrize("players", PLAYERS)
def test_substituted_entry_in_lock(players: int) -> None:
    cls = tampering(Lock, lambda m: replace(m, deck=(*m.deck[:5], _fresh_x(2), *m.deck[6:])))
    _run(players, 1, cls)


@pytest.mark.parametrize("players", PLAYERS)
def test_lock_commitments_of_the_wrong_count(players: int) -> None:
    cls = tampering(Lock, lambda m: replace(m, commitments=m.commitments[1:]))
    _run(players, 0, cls)


# --- deal and pass ----------------------------------------------------------------------


@pytest.mark.parametrize("players", PLAYERS)
def test_wrong_deal_key(players: int) -> None:
    def tamper(m: Message) -> Message:
        assert isinstance(m, DealKeys)
        return replace(m, keys=(scalar_bytes(12345), *m.keys[1:]))

    _run(players, players - 1, tampering(DealKeys, tamper))


class WrongPassKey(SeatDeck):
    """Seals a key one off for its first passed position."""

    def _pass_reveal(self) -> PassReveal:
        msg = super()._pass_reveal()
        assert self._ephemeral is not None
        keys = [(scalar_bytes(self._locks[i]), self._nonces[i]) for i in msg.positions]
        keys[0] = (scalar_bytes(self._locks[msg.positions[0]] + 1), keys[0][1])
        sealed = seal_box(self.params, self.seat, msg.positions, keys, self._ephemeral)
        return replace(msg, sealed=sealed)  # type: ignore[return-value]


class GarbagePassBox(SeatDeck):
    def _pass_reveal(self) -> PassReveal:
        msg = super()._pass_reveal()
        return replace(msg, sealed=bytes(len(msg.sealed)))  # type: ignore[return-value]


@pytest.mark.parametrize(
    ("players", "cls"), [(p, WrongPassKey) for p in PLAYERS] + [(4, GarbagePassBox)]
)
def test_wrong_pass_key(players: int, cls: type[SeatDeck]) -> None:
    """Only the receiver can see it: it calls the audit, which opens the box with the passer's
    revealed ephemeral key."""
    table = make_table(players, cheater=2, cls=cls)
    table.run()
    receiver = table.seats[2].params.pass_targets[2]
    assert table.seats[receiver or 0].public.stopped_by is not None
    assert_caught(table, 2)


@pytest.mark.parametrize("players", PLAYERS)
def test_pass_that_does_not_match_its_commitment(players: int) -> None:
    def tamper(m: Message) -> Message:
        assert isinstance(m, PassReveal)
        return replace(m, nonce=bytes(16))

    _run(players, 0, tampering(PassReveal, tamper))


# --- the last locker dealing itself a chosen card ---------------------------------------


class ChoosesQueen(SeatDeck):
    """The last locker swaps the entry at one of its own positions for ``r·P(Q♠)``, whose
    ``r`` it knows, hoping to open Q♠ there once the others' keys are out."""

    R = 987654321

    @property
    def target(self) -> int:
        return self.params.positions_of(self.seat)[0]

    def _lock(self) -> Lock:
        msg = super()._lock()
        deck = list(msg.deck)
        deck[self.target] = encrypt(self.R, CARD_POINTS[QUEEN_SPADES])
        return replace(msg, deck=tuple(deck))  # type: ignore[return-value]

    def _learn_hand(self) -> None:
        self._learned = True  # it knows what it did; it raises no alarm

    def open_queen(self, craft_key: bool) -> list[Message]:
        i = self.target
        if craft_key:
            others = 1
            for k in self.public.known[i].values():
                others = others * k % ORDER
            key = scalar_bytes(self.R * pow(others, -1, ORDER) % ORDER)
        else:
            key = scalar_bytes(self._locks[i])
        return self._emit(Open(self.seat, i, QUEEN_SPADES, key, self._nonces[i]))


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("craft_key", [True, False])
def test_last_locker_cannot_deal_itself_a_card(players: int, craft_key: bool) -> None:
    """With a key made to fit, the open fails its commitment; with the committed key, Q♠ does
    not come out, everyone calls the audit and the recomputed lock names the locker."""
    cheater = players - 1
    table = make_table(players, _no_pass(players), cheater=cheater, cls=ChoosesQueen)
    table.start()
    seat = table.seats[cheater]
    assert isinstance(seat, ChoosesQueen) and seat.phase is Phase.PLAY
    table.act(cheater, lambda s: seat.open_queen(craft_key))
    assert_caught(table, cheater)


# --- opens ------------------------------------------------------------------------------


def _after_deal(players: int) -> tuple[Loopback, list[SeatDeck]]:
    table = make_table(players, _no_pass(players))
    table.start()
    return table, table.seats


@pytest.mark.parametrize("players", PLAYERS)
def test_opening_a_position_held_by_another(players: int) -> None:
    table, seats = _after_deal(players)
    other = seats[1].params.positions_of(1)[0]
    card = seats[1]._cards[other]
    forged = Open(0, other, card, scalar_bytes(seats[0]._locks[other]), seats[0]._nonces[other])
    table.post([forged])
    assert_caught_live(table, 0)


@pytest.mark.parametrize("players", PLAYERS)
def test_naming_a_card_not_held(players: int) -> None:
    table, seats = _after_deal(players)
    i = seats[0].params.positions_of(0)[0]
    wrong = next(c for c in seats[0].params.cards if c != seats[0]._cards[i])
    key, nonce = scalar_bytes(seats[0]._locks[i]), seats[0]._nonces[i]
    table.post([Open(0, i, wrong, key, nonce)])
    assert_caught_live(table, 0)


@pytest.mark.parametrize("players", PLAYERS)
def test_opening_a_card_already_played(players: int) -> None:
    table, seats = _after_deal(players)
    (first,) = seats[2].open(cards_of(seats[2].hand)[0])
    table.post([first])
    assert table.errors == {}
    table.post([first])
    assert_caught_live(table, 2)


@pytest.mark.parametrize("players", PLAYERS)
def test_naming_an_already_played_card_at_a_fresh_position(players: int) -> None:
    table, seats = _after_deal(players)
    (first,) = seats[2].open(cards_of(seats[2].hand)[0])
    table.post([first])
    assert isinstance(first, Open)
    j = seats[2].public.holding(2)[0]
    key, nonce = scalar_bytes(seats[2]._locks[j]), seats[2]._nonces[j]
    table.post([Open(2, j, first.card, key, nonce)])
    assert_caught_live(table, 2)


def assert_caught_live(table: Loopback, cheater: int) -> None:
    for seat in table.seats:
        if seat.seat != cheater:
            error = table.errors[seat.seat]
            assert isinstance(error, DeckCheatError) and error.seat == cheater
    assert audit_hand(table.seats[0].params, table.transcript).culprits == {cheater}


# --- renege, reveal ---------------------------------------------------------------------


@pytest.mark.parametrize("players", PLAYERS)
def test_renege_is_found_from_the_true_hands(players: int) -> None:
    """The deck cannot see a false void during play; the audit's true hands show it."""
    for attempt in range(20):  # find a deal where the second seat can follow suit
        table = make_table(players, _no_pass(players), seed=b"renege %d" % attempt)
        table.start()
        seats, n = table.seats, players
        dealer = seats[0].params.dealer
        leader, follower = (dealer + 1) % n, (dealer + 2) % n
        led = cards_of(seats[leader].hand)[0]
        off = [c for c in cards_of(seats[follower].hand) if c.suit != led.suit]
        if off and any(c.suit == led.suit for c in cards_of(seats[follower].hand)):
            break
    tricks: list[list[tuple[int, Card]]] = []
    trick = [(leader, led)]
    table.act(leader, lambda s: s.open(led))
    table.act(follower, lambda s: s.open(off[0]))  # a false void
    trick.append((follower, off[0]))
    tricks.append(trick)
    table.play_lowest()
    result = seats[0].audit()
    assert result.ok
    assert _reneges(result.held, tricks) == [follower]


def _reneges(held: tuple[int, ...], tricks: list[list[tuple[int, Card]]]) -> list[int]:
    hands = [set(cards_of(m)) for m in held]
    found = []
    for trick in tricks:
        suit = trick[0][1].suit
        for seat, card in trick[1:]:
            if card.suit != suit and any(c.suit == suit for c in hands[seat]):
                found.append(seat)
        for seat, card in trick:
            hands[seat].discard(card)
    return found


def _reveal_tamper(field: str) -> type[SeatDeck]:
    def tamper(m: Message) -> Message:
        assert isinstance(m, Reveal)
        if field == "shuffle_key":
            return replace(m, shuffle_key=scalar_bytes(int.from_bytes(m.shuffle_key, "big") ^ 1))
        if field == "permutation":
            p = m.permutation
            return replace(m, permutation=(p[1], p[0], *p[2:]))
        if field == "lock_keys":
            return replace(m, lock_keys=(scalar_bytes(7), *m.lock_keys[1:]))
        return replace(m, pass_secret=bytes(31) + b"\x01")

    return tampering(Reveal, tamper)


def _alarming(cls: type[SeatDeck]) -> type[SeatDeck]:
    """``cls``, raising an alarm nothing justifies at the deal: the hand stops, not clean, and
    its audit recomputes every shuffle from the reveals."""

    class Alarming(cls):  # type: ignore[valid-type, misc]
        def _next(self) -> Message | None:
            if self.phase >= Phase.DEAL:
                self._alarm = self._alarm or "dealt position 0 does not hold a fresh card"
            return super()._next()

    return Alarming


@pytest.mark.parametrize(
    ("players", "field"),
    [
        *((p, "shuffle_key") for p in PLAYERS),
        (4, "permutation"),
        (3, "lock_keys"),
        (5, "pass_secret"),
    ],
)
def test_reveal_that_does_not_match(players: int, field: str) -> None:
    """The shuffle's secrets are revealed, and checked, only in a hand that stopped; lock keys
    and pass secrets in every hand."""
    cls = _reveal_tamper(field)
    _run(players, 1, _alarming(cls) if field in ("shuffle_key", "permutation") else cls)


class ShowsItsShuffle(SeatDeck):
    """Reveals its shuffle key and permutation although every card came out under its proof."""

    def _reveal(self) -> Reveal:
        msg = super()._reveal()
        return replace(msg, shuffle_key=scalar_bytes(self._shuffle_key), permutation=self._perm)  # type: ignore[return-value]


@pytest.mark.parametrize("players", [3, 4])
def test_a_clean_hands_reveal_that_shows_the_shuffle_is_refused(players: int) -> None:
    _run(players, 2, ShowsItsShuffle)


class Silent(SeatDeck):
    """Plays its cards but never reveals its secrets."""

    def _next(self) -> Message | None:
        msg = super()._next()
        return None if isinstance(msg, Reveal) else msg


@pytest.mark.parametrize("players", PLAYERS)
def test_a_seat_that_will_not_reveal_is_named_as_owing(players: int) -> None:
    silent = players - 1
    table = make_table(players, _no_pass(players), cheater=silent, cls=Silent)
    table.run()
    for seat in table.seats:
        if seat.seat != silent:
            assert seat.phase is Phase.REVEAL
            assert seat.owed() == {silent: Kind.REVEAL}
    offline = audit_hand(table.seats[0].params, table.transcript)
    assert offline.culprits == {silent}
