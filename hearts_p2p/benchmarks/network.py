"""A bot game between real peer processes over loopback TCP, and when each peer saw each step.

Shared by ``hearts bench game`` and ``hearts bench handstart``. Every peer appends to its own
timings file when it sends a play and when it takes each log entry; all peers share one
monotonic clock, being on one machine, so the files line up.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..netif import loopback_name
from ..system import current

STAGGER = 0.3  # seconds between starting the host and the others, so they find it listening


@dataclass
class PeerTimes:
    """One peer's timings: when it took the last entry of each step, when it sent each play."""

    seen: dict[tuple[int, str], float] = field(default_factory=dict)
    sent: dict[tuple[int, str], float] = field(default_factory=dict)
    rss: dict[int, int] = field(default_factory=dict)  # bytes resident as each hand was dealt


@dataclass
class NetworkRun:
    start: float  # the host process started
    exits: list[float]  # each peer process exited, by peer
    cpu: list[float]  # CPU seconds of each peer process
    peers: list[PeerTimes]
    log: Path  # the host's game log
    killed: tuple[int, float] | None = None  # the peer killed for good, and when

    @property
    def wall(self) -> float:
        return max(self.exits) - self.start

    def last_seen(self) -> float:
        return max(max(p.seen.values()) for p in self.peers)

    def all_seen(self, hand: int, step: str) -> float | None:
        """When the last peer took the last entry of ``step`` of ``hand``."""
        times = [p.seen.get((hand, step)) for p in self.peers]
        return None if None in times else max(t for t in times if t is not None)

    def last_play(self, hand: int) -> float | None:
        """When the last card of ``hand`` left its player."""
        plays = [
            (int(step.partition(".")[2]), t)
            for p in self.peers
            for (h, step), t in p.sent.items()
            if h == hand and step.startswith("play.")
        ]
        return max(plays)[1] if plays else None


def free_port(kind: int) -> int:
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def hearts(*args: str) -> list[str]:
    return [sys.executable, "-m", "hearts_p2p.cli.main", *args]


def startup_seconds(runs: int = 3) -> float:
    """Wall time of the quickest of ``runs`` starts of the ``hearts`` program (``--version``):
    what starting one peer process costs before it does anything."""
    best = float("inf")
    for _ in range(runs):
        start = time.monotonic()
        subprocess.run(hearts("--version"), check=True, stdout=subprocess.DEVNULL)
        best = min(best, time.monotonic() - start)
    return best


def play(
    tmp: Path,
    *,
    players: int,
    target: int,
    strategy: str,
    tick: Callable[[], None] | None = None,
    kill: tuple[int, int] | None = None,
    timeout: float | None = None,
) -> NetworkRun:
    """Run one game: a headless host and ``players - 1`` bots, each its own process.

    ``tick`` is called while the game runs (a progress line); ``kill`` = (peer, entries) kills
    that peer for good (SIGKILL) once the host has taken that many entries; ``timeout`` is every
    peer's ``--timeout``."""
    port = str(free_port(socket.SOCK_STREAM))
    common = ["--interface", loopback_name(), "--discovery-port", str(free_port(socket.SOCK_DGRAM))]
    if timeout is not None:
        common += ["--timeout", str(timeout)]
    host = hearts(
        "host", "--headless", "--table", "bench", "--players", str(players),
        "--target", str(target), "--port", port, "--name", "p0",
        "--data-dir", str(tmp / "p0"), "--timings", str(tmp / "t0"),
        "--bot-strategy", strategy, *common,
    )  # fmt: skip
    cmds = [host] + [_bot(tmp, i, port, strategy, common) for i in range(1, players)]
    env = {**os.environ, "HEARTS_INTERFACE": loopback_name()}
    start = time.monotonic()
    procs = [subprocess.Popen(cmds[0], env=env, stdout=subprocess.DEVNULL)]
    time.sleep(STAGGER)
    procs += [subprocess.Popen(c, env=env, stdout=subprocess.DEVNULL) for c in cmds[1:]]
    exits, cpu, codes = [0.0] * players, [0.0] * players, [0] * players
    killed: tuple[int, float] | None = None
    left = len(procs)
    while left:
        ended = current().children.reap(procs)
        if ended is None:
            if tick is not None:
                tick()
            if kill is not None and killed is None and entries_seen(tmp / "t0") >= kill[1]:
                procs[kill[0]].kill()
                killed = (kill[0], time.monotonic())
            time.sleep(0.02)
            continue
        left -= 1
        exits[ended.index] = time.monotonic()
        codes[ended.index] = ended.code
        cpu[ended.index] = ended.cpu
    if killed is not None:
        exits[killed[0]] = killed[1]
    if any(c for i, c in enumerate(codes) if killed is None or i != killed[0]):
        raise SystemExit(f"hearts bench: peers exited with {codes}")
    log = next((tmp / "p0" / "games").glob("*.log"))
    times = [_times(tmp / f"t{i}") for i in range(players)]
    return NetworkRun(start, exits, cpu, times, log, killed)


def entries_seen(timings: Path) -> int:
    """How many log entries a peer has recorded taking so far."""
    try:
        return timings.read_bytes().count(b'"seen"')
    except OSError:
        return 0


def _bot(tmp: Path, i: int, port: str, strategy: str, common: list[str]) -> list[str]:
    return hearts(
        "bot", "--peer", f"127.0.0.1:{port}", "--name", f"p{i}", "--seed", str(i),
        "--data-dir", str(tmp / f"p{i}"), "--timings", str(tmp / f"t{i}"),
        "--quiet", "--strategy", strategy, *common,
    )  # fmt: skip


def _times(path: Path) -> PeerTimes:
    out = PeerTimes()
    for line in path.read_text().splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue  # the last line of a peer killed while writing it
        hand, _, step = rec["step"].partition(":")
        key = (int(hand), step)
        if "rss" in rec:
            out.rss[key[0]] = rec["rss"]
        elif "sent" in rec:
            out.sent[key] = rec["sent"]
        else:
            out.seen[key] = max(out.seen.get(key, 0.0), rec["seen"])
    return out
