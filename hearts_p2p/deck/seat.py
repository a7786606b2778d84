"""One seat's deck state machine: the public checks plus this seat's secrets.

Every seat runs the same code and holds only its own keys. ``receive`` takes a peer's message
and returns what this seat must broadcast in answer; ``choose_pass`` and ``open`` are the
player's actions. Nothing here does I/O or reads a clock.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Iterable

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from ..cards import CARDS, mask_of
from .commitments import NONCE_LEN, lock_commitment, pass_commitment
from .curve import ORDER, scalar_bytes, scalar_from_bytes
from .errors import DeckUsageError
from .group import multiply, scalar_key
from .messages import (
    DealKeys,
    Echo,
    Kind,
    Lock,
    Message,
    Open,
    PassCommit,
    PassReveal,
    Remix,
    RemixAnswer,
    RemixShare,
    Reveal,
    Shuffle,
    Stage,
)
from .params import PASS_COUNT, HandParams
from .passbox import open_box, public_bytes, seal_box
from .public import AuditResult, Phase, PublicHand
from .randomness import Randomness, SystemRandomness, random_permutation, random_scalar
from .shuffleproof import SHARE_LEN, RoundSecret, Witness, commit, respond, share_commitment

__all__ = ["SeatDeck", "new_pass_key"]


def new_pass_key(rng: Randomness | None = None) -> X25519PrivateKey:
    """A seat's X25519 key for one game; its public half goes in the roster."""
    return X25519PrivateKey.from_private_bytes((rng or SystemRandomness()).token_bytes(32))


