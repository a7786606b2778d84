"""The hash chain over a game's entries: what binds every message to all that came before it.

``head = SHA-256(head ‖ SHA-256(entry))`` from 32 zero bytes, over the entries in log order.
Every message names the head at the start of its step; every honest peer, ordering each step's
entries canonically, ends with the same final head. Pure: the log file and the protocol both
use it.
"""

from __future__ import annotations

import hashlib

__all__ = ["GENESIS_HEAD", "chain"]

GENESIS_HEAD = bytes(32)


def chain(head: bytes, entry: bytes) -> bytes:
    """The chain head after appending ``entry``."""
    return hashlib.sha256(head + hashlib.sha256(entry).digest()).digest()
