"""The unit costs a bound is made of, measured in the run that uses them.

A signature check, a key derivation (a base-point multiplication), a point decode, an E_k
multiplication, and one loopback hop: each timed alone, so a bound is the count of each on a
path times its cost, on this machine, now.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Mapping

from ..deck.curve import CARD_POINTS, ORDER, load_x, multiply, scalar_key
from ..deck.randomness import SeededRandomness
from ..identity import Identity
from ..wire import verify_signature

OPERATIONS = ("verify", "derive", "decode", "multiply")


def _per_call(f: Callable[[int], object], samples: int) -> float:
    start = time.process_time()
    for i in range(samples):
        f(i)
    return (time.process_time() - start) / samples


def unit_costs(samples: int = 200) -> dict[str, float]:
    """Seconds of CPU for one of each of ``OPERATIONS``."""
    rng = SeededRandomness(b"bench units")
    ident = Identity.from_seed(rng.token_bytes(32))
    data = rng.token_bytes(400)
    sig = ident.sign(b"hearts-p2p/v1 message\0" + data)
    scalars = [1 + rng.randbelow(ORDER - 1) for _ in range(samples)]
    keys = [scalar_key(k) for k in scalars]
    points = [load_x(CARD_POINTS[i % 52]) for i in range(samples)]
    return {
        "verify": _per_call(lambda i: verify_signature(ident.public_key, data, sig), samples),
        "derive": _per_call(lambda i: scalar_key(scalars[i]), samples),
        "decode": _per_call(lambda i: load_x(CARD_POINTS[i % 52]), samples),
        "multiply": _per_call(lambda i: multiply(keys[i], points[i]), samples),
    }


def cost(counts: Mapping[str, int], units: Mapping[str, float]) -> float:
    """Seconds for ``counts`` of each operation."""
    return sum(n * units[op] for op, n in counts.items())


def loopback_hop(rounds: int = 200) -> float:
    """Seconds for one small message over loopback TCP, half the quickest of ``rounds``
    round trips to an echoing thread."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        client = socket.create_connection(server.getsockname())
        conn, _ = server.accept()

        def echo() -> None:
            while data := conn.recv(64):
                conn.sendall(data)

        thread = threading.Thread(target=echo, daemon=True)
        thread.start()
        best = float("inf")
        with client, conn:
            client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            for _ in range(rounds):
                start = time.perf_counter()
                client.sendall(b"x" * 32)
                got = 0
                while got < 32:
                    got += len(client.recv(64))
                best = min(best, time.perf_counter() - start)
            client.shutdown(socket.SHUT_WR)
            thread.join(timeout=5)
        return best / 2
