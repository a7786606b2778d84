"""Helpers to run real `hearts` peers as separate OS processes on loopback."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

from hearts_p2p.log import LogCorrupt, read_log
from tests.ports import own_port


def free_port(kind: int = socket.SOCK_STREAM) -> int:
    return own_port(kind)


def hearts(*args: str) -> list[str]:
    return [sys.executable, "-m", "hearts_p2p.cli.main", *args]


def env() -> dict[str, str]:
    e = dict(os.environ)
    e["HEARTS_INTERFACE"] = "lo"
    e.pop("NO_COLOR", None)
    return e


def start(cmd: list[str], log: Path) -> subprocess.Popen[bytes]:
    out = open(log, "ab")  # noqa: SIM115 - the child holds it
    return subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=out, env=env())


def entries(data_dir: Path) -> int:
    logs = list((data_dir / "games").glob("*.log"))
    if not logs:
        return 0
    try:
        return len(read_log(logs[0]).entries)
    except LogCorrupt:
        return 0


def game_log(data_dir: Path) -> Path:
    (log,) = (data_dir / "games").glob("*.log")
    return log
