"""The public half of a hand: every check any peer (or a later audit) can make.

A ``PublicHand`` is fed every message of the hand, its owner's included, and holds no secret.
Seats wrap one; ``audit_hand`` replays a log through one. Messages that arrive before they can
be checked (a lock before the shuffle echoes, say) wait in a bounded buffer, so the result does
not depend on the order in which different connections deliver.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from ..cards import CARDS, mask_of
from .commitments import NONCE_LEN, echo_digest, lock_commitment, pass_commitment
from .curve import ORDER, InvalidPoint, scalar_from_bytes
from .errors import DeckCheatError, DeckEchoMismatch, DeckError, DeckMessageError, DeckUsageError
from .group import Element as Point
from .group import KeyCache, card_of, card_point_key, load_x, multiply, scalar_key
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
from .passbox import SEALED_LEN, open_box, public_bytes
from .shuffleproof import (
    ProofCommitment,
    ProofResponse,
    RoundOpening,
    challenge_bits,
    check_commitment,
    check_response,
    joint_challenge,
    share_commitment,
)

__all__ = [
    "AuditResult",
    "PassRecord",
    "Phase",
    "Play",
    "PublicHand",
    "audit_hand",
    "remix_label",
]


def remix_label(seat: int) -> bytes:
    """The label of ``seat``'s remix proof in its challenge bits: ``seat (1) ‖ "remix"``."""
    return bytes((seat,)) + b"remix"


class Phase(IntEnum):
    """The phases of a hand in order; FAILED ends it early with a named culprit."""

    SHUFFLE = 1
    SHUFFLE_ECHO = 2
    LOCK = 3
    LOCK_ECHO = 4
    DEAL = 5
    PASS_COMMIT = 6
    PASS_REVEAL = 7
    REMIX = 8
    REMIX_SHARE = 9
    REMIX_ANSWER = 10
    PLAY = 11
    REVEAL = 12
    AUDIT = 13
    DONE = 14
    FAILED = 15


@dataclass(frozen=True)
class Play:
    """A card opened: ``position`` is the position of the final deck it came from (known to
    the audit once every seat has revealed; until then, in a remixed hand, the slot)."""

    seat: int
    position: int
    card: int


@dataclass(frozen=True)
class PassRecord:
    passer: int
    receiver: int
    positions: tuple[int, ...]
    cards: int  # mask


@dataclass(frozen=True)
class AuditResult:
    """What the audit established. ``cards`` is empty when the decks themselves were cheated,
    since no true deal exists then; ``problems`` lists every fault found, each with its culprit.

    ``stopped_by`` is the seat whose early reveal stopped the hand, with its reason. The deck
    cannot blame it: if neither this audit nor the rules replay finds a fault, the caller should.

    ``passes_private`` is set for a clean remixed hand, whose reveals carry no key: ``held``
    (each seat's cards after the pass, from its slots' opens) is then all that is known, and
    ``cards``, ``dealt`` and ``passes`` are empty; ``plays`` name slots.
    """

    cards: tuple[int, ...]
    dealt: tuple[int, ...]
    held: tuple[int, ...]
    passes: tuple[PassRecord, ...]
    plays: tuple[Play, ...]
    stopped_by: tuple[int, str] | None
    problems: tuple[DeckCheatError, ...]
    passes_private: bool = False

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def culprits(self) -> frozenset[int]:
        return frozenset(p.seat for p in self.problems)