class SeatDeck:
    """The deck protocol as seen by seat ``seat``.

    Secrets are drawn from ``rng`` in a fixed order (shuffle key, permutation, lock keys, lock
    nonces; later the pass nonce, the ephemeral key, then the remix order and keys, its proof's
    rounds and its challenge share) so a seeded source reproduces a hand exactly.
    """

    def __init__(
        self,
        params: HandParams,
        seat: int,
        pass_key: X25519PrivateKey,
        rng: Randomness | None = None,
    ) -> None:
        if not 0 <= seat < params.players:
            raise DeckUsageError(f"no seat {seat} at a table of {params.players}")
        if public_bytes(pass_key) != params.pass_keys[seat]:
            raise DeckUsageError("the pass key is not the one announced for this seat")
        self.params = params
        self.seat = seat
        self.public = PublicHand(params)
        self._rng = rng or SystemRandomness()
        self._pass_key = pass_key
        m = params.size
        self._shuffle_key = random_scalar(self._rng)
        self._perm = random_permutation(m, self._rng)
        self._locks = tuple(random_scalar(self._rng) for _ in range(m))
        self._nonces = tuple(self._rng.token_bytes(NONCE_LEN) for _ in range(m))
        self._cards: dict[int, int] = {}
        self._received: dict[int, tuple[bytes, bytes]] = {}
        self._remix_order: tuple[int, ...] = ()
        self._remix_keys: tuple[int, ...] = ()
        self._slot_positions: tuple[int, ...] = ()  # the position each slot of its remix holds
        self._proof_secrets: tuple[RoundSecret, ...] = ()
        self._share = b""
        self._pass: tuple[tuple[int, ...], bytes] | None = None
        self._ephemeral: X25519PrivateKey | None = None
        self._learned = False
        self._alarm: str | None = None
        self._revealed = False

    # --- views -----------------------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        return self.public.phase

    def owed(self) -> dict[int, Kind]:
        """Seats that still owe a message, and which (for the node's timeouts)."""
        return self.public.owed()

    @property
    def hand(self) -> int:
        """Mask of the cards this seat holds and has not played."""
        return mask_of(self._where().values())

    @property
    def dealt(self) -> int:
        return mask_of(self._cards[i] for i in self.params.positions_of(self.seat))

    @property
    def held(self) -> int:
        """Mask of the cards this seat holds after the pass (dealt and kept, or received)."""
        return mask_of(self._cards[i] for i in self.public.held(self.seat) if i in self._cards)

    @property
    def passed(self) -> int:
        """Mask of the cards this seat passed (0 before it chose, or in a no-pass hand)."""
        return mask_of(self._cards[i] for i in self._pass[0]) if self._pass else 0

    @property
    def received(self) -> int:
        return mask_of(self._cards[i] for i in self._received if i in self._cards)

    @property
    def alarm_reason(self) -> str | None:
        """Why this seat stopped the hand on its own (keys sealed to it that are wrong, …)."""
        return self._alarm

    # --- actions ---------------------------------------------------------------------------

    def start(self) -> list[Message]:
        """The seat's first messages (seat 0's shuffle; nothing for the others)."""
        return self._advance()

    def receive(self, msg: Message) -> list[Message]:
        """Apply a peer's message; return this seat's messages to broadcast in answer.

        Raises ``DeckCheatError`` naming the culprit, ``DeckEchoMismatch``, or
        ``DeckMessageError``; after any of them the hand is over for this seat.
        """
        if msg.seat == self.seat:
            raise DeckUsageError("a seat's own messages are applied when it makes them")
        for applied in self.public.receive(msg):
            self._react(applied)
        return self._advance()

    def choose_pass(self, cards: Iterable[int]) -> list[Message]:
        """Commit to passing ``cards`` (three of the cards dealt to this seat)."""
        if self.phase is not Phase.PASS_COMMIT or self._pass is not None:
            raise DeckUsageError(f"no pass to choose now (phase {self.phase.name})")
        chosen = sorted(set(cards))
        where = {c: i for i, c in self._cards.items() if self.params.dealt_to[i] == self.seat}
        if len(chosen) != PASS_COUNT or any(c not in where for c in chosen):
            names = " ".join(str(CARDS[c]) for c in chosen if 0 <= c < 52)
            raise DeckUsageError(f"pass exactly {PASS_COUNT} dealt cards, not {names!r}")
        positions = tuple(sorted(where[c] for c in chosen))
        nonce = self._rng.token_bytes(NONCE_LEN)
        self._pass = (positions, nonce)
        commit = PassCommit(self.seat, pass_commitment(self.params, self.seat, positions, nonce))
        return self._emit(commit) + self._advance()

    def find_pass(self, commitment: bytes) -> list[int] | None:
        """The three dealt cards whose pass commitment, with the nonce this seat's source draws
        next, is ``commitment``; None if none is. The table plays a seat that committed to a
        pass and then left: its secrets come from the escrow, its choice from this search (at
        most C(17, 3) hashes)."""
        nonce = copy.copy(self._rng).token_bytes(NONCE_LEN)
        mine = self.params.positions_of(self.seat)
        for positions in itertools.combinations(mine, PASS_COUNT):
            if pass_commitment(self.params, self.seat, positions, nonce) == commitment:
                return sorted(self._cards[i] for i in positions if i in self._cards)
        return None

    def open(self, card: int) -> list[Message]:
        """Play ``card``: the proof of its position, or after a remix of its slot."""
        if self.phase is not Phase.PLAY:
            raise DeckUsageError(f"no card can be opened now (phase {self.phase.name})")
        where = {c: i for i, c in self._where().items()}
        if card not in where:
            raise DeckUsageError(f"{CARDS[card]} is not in this seat's hand")
        return self._emit(self._proof(where[card], card)) + self._advance()

    def show(self, card: int) -> Open:
        """Show ``card`` and keep it (a Gong Zhu exposure, a claim): the open a play of it would
        send."""
        if self.phase is not Phase.PLAY:
            raise DeckUsageError(f"no card can be shown now (phase {self.phase.name})")
        where = {c: i for i, c in self._where().items()}
        if card not in where:
            raise DeckUsageError(f"{CARDS[card]} is not in this seat's hand")
        return self._proof(where[card], card)

    def alarm(self, reason: str) -> list[Message]:
        """Stop the hand: reveal everything now so the audit runs."""
        if not Phase.DEAL <= self.phase <= Phase.REVEAL or self._revealed:
            raise DeckUsageError(f"no alarm possible now (phase {self.phase.name})")
        self._alarm = self._alarm or reason[:200] or "stopped by the player"
        return self._advance()

    def audit(self) -> AuditResult:
        """Run the end-of-hand audit once every seat has revealed; raise the first fault."""
        if self.phase is not Phase.AUDIT:
            raise DeckUsageError(f"the audit needs every reveal (phase {self.phase.name})")
        result = self.public.audit(own=self.seat)
        if result.problems:
            self.public.fault = result.problems[0]
            raise result.problems[0]
        return result

    # --- internals -------------------------------------------------------------------------

    def _where(self) -> dict[int, int]:
        """What this seat can still open, and the card each holds: its remixed slots, or the
        positions it holds before a remix."""
        pub = self.public
        if not pub.remixed:
            return {i: self._cards[i] for i in pub.holding(self.seat) if i in self._cards}
        first = self.seat * pub.share
        return {q: self._cards[self._slot_positions[q - first]] for q in pub.holding(self.seat)}

    def _owner_key(self, position: int) -> tuple[bytes, bytes]:
        """The dealt owner's lock key and nonce of a position this seat holds."""
        if position in self._received:
            return self._received[position]
        return scalar_bytes(self._locks[position]), self._nonces[position]

    def _proof(self, at: int, card: int) -> Open:
        """The open of ``card`` at ``at``: a position and its owner's key, or, in a remixed
        hand, a slot and the scalar taking the card's point to it (its remix key times every
        lock key of the position)."""
        if not self.public.remixed:
            return Open(self.seat, at, card, *self._owner_key(at))
        k = at - self.seat * self.public.share
        position = self._slot_positions[k]
        total = self._remix_keys[k] * int.from_bytes(self._owner_key(position)[0], "big")
        for other in self.public.known[position].values():
            total = total * other % ORDER
        return Open(self.seat, at, card, scalar_bytes(total % ORDER), bytes(NONCE_LEN))

    def _emit(self, msg: Message) -> list[Message]:
        """Apply our own message to the public state and return it for broadcast."""
        for applied in self.public.receive(msg, trusted=True):
            if applied is not msg:
                self._react(applied)
        return [msg]

    def _advance(self) -> list[Message]:
        out: list[Message] = []
        while (msg := self._next()) is not None:
            out += self._emit(msg)
        return out

    def _next(self) -> Message | None:
        pub, seat, phase = self.public, self.seat, self.public.phase
        if phase >= Phase.AUDIT:
            return None
        if phase >= Phase.DEAL and len(pub.deal) == pub.n and not self._learned:
            self._learn_hand()
        if phase >= Phase.DEAL and (self._alarm or phase is Phase.REVEAL) and not self._revealed:
            return self._reveal()
        if phase is Phase.SHUFFLE and len(pub.shuffles) == seat:
            return self._shuffle()
        if phase is Phase.LOCK and len(pub.locks) == seat:
            return self._lock()
        for stage, at in ((Stage.SHUFFLE, Phase.SHUFFLE_ECHO), (Stage.LOCK, Phase.LOCK_ECHO)):
            if phase is at and seat not in pub.echoes[stage]:
                return Echo(seat, stage, pub.digest(stage))
        if phase >= Phase.DEAL and seat not in pub.deal:
            return self._deal_keys()
        if phase is Phase.PASS_REVEAL and seat not in pub.pass_reveals:
            return self._pass_reveal()
        if phase is Phase.REMIX and seat not in pub.remixes:
            return self._remix()
        if phase is Phase.REMIX_SHARE and seat not in pub.shares:
            return RemixShare(seat, self._share)
        if phase is Phase.REMIX_ANSWER and seat not in pub.answers:
            return self._answer()
        return None

    def _shuffle(self) -> Shuffle:
        key = self.public.keys.get(self._shuffle_key)
        source = self.public.shuffle_input(self.seat)
        return Shuffle(self.seat, tuple(multiply(key, source[j]) for j in self._perm))

    def _lock(self) -> Lock:
        unshuffle = pow(self._shuffle_key, -1, ORDER)
        source = self.public.lock_input(self.seat)
        deck = tuple(
            multiply(scalar_key(lk * unshuffle % ORDER), x)
            for lk, x in zip(self._locks, source, strict=True)
        )
        commitments = tuple(
            lock_commitment(self.params, self.seat, i, scalar_bytes(lk), nonce)
            for i, (lk, nonce) in enumerate(zip(self._locks, self._nonces, strict=True))
        )
        return Lock(self.seat, deck, commitments)

    def _deal_keys(self) -> DealKeys:
        others = [i for i, s in enumerate(self.params.dealt_to) if s != self.seat]
        keys = tuple(scalar_bytes(self._locks[i]) for i in others)
        return DealKeys(self.seat, keys, tuple(self._nonces[i] for i in others))

    def _card_at(self, position: int, key: int) -> int | None:
        """Decrypt a position this seat may see, with ``key`` the one secret key not in
        ``known`` (the position's dealt owner's)."""
        total = key
        for other in self.public.known[position].values():
            total = total * other % ORDER
        return self.public.decrypt(position, total)

    def _take(self, positions: Iterable[int], keys: Iterable[int], what: str) -> None:
        for i, key in zip(positions, keys, strict=True):
            card = self._card_at(i, key)
            if card is None or card in self._cards.values():
                self._alarm = self._alarm or f"{what} position {i} does not hold a fresh card"
                return
            self._cards[i] = card

    def _learn_hand(self) -> None:
        self._learned = True
        mine = self.params.positions_of(self.seat)
        self._take(mine, (self._locks[i] for i in mine), "dealt")

    def _pass_reveal(self) -> PassReveal:
        assert self._pass is not None
        positions, nonce = self._pass
        self._ephemeral = X25519PrivateKey.from_private_bytes(self._rng.token_bytes(32))
        keys = [(scalar_bytes(self._locks[i]), self._nonces[i]) for i in positions]
        sealed = seal_box(self.params, self.seat, positions, keys, self._ephemeral)
        return PassReveal(self.seat, positions, nonce, public_bytes(self._ephemeral), sealed)

    def _remix(self) -> Remix:
        """The hand afresh: slot k holds position ``held[order[k]]`` under its own key, with
        the intermediates of the proof of it and the commitment to this seat's challenge share.
        """
        held = self.public.held(self.seat)
        self._remix_order = random_permutation(len(held), self._rng)
        self._remix_keys = tuple(random_scalar(self._rng) for _ in held)
        self._slot_positions = tuple(held[j] for j in self._remix_order)
        deck = tuple(
            multiply(scalar_key(u), self.public.final_point(held[j]))
            for u, j in zip(self._remix_keys, self._remix_order, strict=True)
        )
        proof, self._proof_secrets = commit(
            self.public.remix_input(self.seat), self.params.proof_rounds, self._rng
        )
        self._share = self._rng.token_bytes(SHARE_LEN)
        digest = share_commitment(self.params.context, self.seat, self._share)
        return Remix(self.seat, deck, proof.lists, digest)

    def _answer(self) -> RemixAnswer:
        """The proof's answer to the joint challenge: the witness is the remix itself, since
        ``deck[k] = E_{u_k}(xs[σ_k])`` with ``xs`` the held positions' entries of ``F``."""
        witness = Witness(self._remix_order, self._remix_keys)
        response = respond(witness, self._proof_secrets, self.public.bits[self.seat])
        return RemixAnswer(
            self.seat,
            tuple(r.order for r in response.rounds),
            tuple(r.keys for r in response.rounds),
        )

    def _react(self, msg: Message) -> None:
        if isinstance(msg, PassReveal) and self.params.pass_targets[msg.seat] == self.seat:
            self._receive_pass(msg)

    def _receive_pass(self, msg: PassReveal) -> None:
        boxed = open_box(
            self.params,
            msg.seat,
            msg.positions,
            msg.ephemeral,
            msg.sealed,
            self._pass_key,
            msg.ephemeral,
        )
        committed = self.public.locks[msg.seat].commitments
        if boxed is None or any(
            scalar_from_bytes(k) is None
            or lock_commitment(self.params, msg.seat, i, k, n) != committed[i]
            for i, (k, n) in zip(msg.positions, boxed, strict=True)
        ):
            self._alarm = self._alarm or f"the pass keys from seat {msg.seat} are wrong"
            return
        for i, pair in zip(msg.positions, boxed, strict=True):
            self._received[i] = pair
        keys = [scalar_from_bytes(k) or 0 for k, _ in boxed]
        self._take(msg.positions, keys, "received")

    def _reveal(self) -> Reveal:
        self._revealed = True
        secret = self._ephemeral.private_bytes_raw() if self._ephemeral else b""
        reason = self._alarm or self.public.anomaly or ""
        remixed = self.public.remixed  # a remix made but never sent is not revealed
        clean = self.public.clean  # a clean hand is audited from its opens (SPEC 4.4 step 8)
        if self.public.passes_private:  # proven remixes, every slot opened: nothing to show
            return Reveal(self.seat, b"", (), (), (), b"", reason)
        return Reveal(
            self.seat,
            b"" if clean else scalar_bytes(self._shuffle_key),
            () if clean else self._perm,
            tuple(scalar_bytes(k) for k in self._locks),
            self._nonces,
            secret,
            reason,
            tuple(scalar_bytes(u) for u in self._remix_keys) if remixed else (),
            self._remix_order if remixed else (),
        )
