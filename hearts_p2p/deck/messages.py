"""The deck's messages: frozen values with a strict round trip through msgpack-ready dicts.

``to_wire`` gives str keys, ints, bytes, lists and str only. ``from_wire`` refuses any missing or
extra key, wrong type or wrong length with ``DeckMessageError``; what a value means for this
hand (deck size, commitments, curve membership) is the state machine's check, because breaking
those is a cheat by the signer rather than a garbled frame. The wire layer signs and chains.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, TypeAlias

from .commitments import NONCE_LEN
from .errors import DeckMessageError
from .params import MAX_PROOF_ROUNDS

__all__ = [
    "DealKeys",
    "Echo",
    "Kind",
    "Lock",
    "Message",
    "Open",
    "PassCommit",
    "PassReveal",
    "Remix",
    "RemixAnswer",
    "RemixShare",
    "Reveal",
    "Shuffle",
    "Stage",
    "message_from_wire",
]

MAX_ENTRIES = 52
MAX_SEATS = 6
MAX_REASON = 200
MAX_SEALED = 1024
MAX_ROUNDS = MAX_PROOF_ROUNDS


class Kind(StrEnum):
    SHUFFLE = "shuffle"
    ECHO = "echo"
    LOCK = "lock"
    DEAL = "deal"
    PASS_COMMIT = "pass_commit"
    PASS_REVEAL = "pass_reveal"
    REMIX = "remix"
    REMIX_SHARE = "remix_share"
    REMIX_ANSWER = "remix_answer"
    OPEN = "open"
    REVEAL = "reveal"


class Stage(StrEnum):
    SHUFFLE = "shuffle"
    LOCK = "lock"


def _fields(d: Any, kind: Kind, names: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(d, dict):
        raise DeckMessageError(f"a {kind.value} message must be a map, not {type(d).__name__}")
    if d.get("kind") != kind.value:
        raise DeckMessageError(f"not a {kind.value} message: kind {d.get('kind')!r}")
    expected = {"kind", "seat", *names}
    if set(d) != expected:
        extra = sorted(map(str, set(d) - expected))
        missing = sorted(expected - set(d))
        raise DeckMessageError(f"{kind.value}: unknown keys {extra}, missing keys {missing}")
    _int(d, "seat", MAX_SEATS)
    return d


def _int(d: dict[str, Any], key: str, bound: int) -> int:
    v = d[key]
    if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < bound:
        raise DeckMessageError(f"{key} must be an int in 0..{bound - 1}, not {v!r}")
    return v


def _bytes(v: Any, key: str, length: int) -> bytes:
    if not isinstance(v, bytes) or len(v) != length:
        raise DeckMessageError(f"{key} must be {length} bytes")
    return v


def _list(d: dict[str, Any], key: str, max_len: int) -> list[Any]:
    v = d[key]
    if not isinstance(v, list) or len(v) > max_len:
        raise DeckMessageError(f"{key} must be a list of at most {max_len} items")
    return v


def _bytes_list(d: dict[str, Any], key: str, length: int) -> tuple[bytes, ...]:
    v = _list(d, key, MAX_ENTRIES)
    # One pass with no call per entry: a deck is parsed by every peer, and by the audit twice.
    if not all(isinstance(x, bytes) and len(x) == length for x in v):
        raise DeckMessageError(f"{key} must be {length} bytes")
    return tuple(v)


def _int_list(d: dict[str, Any], key: str, bound: int) -> tuple[int, ...]:
    return tuple(_int({key: v}, key, bound) for v in _list(d, key, MAX_ENTRIES))


def _rounds(d: dict[str, Any], key: str, parse: Any) -> tuple[Any, ...]:
    """A list of at most ``MAX_ROUNDS`` lists, each parsed by ``parse`` as a field of its own."""
    v = d[key]
    if not isinstance(v, list) or len(v) > MAX_ROUNDS:
        raise DeckMessageError(f"{key} must be a list of at most {MAX_ROUNDS} lists")
    return tuple(parse({key: item}, key) for item in v)


@dataclass(frozen=True)
class Shuffle:
    """Seat ``seat``'s shuffled deck: every entry of the previous deck under its key K, permuted."""

    KIND: ClassVar[Kind] = Kind.SHUFFLE
    seat: int
    deck: tuple[bytes, ...]

    def to_wire(self) -> dict[str, Any]:
        return {"kind": self.KIND.value, "seat": self.seat, "deck": list(self.deck)}

    @classmethod
    def from_wire(cls, d: Any) -> Shuffle:
        d = _fields(d, cls.KIND, ("deck",))
        return cls(d["seat"], _bytes_list(d, "deck", 32))


