"""Signature checks remembered across the peers of one simulated table.

Every peer checks every message's Ed25519 signature: in one process that is the same check N − 1
times (and more, with relays), a sixth of a run's time. Within ``remembered_signatures`` a check
of the same (key, envelope, signature) is computed once and its answer given again, so each
peer still checks each message, and the answer is the one OpenSSL gave. Only the simulator uses
this, as the tests' ``cryptomemo`` remembers P-256 products; a node never does.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from .. import wire

__all__ = ["remembered_signatures"]

_LIMIT = 200_000  # answers kept, forgotten all at once when full


@contextmanager
def remembered_signatures() -> Iterator[None]:
    real = wire.verify_signature
    known: dict[tuple[bytes, bytes, bytes], bool] = {}

    def verify_signature(public_key: bytes, envelope_bytes: bytes, signature: bytes) -> bool:
        key = (public_key, envelope_bytes, signature)
        answer = known.get(key)
        if answer is None:
            if len(known) >= _LIMIT:
                known.clear()
            answer = known[key] = real(public_key, envelope_bytes, signature)
        return answer

    wire.verify_signature = verify_signature
    try:
        yield
    finally:
        wire.verify_signature = real
