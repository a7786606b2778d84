"""Key escrow: every player's game secret, split so that all the other players together, and no
smaller group, can recover it.

A seat whose player has gone must still be played: its cards can only be opened with its keys,
and every key it uses derives from its game secret ``S``. So each player, in its ``accept``,
splits ``S`` into one share per other player (XOR: all shares together give ``S``, any fewer are
uniformly random and say nothing), commits to each share in public and seals it to its holder's
pass key. Each holder checks its box at once and says so in its ``flip_commit``; a dispute is
settled before any card is dealt by the box's sender revealing that one box's ephemeral key. When
a seat is taken over, every other player publishes its share; each share is checked against its
commitment (a false share is its holder's, proven), and the secret they give is checked against
the seat's roster pass key and its signed messages (a false split is the seat's own, proven).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from .keys import derive

__all__ = [
    "BOX_TAG",
    "SEALED_LEN",
    "SHARE_LEN",
    "SHARE_TAG",
    "EscrowEntry",
    "ephemeral_secret",
    "make_escrow",
    "open_entry",
    "open_with_ephemeral",
    "recover",
    "share_commitment",
]

SHARE_TAG = b"hearts-p2p/escrow/v1/share"
BOX_TAG = b"hearts-p2p/escrow/v1/box"
SHARE_LEN = 32
SEALED_LEN = SHARE_LEN + 16
_ZERO_NONCE = bytes(12)  # each box key is used once: it comes from its own ephemeral key


@dataclass(frozen=True, slots=True)
class EscrowEntry:
    """One holder's part of a player's escrow: the share's commitment, the box's ephemeral
    public key, and the sealed share."""

    commitment: bytes
    ephemeral: bytes
    sealed: bytes

    def to_wire(self) -> list[bytes]:
        return [self.commitment, self.ephemeral, self.sealed]

    @classmethod
    def from_wire(cls, item: object) -> EscrowEntry | None:
        """The entry, or None if ``item`` is not three bins of 32, 32 and 48 bytes."""
        if not isinstance(item, list) or len(item) != 3:
            return None
        c, e, sealed = item
        if not (isinstance(c, bytes) and isinstance(e, bytes) and isinstance(sealed, bytes)):
            return None
        if len(c) != 32 or len(e) != 32 or len(sealed) != SEALED_LEN:
            return None
        return cls(c, e, sealed)


def _context(game_id: bytes, sender: int, holder: int) -> bytes:
    return bytes((len(game_id),)) + game_id + bytes((sender, holder))


def share_commitment(game_id: bytes, sender: int, holder: int, share: bytes) -> bytes:
    """``H(tag ‖ len(game_id) ‖ game_id ‖ sender ‖ holder ‖ share)``: shares are uniformly
    random 32-byte values, so the hash hides them without a nonce."""
    return hashlib.sha256(SHARE_TAG + _context(game_id, sender, holder) + share).digest()


def _aead(
    game_id: bytes, sender: int, holder: int, shared: bytes, ephemeral: bytes, receiver: bytes
) -> tuple[ChaCha20Poly1305, bytes]:
    header = BOX_TAG + _context(game_id, sender, holder)
    info = header + ephemeral + receiver
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(shared)
    return ChaCha20Poly1305(key), header


def _shares(secret: bytes, holders: Sequence[int]) -> list[bytes]:
    """XOR shares of ``secret``, one per holder: all but the last derived from the secret (a
    restarted player re-sends the same escrow), the last the XOR of the secret and the rest."""
    shares = [derive(secret, f"escrow share {h}") for h in holders[:-1]]
    last = int.from_bytes(secret, "big")
    for share in shares:
        last ^= int.from_bytes(share, "big")
    return [*shares, last.to_bytes(SHARE_LEN, "big")]


def make_escrow(
    secret: bytes, game_id: bytes, sender: int, pass_keys: Sequence[bytes]
) -> list[EscrowEntry]:
    """The escrow of player ``sender``'s secret for every other player, in player order;
    ``pass_keys`` are the roster's X25519 keys, by player."""
    holders = [h for h in range(len(pass_keys)) if h != sender]
    out = []
    for holder, share in zip(holders, _shares(secret, holders), strict=True):
        ephemeral = X25519PrivateKey.from_private_bytes(derive(secret, f"escrow key {holder}"))
        public = ephemeral.public_key().public_bytes_raw()
        shared = ephemeral.exchange(X25519PublicKey.from_public_bytes(pass_keys[holder]))
        aead, aad = _aead(game_id, sender, holder, shared, public, pass_keys[holder])
        sealed = aead.encrypt(_ZERO_NONCE, share, aad)
        out.append(EscrowEntry(share_commitment(game_id, sender, holder, share), public, sealed))
    return out


def ephemeral_secret(secret: bytes, holder: int) -> bytes:
    """The private key of the box to ``holder``: revealed only to settle that box's dispute."""
    return derive(secret, f"escrow key {holder}")


def _open(
    entry: EscrowEntry,
    game_id: bytes,
    sender: int,
    holder: int,
    shared: bytes,
    receiver: bytes,
) -> bytes | None:
    aead, aad = _aead(game_id, sender, holder, shared, entry.ephemeral, receiver)
    try:
        share = aead.decrypt(_ZERO_NONCE, entry.sealed, aad)
    except InvalidTag:
        return None
    if share_commitment(game_id, sender, holder, share) != entry.commitment:
        return None
    return share


def open_entry(
    entry: EscrowEntry,
    game_id: bytes,
    sender: int,
    holder: int,
    private: X25519PrivateKey,
    receiver: bytes,
) -> bytes | None:
    """The holder opens its box: the share, or None if the box does not open or its content
    is not the committed share."""
    try:
        shared = private.exchange(X25519PublicKey.from_public_bytes(entry.ephemeral))
    except ValueError:
        return None  # a low-order point: the shared secret is all zeros
    return _open(entry, game_id, sender, holder, shared, receiver)


def open_with_ephemeral(
    entry: EscrowEntry, game_id: bytes, sender: int, holder: int, ephemeral: bytes, receiver: bytes
) -> bytes | None:
    """Anyone opens a disputed box with its revealed ephemeral private key: the share, or None
    when the key is not the box's or the box does not hold the committed share."""
    if len(ephemeral) != 32:
        return None
    private = X25519PrivateKey.from_private_bytes(ephemeral)
    if private.public_key().public_bytes_raw() != entry.ephemeral:
        return None
    try:
        shared = private.exchange(X25519PublicKey.from_public_bytes(receiver))
    except ValueError:
        return None
    return _open(entry, game_id, sender, holder, shared, receiver)


def recover(shares: Sequence[bytes]) -> bytes:
    """The secret all the shares give together."""
    value = 0
    for share in shares:
        value ^= int.from_bytes(share, "big")
    return value.to_bytes(SHARE_LEN, "big")