class PublicHand:
    """Checks every message of one hand against everything published before it."""

    def __init__(self, params: HandParams) -> None:
        self.params = params
        self.n = params.players
        self.m = params.size
        self.shuffles: list[Shuffle] = []
        self.locks: list[Lock] = []
        self.echoes: dict[Stage, dict[int, Echo]] = {Stage.SHUFFLE: {}, Stage.LOCK: {}}
        self.deal: dict[int, DealKeys] = {}
        self.known: list[dict[int, int]] = [{} for _ in range(self.m)]
        self.pass_commits: dict[int, PassCommit] = {}
        self.pass_reveals: dict[int, PassReveal] = {}
        self.remixes: dict[int, Remix] = {}
        self.shares: dict[int, RemixShare] = {}
        self.answers: dict[int, RemixAnswer] = {}
        self.bits: dict[int, tuple[bool, ...]] = {}  # each remix proof's challenge, once known
        self.share = self.m // self.n
        self.holder: list[int] = list(params.dealt_to)
        self.opens: list[Open] = []
        self.opened: dict[int, int] = {}
        self.played: dict[int, int] = {}
        self.reveals: dict[int, Reveal] = {}
        self._remix_checked: dict[int, DeckCheatError | None] = {}  # as each reveal came
        self.stopped_by: tuple[int, str] | None = None
        self.anomaly: str | None = None
        self.fault: DeckError | None = None
        self.result: AuditResult | None = None
        self.keys = KeyCache()
        self._in_deck = frozenset(params.cards)
        self._digests: dict[Stage, bytes] = {}
        self._points: dict[tuple[Stage, int], list[Point]] = {}
        self._pending: list[tuple[Message, bool]] = []
        self._pending_limit = self.m + 8 * self.n

    # --- state -----------------------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        n = self.n
        if self.fault is not None:
            return Phase.FAILED
        if self.result is not None:
            return Phase.DONE
        if len(self.reveals) == n:
            return Phase.AUDIT
        if self.stopped_by is not None or self.anomaly is not None or len(self.opened) == self.m:
            return Phase.REVEAL
        steps = (
            (len(self.shuffles) < n, Phase.SHUFFLE),
            (len(self.echoes[Stage.SHUFFLE]) < n, Phase.SHUFFLE_ECHO),
            (len(self.locks) < n, Phase.LOCK),
            (len(self.echoes[Stage.LOCK]) < n, Phase.LOCK_ECHO),
            (len(self.deal) < n, Phase.DEAL),
            (self.params.passing and len(self.pass_commits) < n, Phase.PASS_COMMIT),
            (self.params.passing and len(self.pass_reveals) < n, Phase.PASS_REVEAL),
            (self.params.passing and len(self.remixes) < n, Phase.REMIX),
            (self.params.passing and len(self.shares) < n, Phase.REMIX_SHARE),
            (self.params.passing and len(self.answers) < n, Phase.REMIX_ANSWER),
        )
        return next((phase for pending, phase in steps if pending), Phase.PLAY)

    def owed(self) -> dict[int, Kind]:
        """Which seats still owe which message before the hand can move on. Empty during play,
        where the rules engine knows whose turn it is."""
        phase, n = self.phase, self.n
        if phase is Phase.SHUFFLE:
            return {len(self.shuffles): Kind.SHUFFLE}
        if phase is Phase.LOCK:
            return {len(self.locks): Kind.LOCK}
        have: dict[Phase, tuple[Iterable[int], Kind]] = {
            Phase.SHUFFLE_ECHO: (self.echoes[Stage.SHUFFLE], Kind.ECHO),
            Phase.LOCK_ECHO: (self.echoes[Stage.LOCK], Kind.ECHO),
            Phase.DEAL: (self.deal, Kind.DEAL),
            Phase.PASS_COMMIT: (self.pass_commits, Kind.PASS_COMMIT),
            Phase.PASS_REVEAL: (self.pass_reveals, Kind.PASS_REVEAL),
            Phase.REMIX: (self.remixes, Kind.REMIX),
            Phase.REMIX_SHARE: (self.shares, Kind.REMIX_SHARE),
            Phase.REMIX_ANSWER: (self.answers, Kind.REMIX_ANSWER),
            Phase.REVEAL: (self.reveals, Kind.REVEAL),
        }
        if phase not in have:
            return {}
        seats, kind = have[phase]
        done = set(seats)
        return {s: kind for s in range(n) if s not in done}

    @property
    def clean(self) -> bool:
        """Whether every card came out once under its proof, with no alarm and no anomaly: the
        hand needs no shuffle key or permutation to be audited, so its reveals carry none."""
        return self.stopped_by is None and self.anomaly is None and len(self.opened) == self.m

    @property
    def passes_private(self) -> bool:
        """Whether the hand is clean and remixed: its reveals then carry no key at all, so
        nobody learns which position (hence which dealt card) any slot held."""
        return self.remixed and self.clean

    @property
    def fresh(self) -> bool:
        """Whether no message has been fed yet."""
        return not self._pending and not self.shuffles

    @property
    def remixed(self) -> bool:
        """Whether every seat has remixed its hand: plays then open slots, not positions."""
        return len(self.remixes) == self.n

    def held(self, seat: int) -> list[int]:
        """Positions ``seat`` holds after the pass (dealt and kept, or received), ascending:
        the positions its remix takes, in this order."""
        return [i for i, s in enumerate(self.holder) if s == seat]

    def slots(self, seat: int) -> range:
        """The slots of ``seat``'s remixed hand: ``share`` numbers from ``seat · share``."""
        return range(seat * self.share, (seat + 1) * self.share)

    def holding(self, seat: int) -> list[int]:
        """What ``seat`` can still open: its slots in a remixed hand, else the positions it holds
        (dealt or received, not passed on); neither opened yet."""
        mine = self.slots(seat) if self.remixed else self.held(seat)
        return [i for i in mine if i not in self.opened]

    # --- input -----------------------------------------------------------------------------

    def receive(self, msg: Message, *, trusted: bool = False) -> list[Message]:
        """Check and record ``msg``; return the messages applied (it and any it unblocked).

        ``trusted`` is for the owner's own messages, which need no re-validation.
        """
        if self.fault is not None:
            raise DeckUsageError(f"the hand has already failed: {self.fault}")
        if not 0 <= msg.seat < self.n:
            raise DeckMessageError(f"no seat {msg.seat} at a table of {self.n}")
        self._pending.append((msg, trusted))
        if len(self._pending) > self._pending_limit:
            self._fail(DeckCheatError(msg.seat, "sent too many messages out of order"))
        applied: list[Message] = []
        progress = True
        while progress:
            progress = False
            for index, (pending, pending_trusted) in enumerate(self._pending):
                if self._ready(pending):
                    del self._pending[index]
                    try:
                        self._apply(pending, pending_trusted)
                    except DeckError as e:
                        self._fail(e)
                    applied.append(pending)
                    progress = True
                    break
        return applied

    def _fail(self, error: DeckError) -> None:
        self.fault = error
        raise error

    def _ready(self, msg: Message) -> bool:
        n = self.n
        shuffled = len(self.echoes[Stage.SHUFFLE]) == n
        locked = len(self.echoes[Stage.LOCK]) == n
        dealt = locked and len(self.deal) == n
        match msg:
            case Shuffle():
                return msg.seat <= len(self.shuffles)
            case Echo():
                return len(self.shuffles if msg.stage is Stage.SHUFFLE else self.locks) == n
            case Lock():
                return shuffled and msg.seat <= len(self.locks)
            case DealKeys():
                return locked
            case Reveal():
                # A plain reveal waits for the last open or for an alarm: from another
                # connection it may overtake them, and must not be taken for an alarm itself.
                stopped = self.stopped_by is not None or self.anomaly is not None
                return locked and (bool(msg.reason) or stopped or len(self.opened) == self.m)
            case PassCommit():
                return dealt
            case PassReveal():
                return dealt and len(self.pass_commits) == n
            case Remix():
                return dealt and len(self.pass_reveals) == n
            case RemixShare():
                return dealt and self.remixed
            case RemixAnswer():
                return dealt and len(self.shares) == n
            case Open():
                passed = not self.params.passing or len(self.answers) == n
                return dealt and passed

    def _apply(self, msg: Message, trusted: bool) -> None:
        match msg:
            case Shuffle():
                if self._repeat(
                    msg, self.shuffles[msg.seat] if msg.seat < len(self.shuffles) else None
                ):
                    return
                self._deck(msg.seat, Stage.SHUFFLE, msg.deck, trusted)
                self.shuffles.append(msg)
            case Echo():
                self._on_echo(msg, trusted)
            case Lock():
                if self._repeat(msg, self.locks[msg.seat] if msg.seat < len(self.locks) else None):
                    return
                if not trusted and len(msg.commitments) != self.m:
                    raise DeckCheatError(msg.seat, f"sent {len(msg.commitments)} key commitments")
                self._deck(msg.seat, Stage.LOCK, msg.deck, trusted)
                self.locks.append(msg)
            case DealKeys():
                if not self._repeat(msg, self.deal.get(msg.seat)):
                    self._on_deal(msg, trusted)
            case PassCommit():
                if not self._repeat(msg, self.pass_commits.get(msg.seat)):
                    if not self.params.passing:
                        raise DeckCheatError(msg.seat, "committed to a pass in a no-pass hand")
                    self.pass_commits[msg.seat] = msg
            case PassReveal():
                if not self._repeat(msg, self.pass_reveals.get(msg.seat)):
                    self._on_pass_reveal(msg, trusted)
            case Remix():
                if not self._repeat(msg, self.remixes.get(msg.seat)):
                    self._on_remix(msg, trusted)
            case RemixShare():
                if not self._repeat(msg, self.shares.get(msg.seat)):
                    self._on_share(msg, trusted)
            case RemixAnswer():
                if not self._repeat(msg, self.answers.get(msg.seat)):
                    self._on_answer(msg, trusted)
            case Open():
                self._on_open(msg, trusted)
            case Reveal():
                if not self._repeat(msg, self.reveals.get(msg.seat)):
                    self._on_reveal(msg, trusted)

    @staticmethod
    def _repeat(msg: Message, earlier: Message | None) -> bool:
        """True for an exact repeat (ignored); a different message in the same slot is a cheat."""
        if earlier is None:
            return False
        if earlier != msg:
            raise DeckCheatError(msg.seat, f"sent two different {msg.KIND.value} messages")
        return True

    # --- shuffle and lock ----------------------------------------------------------------

    def _deck(self, seat: int, stage: Stage, deck: tuple[bytes, ...], trusted: bool) -> None:
        if not trusted:
            self._points[stage, seat] = _entries(seat, f"its {stage.value} deck", deck, self.m)

    def points(self, stage: Stage, seat: int) -> list[Point]:
        """The decoded entries of a published deck (decoded once, on receipt)."""
        key = (stage, seat)
        if key not in self._points:
            deck = (self.shuffles if stage is Stage.SHUFFLE else self.locks)[seat].deck
            self._points[key] = [load_x(x) for x in deck]
        return self._points[key]

    def shuffle_input(self, seat: int) -> list[Point]:
        if seat == 0:
            return [card_point_key(c) for c in self.params.cards]
        return self.points(Stage.SHUFFLE, seat - 1)

    def lock_input(self, seat: int) -> list[Point]:
        if seat == 0:
            return self.points(Stage.SHUFFLE, self.n - 1)
        return self.points(Stage.LOCK, seat - 1)

    def digest(self, stage: Stage) -> bytes:
        if stage not in self._digests:
            if stage is Stage.SHUFFLE:
                parts = [b"".join(s.deck) for s in self.shuffles]
            else:
                parts = [b"".join(lk.deck) + b"".join(lk.commitments) for lk in self.locks]
            self._digests[stage] = echo_digest(self.params, stage.value, parts)
        return self._digests[stage]

    def _on_echo(self, msg: Echo, trusted: bool) -> None:
        if self._repeat(msg, self.echoes[msg.stage].get(msg.seat)):
            return
        if not trusted and msg.digest != self.digest(msg.stage):
            raise DeckEchoMismatch(msg.seat, msg.stage.value)
        self.echoes[msg.stage][msg.seat] = msg

    # --- deal, pass, remix, open -----------------------------------------------------------

    def _check_key(self, seat: int, position: int, key: bytes, nonce: bytes) -> int | None:
        k = scalar_from_bytes(key)
        committed = self.locks[seat].commitments[position]
        if k is None or lock_commitment(self.params, seat, position, key, nonce) != committed:
            return None
        return k

    def _on_deal(self, msg: DealKeys, trusted: bool) -> None:
        positions = [i for i, s in enumerate(self.params.dealt_to) if s != msg.seat]
        if len(msg.keys) != len(positions) or len(msg.nonces) != len(positions):
            raise DeckCheatError(msg.seat, f"sent {len(msg.keys)} deal keys, not {len(positions)}")
        for i, key, nonce in zip(positions, msg.keys, msg.nonces, strict=True):
            k = scalar_from_bytes(key) if trusted else self._check_key(msg.seat, i, key, nonce)
            if k is None:
                raise DeckCheatError(
                    msg.seat, f"its deal key for position {i} does not match its commitment"
                )
            self.known[i][msg.seat] = k
        self.deal[msg.seat] = msg

    def _on_pass_reveal(self, msg: PassReveal, trusted: bool) -> None:
        seat, params = msg.seat, self.params
        positions = msg.positions
        if not trusted:
            self._check_pass(msg)
        target = params.pass_targets[seat]
        assert target is not None
        for p in positions:
            self.holder[p] = target
        self.pass_reveals[seat] = msg

    def _check_pass(self, msg: PassReveal) -> None:
        seat, params = msg.seat, self.params
        positions = msg.positions
        if (
            len(positions) != PASS_COUNT
            or list(positions) != sorted(set(positions))
            or any(p >= self.m or params.dealt_to[p] != seat for p in positions)
        ):
            raise DeckCheatError(seat, f"passed positions {list(positions)}, not 3 of its own")
        commit = pass_commitment(params, seat, positions, msg.nonce)
        if commit != self.pass_commits[seat].digest:
            raise DeckCheatError(seat, "its pass does not match its commitment")
        if len(msg.sealed) != SEALED_LEN:
            raise DeckCheatError(seat, f"its sealed pass keys are {len(msg.sealed)} bytes")

    def _on_remix(self, msg: Remix, trusted: bool) -> None:
        if not self.params.passing:
            raise DeckCheatError(msg.seat, "sent a remix in a hand without a pass")
        if not trusted:  # the entries are checked, not kept: a slot's open compares bytes
            _entries(msg.seat, "its remixed hand", msg.deck, self.share)
            proof = ProofCommitment(msg.proof)
            rounds = self.params.proof_rounds
            why = check_commitment(self.remix_input(msg.seat), msg.deck, proof, rounds)
            if why is not None:
                raise DeckCheatError(msg.seat, f"its remix proof is malformed: {why}")
        self.remixes[msg.seat] = msg

    def remix_input(self, seat: int) -> tuple[bytes, ...]:
        """What ``seat``'s remix proof starts from: ``F`` at its held positions, ascending."""
        final = self.locks[-1].deck
        return tuple(final[i] for i in self.held(seat))

    def _on_share(self, msg: RemixShare, trusted: bool) -> None:
        committed = self.remixes[msg.seat].share
        if not trusted and share_commitment(self.params.context, msg.seat, msg.share) != committed:
            raise DeckCheatError(msg.seat, "its challenge share does not match its commitment")
        self.shares[msg.seat] = msg
        if len(self.shares) == self.n:
            challenge = joint_challenge(
                self.params.context, [self.shares[s].share for s in range(self.n)]
            )
            for s in range(self.n):
                remix = self.remixes[s]
                self.bits[s] = challenge_bits(
                    challenge,
                    remix_label(s),
                    self.remix_input(s),
                    remix.deck,
                    ProofCommitment(remix.proof),
                )

    def _on_answer(self, msg: RemixAnswer, trusted: bool) -> None:
        if not trusted:
            self._check_answer(msg)
        self.answers[msg.seat] = msg

    def _check_answer(self, msg: RemixAnswer) -> None:
        """The remix proof's answer opens every round's half its bit asks for: ``R·H`` key
        derivations and products, once per remix, before the first play."""
        seat = msg.seat
        if len(msg.orders) != len(msg.keys):
            raise DeckCheatError(
                seat, f"its remix proof answers {len(msg.orders)} orders, {len(msg.keys)} keys"
            )
        response = ProofResponse(
            tuple(RoundOpening(o, k) for o, k in zip(msg.orders, msg.keys, strict=True))
        )
        remix = self.remixes[seat]
        final = self.points(Stage.LOCK, self.n - 1)  # decoded once, when the last lock came
        why = check_response(
            self.remix_input(seat),
            remix.deck,
            ProofCommitment(remix.proof),
            response,
            self.bits[seat],
            [final[i] for i in self.held(seat)],
        )
        if why is not None:
            raise DeckCheatError(seat, f"its remix proof fails: {why}")

    def final_point(self, position: int) -> Point:
        return self.points(Stage.LOCK, self.n - 1)[position]

    def decrypt(self, position: int, total: int) -> int | None:
        """The card at ``position`` of the final deck under the product of all its lock keys,
        or None if that is not a card of this deck."""
        inverse = pow(total, -1, ORDER)
        x = multiply(scalar_key(inverse), self.points(Stage.LOCK, self.n - 1)[position])
        card = card_of(x)
        return card if card in self._in_deck else None

    def _on_open(self, msg: Open, trusted: bool) -> None:
        if not trusted:
            self._check_open(msg)
        i, card = msg.position, msg.card
        if card in self.played:
            self.anomaly = self.anomaly or f"{CARDS[card]} was opened twice"
        if not self.remixed:
            self.known[i][self.params.dealt_to[i]] = int.from_bytes(msg.key, "big")
        self.opened[i] = card
        self.played[card] = i
        self.opens.append(msg)

    def _check_open(self, msg: Open) -> None:
        seat, i, card = msg.seat, msg.position, msg.card
        if self.remixed:
            if i in self.opened:
                raise DeckCheatError(seat, f"opened slot {i} again ({CARDS[self.opened[i]]})")
            self._check_slot(msg, "opened")
            return
        if i >= self.m:
            raise DeckCheatError(seat, f"opened position {i} of a {self.m}-card deck")
        if i in self.opened:
            raise DeckCheatError(seat, f"opened position {i} again ({CARDS[self.opened[i]]})")
        if self.holder[i] != seat:
            raise DeckCheatError(seat, f"opened position {i}, which seat {self.holder[i]} holds")
        if card not in self._in_deck:
            raise DeckCheatError(seat, f"named {CARDS[card]}, which is not in this deck")
        owner = self.params.dealt_to[i]
        k = self._check_key(owner, i, msg.key, msg.nonce)
        if k is None:
            raise DeckCheatError(
                seat, f"its key for position {i} does not match seat {owner}'s commitment"
            )
        total = k
        for other in self.known[i].values():
            total = total * other % ORDER
        if multiply(scalar_key(total), card_point_key(card)) != self.locks[-1].deck[i]:
            actual = self.decrypt(i, total)
            if actual is not None and actual not in self.played:
                raise DeckCheatError(
                    seat, f"named {CARDS[card]} at position {i}, which holds {CARDS[actual]}"
                )
            self.anomaly = self.anomaly or f"position {i} does not hold a fresh card"

    def check_show(self, msg: Open) -> None:
        """Check a card shown and kept: an exposure (Gong Zhu's 亮牌) or a claim's hand (摊牌).

        The proof is the play's: the holder's last key for the position, against its commitment,
        turns the locked point into the card named. Nothing is recorded, so the card is opened
        again if it is played, with the same key.
        """
        seat, i, card = msg.seat, msg.position, msg.card
        if self.phase is not Phase.PLAY:
            raise DeckCheatError(seat, f"showed {CARDS[card]} when no card may be shown")
        if self.remixed:
            if i in self.opened:
                raise DeckCheatError(seat, f"showed slot {i}, which it does not hold")
            self._check_slot(msg, "showed")
            return
        if i >= self.m or self.holder[i] != seat or i in self.opened:
            raise DeckCheatError(seat, f"showed position {i}, which it does not hold")
        k = self._check_key(self.params.dealt_to[i], i, msg.key, msg.nonce)
        if k is None:
            raise DeckCheatError(
                seat, f"its key for shown position {i} does not match its commitment"
            )
        total = k
        for other in self.known[i].values():
            total = total * other % ORDER
        if multiply(scalar_key(total), card_point_key(card)) != self.locks[-1].deck[i]:
            raise DeckCheatError(seat, f"showed {CARDS[card]}, which position {i} does not hold")

    def _check_slot(self, msg: Open, verb: str) -> None:
        """A remixed slot's proof: the key turns the card's point into the slot's entry. Only
        the slot's holder knows such a key (it made the entry), so any failure is a cheat."""
        seat, q, card = msg.seat, msg.position, msg.card
        if q >= self.m or q // self.share != seat:
            holder = f"seat {q // self.share}" if q < self.m else "nobody"
            raise DeckCheatError(seat, f"{verb} slot {q}, which {holder} holds")
        if card not in self._in_deck:
            raise DeckCheatError(seat, f"named {CARDS[card]}, which is not in this deck")
        if msg.nonce != bytes(NONCE_LEN):
            raise DeckCheatError(seat, f"sent a nonce with slot {q}, which has none")
        w = scalar_from_bytes(msg.key)
        entry = self.remixes[seat].deck[q % self.share]
        if w is None or multiply(scalar_key(w), card_point_key(card)) != entry:
            why = f"{verb} {CARDS[card]} from slot {q}, which does not hold it"
            raise DeckCheatError(seat, why)

    # --- reveal and audit ------------------------------------------------------------------

    def _on_reveal(self, msg: Reveal, trusted: bool) -> None:
        if not trusted:
            self._check_reveal(msg)
        early = len(self.opened) < self.m and self.anomaly is None
        if early and msg.reason and self.stopped_by is None:
            self.stopped_by = (msg.seat, msg.reason)
        self.reveals[msg.seat] = msg
        if not trusted and self.remixed and not self.passes_private:
            # Its remix is checked now, while the other reveals are still on their way: the
            # audit, once the last one is in, has only that one's left (same verdicts).
            self._remix_checked[msg.seat] = self._remix_problem(msg.seat)

    def _check_reveal(self, msg: Reveal) -> None:
        seat, m = msg.seat, self.m
        if self.passes_private:
            secrets = (msg.shuffle_key, msg.permutation, msg.lock_keys, msg.lock_nonces)
            if any(secrets) or msg.pass_secret or msg.remix_keys or msg.remix_order:
                raise DeckCheatError(
                    seat, "revealed a key, nonce, order or pass secret in a clean remixed hand"
                )
            return
        if self.clean:
            if msg.shuffle_key or msg.permutation:
                raise DeckCheatError(seat, "revealed a shuffle key or permutation in a clean hand")
        elif scalar_from_bytes(msg.shuffle_key) is None:
            raise DeckCheatError(seat, "its revealed shuffle key is not a scalar")
        elif sorted(msg.permutation) != list(range(m)):
            raise DeckCheatError(seat, f"its revealed permutation is not one of {m} entries")
        if len(msg.lock_keys) != m or len(msg.lock_nonces) != m:
            raise DeckCheatError(seat, f"revealed {len(msg.lock_keys)} lock keys, not {m}")
        for i in range(m):
            if self._check_key(seat, i, msg.lock_keys[i], msg.lock_nonces[i]) is None:
                raise DeckCheatError(
                    seat, f"its revealed lock key for position {i} does not match its commitment"
                )
        h = self.share if self.remixed else 0
        if len(msg.remix_keys) != h or sorted(msg.remix_order) != list(range(h)):
            raise DeckCheatError(seat, f"revealed {len(msg.remix_keys)} remix keys, not {h}")
        if any(scalar_from_bytes(k) is None for k in msg.remix_keys):
            raise DeckCheatError(seat, "a revealed remix key is not a scalar")

    def audit(self, *, own: int | None = None) -> AuditResult:
        """Open every sealed pass, check every remix, and derive the true deal; in a hand that
        is not clean, first recompute every shuffle and lock step from the revealed secrets.
        Needs every seat's reveal.

        A clean hand without a pass has its deal in its opens: each proved its card at its
        position, so no shuffle needs recomputing. A clean remixed hand reveals nothing: its
        remixes were proven and its slots opened on receipt, so it gives the held hands alone
        (SPEC 4.4 step 9). ``own`` is the auditing seat, whose own steps need no recomputation.
        """
        if len(self.reveals) < self.n:
            raise DeckUsageError(f"the audit needs every reveal; owed: {self.owed()}")
        if self.passes_private:
            self.result = self._private_result()
            return self.result
        clean = self.clean
        problems = [] if clean else self._audit_shuffles(own) + self._audit_locks(own)
        problems += self._audit_passes(own) + self._audit_remixes(own)
        cards: tuple[int, ...] = ()
        if not problems:
            cards = self._opened_layout() if clean else self._layout()
            problems = [] if clean else self._audit_slot_opens(cards)
            cards = () if problems else cards
        self.result = self._result(cards, problems)
        return self.result

    def _scalars(self, seat: int) -> tuple[int, list[int]]:
        r = self.reveals[seat]
        k = scalar_from_bytes(r.shuffle_key)
        keys = [scalar_from_bytes(x) for x in r.lock_keys]
        assert k is not None and None not in keys  # checked on receipt
        return k, [x for x in keys if x is not None]

    def _audit_shuffles(self, own: int | None) -> list[DeckCheatError]:
        problems = []
        for j, shuffle in enumerate(self.shuffles):
            if j == own:
                continue
            key = self.keys.get(self._scalars(j)[0])
            source = self.shuffle_input(j)
            perm = self.reveals[j].permutation
            if any(multiply(key, source[perm[i]]) != x for i, x in enumerate(shuffle.deck)):
                problems.append(
                    DeckCheatError(j, "its shuffled deck does not match its revealed key")
                )
        return problems

    def _audit_locks(self, own: int | None) -> list[DeckCheatError]:
        problems = []
        for j, lock in enumerate(self.locks):
            if j == own:
                continue
            k, keys = self._scalars(j)
            unshuffle = pow(k, -1, ORDER)
            source = self.lock_input(j)
            for i, x in enumerate(lock.deck):
                if multiply(scalar_key(keys[i] * unshuffle % ORDER), source[i]) != x:
                    problems.append(
                        DeckCheatError(j, f"its locked deck does not match its keys at {i}")
                    )
                    break
        return problems

    def _audit_passes(self, own: int | None) -> list[DeckCheatError]:
        problems = []
        for p, reveal in sorted(self.pass_reveals.items()):
            if p == own:
                continue
            receiver = self.params.pass_targets[p]
            secret = self.reveals[p].pass_secret
            ephemeral = X25519PrivateKey.from_private_bytes(secret) if secret else None
            if ephemeral is None or public_bytes(ephemeral) != reveal.ephemeral:
                problems.append(DeckCheatError(p, "its revealed pass secret is not its key"))
                continue
            assert receiver is not None
            contents = open_box(
                self.params,
                p,
                reveal.positions,
                reveal.ephemeral,
                reveal.sealed,
                ephemeral,
                self.params.pass_keys[receiver],
            )
            r = self.reveals[p]
            expected = [(r.lock_keys[i], r.lock_nonces[i]) for i in reveal.positions]
            if contents != expected:
                problems.append(
                    DeckCheatError(p, f"the keys it sealed for seat {receiver} are not its own")
                )
        return problems

    def _audit_remixes(self, own: int | None) -> list[DeckCheatError]:
        problems = []
        for seat in sorted(self.remixes) if self.remixed else ():
            if seat == own:
                continue
            if seat in self._remix_checked:
                problem = self._remix_checked[seat]
            else:
                problem = self._remix_problem(seat)
            if problem is not None:
                problems.append(problem)
        return problems

    def _remix_problem(self, seat: int) -> DeckCheatError | None:
        """Whether ``seat``'s remixed hand is its held positions under its revealed keys."""
        reveal, remix = self.reveals[seat], self.remixes[seat]
        held = self.held(seat)
        for k, x in enumerate(remix.deck):
            u = scalar_from_bytes(reveal.remix_keys[k])
            assert u is not None  # checked on receipt
            source = self.final_point(held[reveal.remix_order[k]])
            if multiply(scalar_key(u), source) != x:
                return DeckCheatError(seat, f"its remixed hand does not match its keys at {k}")
        return None

    def position_of(self, slot: int) -> int:
        """The position of the final deck a remixed slot holds (from its holder's reveal)."""
        seat, k = divmod(slot, self.share)
        return self.held(seat)[self.reveals[seat].remix_order[k]]

    def _audit_slot_opens(self, cards: tuple[int, ...]) -> list[DeckCheatError]:
        """Every slot opened names the card its position holds. Each remix is sound by now, so
        naming another would take a discrete log between card points; checked all the same."""
        if not self.remixed:
            return []
        for o in self.opens:
            actual = cards[self.position_of(o.position)]
            if actual != o.card:
                why = f"opened slot {o.position} as {CARDS[o.card]}, which holds {CARDS[actual]}"
                return [DeckCheatError(o.seat, why)]
        return []

    def _opened_layout(self) -> tuple[int, ...]:
        """The card at each final position, from the opens of a clean hand."""
        out = [0] * self.m
        for q, card in self.opened.items():
            out[self.position_of(q) if self.remixed else q] = card
        return tuple(out)

    def _layout(self) -> tuple[int, ...]:
        """The card at each final position: the shuffles composed (locks do not move entries)."""
        perms = [self.reveals[j].permutation for j in range(self.n)]
        out = []
        for i in range(self.m):
            index = i
            for perm in reversed(perms):
                index = perm[index]
            out.append(self.params.cards[index])
        return tuple(out)

    def _private_result(self) -> AuditResult:
        """A clean remixed hand: every remix proven and every slot opened on receipt, so each
        seat held exactly its slots' cards after the pass; which of them it was dealt, and so
        what it passed, is known to nobody else (SPEC 4.4 step 9)."""
        held = tuple(mask_of(self.opened[q] for q in self.slots(s)) for s in range(self.n))
        plays = tuple(Play(o.seat, o.position, o.card) for o in self.opens)
        return AuditResult((), (), held, (), plays, None, (), passes_private=True)

    def _result(self, cards: tuple[int, ...], problems: list[DeckCheatError]) -> AuditResult:
        n = self.n
        dealt: tuple[int, ...] = ()
        held: tuple[int, ...] = ()
        passes: tuple[PassRecord, ...] = ()
        if cards:
            dealt = tuple(mask_of(cards[i] for i in self.params.positions_of(s)) for s in range(n))
            held = tuple(
                mask_of(cards[i] for i, h in enumerate(self.holder) if h == s) for s in range(n)
            )
            passes = tuple(
                PassRecord(
                    p,
                    self.holder[r.positions[0]],
                    r.positions,
                    mask_of(cards[i] for i in r.positions),
                )
                for p, r in sorted(self.pass_reveals.items())
            )
        plays = tuple(Play(o.seat, o.position, o.card) for o in self.opens)
        if cards and self.remixed:
            plays = tuple(Play(p.seat, self.position_of(p.position), p.card) for p in plays)
        return AuditResult(cards, dealt, held, passes, plays, self.stopped_by, tuple(problems))