@dataclass(frozen=True)
class Echo:
    """The digest of every deck of a stage as this seat received them."""

    KIND: ClassVar[Kind] = Kind.ECHO
    seat: int
    stage: Stage
    digest: bytes

    def to_wire(self) -> dict[str, Any]:
        return {
            "kind": self.KIND.value,
            "seat": self.seat,
            "stage": self.stage.value,
            "digest": self.digest,
        }

    @classmethod
    def from_wire(cls, d: Any) -> Echo:
        d = _fields(d, cls.KIND, ("stage", "digest"))
        try:
            stage = Stage(d["stage"])
        except ValueError:
            raise DeckMessageError(f"unknown echo stage {d['stage']!r}") from None
        return cls(d["seat"], stage, _bytes(d["digest"], "digest", 32))


@dataclass(frozen=True)
class Lock:
    """Seat ``seat``'s locked deck (K removed, a fresh key per entry) and a commitment per key."""

    KIND: ClassVar[Kind] = Kind.LOCK
    seat: int
    deck: tuple[bytes, ...]
    commitments: tuple[bytes, ...]

    def to_wire(self) -> dict[str, Any]:
        return {
            "kind": self.KIND.value,
            "seat": self.seat,
            "deck": list(self.deck),
            "commitments": list(self.commitments),
        }

    @classmethod
    def from_wire(cls, d: Any) -> Lock:
        d = _fields(d, cls.KIND, ("deck", "commitments"))
        return cls(d["seat"], _bytes_list(d, "deck", 32), _bytes_list(d, "commitments", 32))


@dataclass(frozen=True)
class DealKeys:
    """The sender's lock key and nonce for every position dealt to another seat, ascending."""

    KIND: ClassVar[Kind] = Kind.DEAL
    seat: int
    keys: tuple[bytes, ...]
    nonces: tuple[bytes, ...]

    def to_wire(self) -> dict[str, Any]:
        return {
            "kind": self.KIND.value,
            "seat": self.seat,
            "keys": list(self.keys),
            "nonces": list(self.nonces),
        }

    @classmethod
    def from_wire(cls, d: Any) -> DealKeys:
        d = _fields(d, cls.KIND, ("keys", "nonces"))
        return cls(d["seat"], _bytes_list(d, "keys", 32), _bytes_list(d, "nonces", NONCE_LEN))


@dataclass(frozen=True)
class PassCommit:
    """A commitment to the positions this seat passes, sent before anyone reveals."""

    KIND: ClassVar[Kind] = Kind.PASS_COMMIT
    seat: int
    digest: bytes

    def to_wire(self) -> dict[str, Any]:
        return {"kind": self.KIND.value, "seat": self.seat, "digest": self.digest}

    @classmethod
    def from_wire(cls, d: Any) -> PassCommit:
        d = _fields(d, cls.KIND, ("digest",))
        return cls(d["seat"], _bytes(d["digest"], "digest", 32))


