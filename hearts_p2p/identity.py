"""A player's long-lived Ed25519 identity: the key that signs every message and the handshake.

Peers know each other by the public key; people compare the short fingerprint shown in the roster.
"""

from __future__ import annotations

import base64
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from .private_files import open_private, private_dir

__all__ = ["Identity", "IdentityError", "PublicIdentity", "fingerprint", "verify"]

PUBLIC_KEY_BYTES = 32
SIGNATURE_BYTES = 64


class IdentityError(ValueError):
    """A key file or public key that cannot be used."""


def fingerprint(public_key: bytes) -> str:
    """A short, readable digest of a public key: ``k3xq-7m2a-p9td`` (60 bits)."""
    digest = hashlib.sha256(b"hearts-p2p fingerprint\0" + public_key).digest()
    text = base64.b32encode(digest).decode().lower()[:12]
    return f"{text[0:4]}-{text[4:8]}-{text[8:12]}"


def verify(public_key: bytes, signature: bytes, data: bytes) -> bool:
    """Whether ``signature`` is ``public_key``'s Ed25519 signature of ``data``."""
    if len(public_key) != PUBLIC_KEY_BYTES or len(signature) != SIGNATURE_BYTES:
        return False
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, data)
    except (InvalidSignature, ValueError):
        return False
    return True


@dataclass(frozen=True)
class PublicIdentity:
    """Another peer as this one knows it: a name it chose and a key it proved it holds."""

    name: str
    public_key: bytes

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public_key)


class Identity:
    """This peer's signing key."""

    def __init__(self, private_key: Ed25519PrivateKey) -> None:
        self._key = private_key
        self.public_key: bytes = private_key.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )

    @classmethod
    def generate(cls) -> Identity:
        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def from_seed(cls, seed: bytes) -> Identity:
        """A deterministic identity from 32 bytes: for test vectors and seeded test games."""
        if len(seed) != 32:
            raise IdentityError("an identity seed is 32 bytes")
        return cls(Ed25519PrivateKey.from_private_bytes(seed))

    @classmethod
    def load_or_create(cls, path: Path) -> Identity:
        """Load the key at ``path``, or make one there (mode 0600) on first run."""
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            ident = cls.generate()
            private_dir(path.parent)
            tmp = path.with_suffix(".tmp")
            fd = open_private(tmp, os.O_WRONLY | os.O_TRUNC)
            with os.fdopen(fd, "wb") as f:
                f.write(ident.private_bytes())
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
            return ident
        if len(raw) != 32:
            raise IdentityError(f"{path} is not an identity key file (expected 32 bytes)")
        return cls.from_seed(raw)

    def private_bytes(self) -> bytes:
        return self._key.private_bytes(
            serialization.Encoding.Raw,
            serialization.PrivateFormat.Raw,
            serialization.NoEncryption(),
        )

    def sign(self, data: bytes) -> bytes:
        return self._key.sign(data)

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public_key)