def _entries(seat: int, what: str, deck: tuple[bytes, ...], size: int) -> list[Point]:
    """A published list of entries: right size, all distinct, no bare card point, each the x of
    a point of the curve; their decoded points."""
    if len(deck) != size:
        raise DeckCheatError(seat, f"{what} has {len(deck)} entries, not {size}")
    first: dict[bytes, int] = {}
    for i, x in enumerate(deck):
        if x in first:
            raise DeckCheatError(seat, f"{what} repeats entry {first[x]} at {i}")
        first[x] = i
        if card_of(x) is not None:
            raise DeckCheatError(seat, f"{what} has a bare card point at {i}")
    points = []
    for i, x in enumerate(deck):
        try:
            points.append(load_x(x))
        except InvalidPoint:
            raise DeckCheatError(seat, f"{what} entry {i} is not a point of P-256") from None
    return points


def audit_hand(params: HandParams, messages: Iterable[Message]) -> AuditResult:
    """Check a whole hand offline from its public messages (as a log holds them), as every
    peer did live, then run the end-of-hand audit.

    A cheat caught while replaying ends the replay and is the only problem listed. A hand that
    stopped before everyone revealed lists the seats that still owed a message.
    """
    public = PublicHand(params)
    try:
        for msg in messages:
            public.receive(msg)
    except DeckCheatError as e:
        return AuditResult((), (), (), (), (), public.stopped_by, (e,))
    if len(public.reveals) < public.n:
        owed = [
            DeckCheatError(s, f"never sent its {kind.value} message")
            for s, kind in sorted(public.owed().items())
        ]
        plays = tuple(Play(o.seat, o.position, o.card) for o in public.opens)
        return AuditResult((), (), (), (), plays, public.stopped_by, tuple(owed))
    return public.audit()
