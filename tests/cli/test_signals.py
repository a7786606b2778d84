"""A player's program ended by a signal leaves the table as Ctrl-C does, its bots with it.

Real processes on loopback: each test starts ``hearts`` itself, signals the pid its own Popen
gave, and checks that the program and every bot it started are gone within 2 s, with exit code
130, and that no unfinished game is left behind to resume.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.node.procs import entries

from .pty_term import FIND_WAIT, Terminal, descendants, free_port, hearts_env, running

LEAVE_WITHIN = 2.0  # seconds from the signal until the program and its bots are gone
MID_HAND = 30  # log entries: the seating's and some of the first hand's


def start(procs: list[subprocess.Popen[str]], *args: str) -> subprocess.Popen[str]:
    p = subprocess.Popen(
        [sys.executable, "-m", "hearts_p2p.cli.main", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=hearts_env(),
    )
    procs.append(p)
    return p


def wait_for(what: str, ready: object, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not callable(ready) or not ready():
        if time.monotonic() > deadline:
            raise AssertionError(f"no {what} within {timeout} s")
        time.sleep(0.1)


def playing(home: Path) -> bool:
    """The game has begun: its genesis is logged and the game is saved to resume."""
    return (home / "unfinished-host.json").exists() and any((home / "games").glob("*.log"))


def signal_and_time(proc: subprocess.Popen[str], signum: int) -> tuple[int, float, list[int]]:
    """Send ``signum`` to ``proc``; its exit code, how long until it and the bots it started
    were gone, and the bots still running after ``LEAVE_WITHIN`` (none expected)."""
    bots = descendants(proc.pid)
    assert bots, "the program started no bots"
    sent = time.monotonic()
    proc.send_signal(signum)
    code = proc.wait(timeout=30)
    while any(running(b) for b in bots) and time.monotonic() - sent < LEAVE_WITHIN + 5:
        time.sleep(0.02)
    took = time.monotonic() - sent
    return code, took, [b for b in bots if running(b)]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_headless_game_signalled_mid_game_ends_with_its_bots(
    tmp_path: Path, started: list[subprocess.Popen[str]], signum: int
) -> None:
    home = tmp_path / "ada"
    proc = start(
        started, "play", "--headless", "--bot-strategy", "heuristic", "--bot-delay", "0.2",
        "--name", "Ada", "--data-dir", str(home),
        "--discovery-port", str(free_port(socket.SOCK_DGRAM)),
    )  # fmt: skip
    wait_for("the first hand", lambda: playing(home) and entries(home) >= MID_HAND)
    code, took, left = signal_and_time(proc, signum)
    _, err = proc.communicate(timeout=10)
    assert code == 130, err
    assert not left and took < LEAVE_WITHIN, f"{len(left)} bots still play after {took:.2f} s"
    assert "Traceback" not in err, err
    assert not (home / "unfinished-host.json").exists()
    assert not any(home.glob("bots/*/unfinished-join.json"))


def test_a_table_waiting_for_a_player_ends_with_its_bots_on_sigterm(
    tmp_path: Path, started: list[subprocess.Popen[str]]
) -> None:
    home = tmp_path / "ada"
    proc = start(
        started, "host", "--headless", "--bots", "2", "--table", "Friday",
        "--bot-strategy", "heuristic", "--name", "Ada", "--data-dir", str(home),
        "--discovery-port", str(free_port(socket.SOCK_DGRAM)),
    )  # fmt: skip
    wait_for("two bots", lambda: len(descendants(proc.pid)) == 2)
    time.sleep(1.0)  # seated in the lobby
    code, took, left = signal_and_time(proc, signal.SIGTERM)
    _, err = proc.communicate(timeout=10)
    assert code == 130, err
    assert not left and took < LEAVE_WITHIN, f"{len(left)} bots still run after {took:.2f} s"
    assert "left the table before the game started" in err and "Traceback" not in err


def test_a_hosted_game_signalled_mid_game_ends_with_its_bots_not_with_the_others(
    tmp_path: Path, started: list[subprocess.Popen[str]]
) -> None:
    """The host's own bots leave with it; a bot that joined on its own is not the host's to
    stop: it leaves by itself, as a bot does once no person is left at the table."""
    disc = str(free_port(socket.SOCK_DGRAM))
    home = tmp_path / "ada"
    host = start(
        started, "host", "--headless", "--bots", "2", "--table", "Friday",
        "--bot-strategy", "heuristic", "--bot-delay", "0.2", "--name", "Ada",
        "--data-dir", str(home), "--discovery-port", disc,
    )  # fmt: skip
    guest = start(
        started, "bot", "Friday", "--name", "Robo", "--strategy", "heuristic", "--delay", "0.2",
        "--data-dir", str(tmp_path / "robo"), "--discovery-port", disc, "--wait", FIND_WAIT,
    )  # fmt: skip
    wait_for("the first hand", lambda: playing(home) and entries(home) >= MID_HAND)
    code, took, left = signal_and_time(host, signal.SIGTERM)
    _, err = host.communicate(timeout=10)
    assert code == 130, err
    assert not left and took < LEAVE_WITHIN, f"{len(left)} bots still run after {took:.2f} s"
    out, guest_err = guest.communicate(timeout=30)
    assert guest.returncode == 3, out + guest_err  # its own leaving, not a signal's
    assert "game aborted: Robo left the table" in out, out


def test_a_closed_terminal_leaves_the_table_and_nothing_to_resume(tmp_path: Path) -> None:
    """SIGHUP (the terminal closed) mid-game: the player leaves as with Ctrl-C, though the
    screen is gone, and a rerun has no dead game to resume into."""
    home = tmp_path / "ada"
    args = ["play", "--bot-strategy", "heuristic", "--name", "Ada", "--data-dir", str(home),
            "--discovery-port", str(free_port(socket.SOCK_DGRAM))]  # fmt: skip
    term = Terminal(args, hearts_env())
    try:
        term.expect(r"pass 3 cards to [^\n>]*> ", timeout=60)
        code, took, left = signal_and_time(term.proc, signal.SIGHUP)
    finally:
        term.close()
    assert code == 130
    assert not left and took < LEAVE_WITHIN, f"{len(left)} bots still run after {took:.2f} s"
    assert not (home / "unfinished-host.json").exists()
