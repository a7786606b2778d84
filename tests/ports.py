"""Ports of a test's own: below the kernel's ephemeral range and apart for each xdist worker.

A port found by binding port 0 and letting it go is an ephemeral one: another worker's client
socket can be given it the moment after, and the test's bind then fails ("Address already in
use"). No client socket is given a port below the ephemeral range (32768 on Linux by default),
and each worker takes its ports from a block of its own.
"""

from __future__ import annotations

import itertools
import os
import socket

BASE = 16_000
SPAN = 2_000  # ports per worker: 8 workers fit below 32768
_taken = itertools.count(os.getpid() % SPAN)


def _worker() -> int:
    digits = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    return int(digits) % 8 if digits.isdigit() else 0


def own_port(kind: int = socket.SOCK_STREAM) -> int:
    """A port of ``kind`` (TCP or UDP) that nothing on this machine holds now."""
    start = BASE + _worker() * SPAN
    for _ in range(SPAN):
        port = start + next(_taken) % SPAN
        with socket.socket(socket.AF_INET, kind) as s:
            try:
                s.bind(("0.0.0.0", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {start}..{start + SPAN - 1}")