@dataclass(frozen=True)
class PassReveal:
    """The passed positions (ascending) and nonce opening the commitment, plus the passer's
    lock keys for them sealed to the receiver under an ephemeral X25519 key."""

    KIND: ClassVar[Kind] = Kind.PASS_REVEAL
    seat: int
    positions: tuple[int, ...]
    nonce: bytes
    ephemeral: bytes
    sealed: bytes

    def to_wire(self) -> dict[str, Any]:
        return {
            "kind": self.KIND.value,
            "seat": self.seat,
            "positions": list(self.positions),
            "nonce": self.nonce,
            "ephemeral": self.ephemeral,
            "sealed": self.sealed,
        }

    @classmethod
    def from_wire(cls, d: Any) -> PassReveal:
        d = _fields(d, cls.KIND, ("positions", "nonce", "ephemeral", "sealed"))
        sealed = d["sealed"]
        if not isinstance(sealed, bytes) or len(sealed) > MAX_SEALED:
            raise DeckMessageError(f"sealed must be at most {MAX_SEALED} bytes")
        return cls(
            d["seat"],
            _int_list(d, "positions", MAX_ENTRIES),
            _bytes(d["nonce"], "nonce", NONCE_LEN),
            _bytes(d["ephemeral"], "ephemeral", 32),
            sealed,
        )


@dataclass(frozen=True)
class Remix:
    """After the pass, the seat's hand afresh: each position it holds under a new key of its
    own, in an order of its own, so a received card cannot be told from a kept one when played.

    ``proof`` holds the intermediate lists of its proof that ``deck`` is its held positions
    re-keyed and re-ordered, and ``share`` the commitment to its share of the proofs' challenge.
    """

    KIND: ClassVar[Kind] = Kind.REMIX
    seat: int
    deck: tuple[bytes, ...]
    proof: tuple[tuple[bytes, ...], ...]
    share: bytes

    def to_wire(self) -> dict[str, Any]:
        return {
            "kind": self.KIND.value,
            "seat": self.seat,
            "deck": list(self.deck),
            "proof": [list(mid) for mid in self.proof],
            "share": self.share,
        }

    @classmethod
    def from_wire(cls, d: Any) -> Remix:
        d = _fields(d, cls.KIND, ("deck", "proof", "share"))
        return cls(
            d["seat"],
            _bytes_list(d, "deck", 32),
            _rounds(d, "proof", lambda item, key: _bytes_list(item, key, 32)),
            _bytes(d["share"], "share", 32),
        )


@dataclass(frozen=True)
class RemixShare:
    """The seat's share of the remix proofs' challenge, opening the commitment in its remix."""

    KIND: ClassVar[Kind] = Kind.REMIX_SHARE
    seat: int
    share: bytes

    def to_wire(self) -> dict[str, Any]:
        return {"kind": self.KIND.value, "seat": self.seat, "share": self.share}

    @classmethod
    def from_wire(cls, d: Any) -> RemixShare:
        d = _fields(d, cls.KIND, ("share",))
        return cls(d["seat"], _bytes(d["share"], "share", 32))


@dataclass(frozen=True)
class RemixAnswer:
    """The seat's answer to its remix proof's challenge: per round, the order and keys of the
    half the round's bit asks for."""

    KIND: ClassVar[Kind] = Kind.REMIX_ANSWER
    seat: int
    orders: tuple[tuple[int, ...], ...]
    keys: tuple[tuple[bytes, ...], ...]

    def to_wire(self) -> dict[str, Any]:
        return {
            "kind": self.KIND.value,
            "seat": self.seat,
            "orders": [list(o) for o in self.orders],
            "keys": [list(k) for k in self.keys],
        }

    @classmethod
    def from_wire(cls, d: Any) -> RemixAnswer:
        d = _fields(d, cls.KIND, ("orders", "keys"))
        return cls(
            d["seat"],
            _rounds(d, "orders", lambda item, key: _int_list(item, key, MAX_ENTRIES)),
            _rounds(d, "keys", lambda item, key: _bytes_list(item, key, 32)),
        )


