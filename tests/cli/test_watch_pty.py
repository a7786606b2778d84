"""``hearts watch`` in a pseudo-terminal, through the real program, at a hosted bot table; and
``hearts list`` showing the watcher and the bots' levels."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from .pty_term import FIND_WAIT, Terminal, data_dir, free_port, hearts_env


@pytest.fixture
def terminals() -> Iterator[list[Terminal]]:
    opened: list[Terminal] = []
    yield opened
    for t in opened:
        t.close()


def open_terminal(opened: list[Terminal], *args: str) -> Terminal:
    t = Terminal(list(args), hearts_env())
    opened.append(t)
    return t


def listed(disc: str) -> list[dict[str, object]]:
    out = subprocess.run(
        [sys.executable, "-m", "hearts_p2p.cli.main", "list", "--port", disc, "--json"],
        capture_output=True, text=True, timeout=30, env=hearts_env(),
    )  # fmt: skip
    tables: list[dict[str, object]] = json.loads(out.stdout)
    return tables


@pytest.mark.slow
def test_watch_follows_a_bot_table_and_ends_with_the_verdict(
    tmp_path: Path, terminals: list[Terminal]
) -> None:
    disc = str(free_port(socket.SOCK_DGRAM))
    host = open_terminal(
        terminals, "host", "--name", "Ada", "--table", "Friday", "--bots", "2", "--headless",
        "--bot-level", "easy", "--bot-delay", "0.2", "--target", "10",
        "--data-dir", data_dir(tmp_path, "ada"), "--discovery-port", disc,
    )  # fmt: skip
    player = open_terminal(
        terminals, "bot", "Friday", "--name", "Bo", "--level", "easy", "--delay", "0.2",
        "--data-dir", data_dir(tmp_path, "bo"), "--discovery-port", disc, "--wait", FIND_WAIT,
    )  # fmt: skip
    watcher = open_terminal(
        terminals, "watch", "Friday", "--name", "Kim", "--discovery-port", disc,
        "--data-dir", data_dir(tmp_path, "kim"), "--wait", FIND_WAIT,
    )  # fmt: skip
    watcher.expect(r'(Watching|Table) "Friday" hosted by Ada \([a-z0-9-]+\)', timeout=30)
    watcher.expect(r"seat 0: .*key [a-z0-9-]+", timeout=60)
    watcher.expect(r"Hand 1 \(dealer seat \d \(.*\), pass left\)", timeout=60)
    watcher.expect(r"  trick 1: seat \d \([^)]*\) 2♣", timeout=60)
    tables = listed(disc)
    assert tables and tables[0]["watchers"] == 1, (tables, host.tail())
    assert tables[0]["bots"] == ["easy", "easy", "easy"], tables
    player.expect(r"watching \(1\): Kim\n", timeout=30)
    watcher.expect(r"  totals: ", timeout=120)
    watcher.expect(r"VALID: a finished game\n", timeout=240)
    watcher.expect(r"Watched log: .*\.log", timeout=10)
    assert watcher.wait(30) == 0
    assert host.wait(60) == 0
    assert player.wait(60) == 0
    log = next((tmp_path / "kim" / "watched").glob("*.log"))
    audited = subprocess.run(
        [sys.executable, "-m", "hearts_p2p.cli.main", "audit", str(log)],
        capture_output=True, text=True, timeout=60, env=hearts_env(),
    )  # fmt: skip
    assert audited.returncode == 0, audited.stdout


def test_watch_with_no_table_says_so(tmp_path: Path) -> None:
    disc = str(free_port(socket.SOCK_DGRAM))
    done = subprocess.run(
        [sys.executable, "-m", "hearts_p2p.cli.main", "watch", "Nowhere", "--wait", "1",
         "--discovery-port", disc, "--data-dir", str(tmp_path)],
        capture_output=True, text=True, timeout=30, env=hearts_env(),
    )  # fmt: skip
    assert done.returncode == 1
    assert 'found no table "Nowhere" on lo within 1 s' in done.stderr