@dataclass(frozen=True)
class Open:
    """A play: the card at ``position``, shown by releasing the last unpublished lock key of
    that position (the holder's own, or the passer's for a received card).

    In a hand with a remix, ``position`` is a slot of the remixed hands and ``key`` the scalar
    that turns the card's point into that slot; ``nonce`` is then 16 zero bytes.
    """

    KIND: ClassVar[Kind] = Kind.OPEN
    seat: int
    position: int
    card: int
    key: bytes
    nonce: bytes

    def to_wire(self) -> dict[str, Any]:
        return {
            "kind": self.KIND.value,
            "seat": self.seat,
            "position": self.position,
            "card": self.card,
            "key": self.key,
            "nonce": self.nonce,
        }

    @classmethod
    def from_wire(cls, d: Any) -> Open:
        d = _fields(d, cls.KIND, ("position", "card", "key", "nonce"))
        return cls(
            d["seat"],
            _int(d, "position", MAX_ENTRIES),
            _int(d, "card", 52),
            _bytes(d["key"], "key", 32),
            _bytes(d["nonce"], "nonce", NONCE_LEN),
        )


@dataclass(frozen=True)
class Reveal:
    """Every secret of the seat for this hand, for the audit: sent when all cards are open, or
    early (an alarm, with a reason) to stop the hand."""

    KIND: ClassVar[Kind] = Kind.REVEAL
    seat: int
    shuffle_key: bytes
    permutation: tuple[int, ...]
    lock_keys: tuple[bytes, ...]
    lock_nonces: tuple[bytes, ...]
    pass_secret: bytes
    reason: str
    remix_keys: tuple[bytes, ...] = ()
    remix_order: tuple[int, ...] = ()

    def to_wire(self) -> dict[str, Any]:
        return {
            "kind": self.KIND.value,
            "seat": self.seat,
            "shuffle_key": self.shuffle_key,
            "permutation": list(self.permutation),
            "lock_keys": list(self.lock_keys),
            "lock_nonces": list(self.lock_nonces),
            "pass_secret": self.pass_secret,
            "reason": self.reason,
            "remix_keys": list(self.remix_keys),
            "remix_order": list(self.remix_order),
        }

    @classmethod
    def from_wire(cls, d: Any) -> Reveal:
        names = (
            "shuffle_key",
            "permutation",
            "lock_keys",
            "lock_nonces",
            "pass_secret",
            "reason",
            "remix_keys",
            "remix_order",
        )
        d = _fields(d, cls.KIND, names)
        secret = d["pass_secret"]
        if not isinstance(secret, bytes) or len(secret) not in (0, 32):
            raise DeckMessageError("pass_secret must be empty or 32 bytes")
        reason = d["reason"]
        if not isinstance(reason, str) or len(reason) > MAX_REASON:
            raise DeckMessageError(f"reason must be a str of at most {MAX_REASON} characters")
        return cls(
            d["seat"],
            b"" if d["shuffle_key"] == b"" else _bytes(d["shuffle_key"], "shuffle_key", 32),
            _int_list(d, "permutation", MAX_ENTRIES),
            _bytes_list(d, "lock_keys", 32),
            _bytes_list(d, "lock_nonces", NONCE_LEN),
            secret,
            reason,
            _bytes_list(d, "remix_keys", 32),
            _int_list(d, "remix_order", MAX_ENTRIES),
        )


Message: TypeAlias = (
    Shuffle
    | Echo
    | Lock
    | DealKeys
    | PassCommit
    | PassReveal
    | Remix
    | RemixShare
    | RemixAnswer
    | Open
    | Reveal
)
_BY_KIND: dict[str, type[Message]] = {
    cls.KIND.value: cls
    for cls in (
        Shuffle,
        Echo,
        Lock,
        DealKeys,
        PassCommit,
        PassReveal,
        Remix,
        RemixShare,
        RemixAnswer,
        Open,
        Reveal,
    )
}


def message_from_wire(d: Any) -> Message:
    """Decode any deck message by its ``kind``."""
    kind = d.get("kind") if isinstance(d, dict) else None
    cls = _BY_KIND.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise DeckMessageError(f"unknown deck message kind {kind!r}")
    return cls.from_wire(d)
