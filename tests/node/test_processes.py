"""Peers as separate OS processes: a headless game from one command, and kill -9 and resume."""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from hearts_p2p.audit import audit_log
from hearts_p2p.log import read_log
from hearts_p2p.wire import decode_frame

from .procs import entries, free_port, game_log, hearts, start

pytestmark = pytest.mark.slow


def test_headless_game_from_one_command(tmp_path: Path) -> None:
    disc = str(free_port(socket.SOCK_DGRAM))
    done = subprocess.run(
        hearts(
            "play",
            "--headless",
            "--bot-strategy",
            "heuristic",
            "--target",
            "25",
            "--data-dir",
            str(tmp_path),
            "--discovery-port",
            disc,
            "--name",
            "Host",
        ),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "final scores:" in done.stdout
    log = Path(done.stdout.split("game log: ")[1].strip())
    report = audit_log(log)
    assert report.valid and report.status == "finished"
    bot_logs = sorted((tmp_path / "bots").glob("*/games/*.log"))
    assert len(bot_logs) == 3
    assert all(p.read_bytes() == log.read_bytes() for p in bot_logs)


def four_peers(dirs: list[Path], *options: str, target: int = 100) -> list[list[str]]:
    """The commands of a headless host and three bot peers joining it by address."""
    port = str(free_port())
    common = ["--discovery-port", str(free_port(socket.SOCK_DGRAM)), *options]
    host = ["host", "--headless", "--bot-strategy", "heuristic", "--table", "T", "--port", port]
    host += ["--target", str(target)]
    cmds = [hearts(*host, "--data-dir", str(dirs[0]), "--name", "P0", *common)]
    for i in (1, 2, 3):
        bot = ["bot", "--peer", f"127.0.0.1:{port}", "--strategy", "heuristic", "--seed", str(i)]
        cmds.append(hearts(*bot, "--name", f"P{i}", "--data-dir", str(dirs[i]), *common))
    return cmds


def start_all(cmds: list[list[str]], outs: list[Path]) -> list[subprocess.Popen[bytes]]:
    procs = [start(cmds[0], outs[0])]
    time.sleep(0.5)  # the host listens first
    return procs + [start(cmd, out) for cmd, out in zip(cmds[1:], outs[1:], strict=True)]


def first_difference(logs: list[list[bytes]]) -> str:
    """Where the logs part, for the failure message."""
    for i in range(max(len(log) for log in logs)):
        here = [log[i] if i < len(log) else None for log in logs]
        if len(set(here)) > 1:
            shown = [
                "-"
                if e is None
                else f"{decode_frame(e).envelope.kind} {decode_frame(e).envelope.step}"
                f" from {decode_frame(e).envelope.sender}"
                for e in here
            ]
            return f"logs differ at entry {i} (lengths {[len(x) for x in logs]}): {shown}"
    return "logs agree"


def test_kill_and_resume_at_seeded_points(tmp_path: Path) -> None:
    """SIGKILL a random peer at 20 seeded points; each restarts with the same command."""
    dirs = [tmp_path / f"p{i}" for i in range(4)]
    # To 30: at least two hands (26 points at most per hand), some 240 entries, so every one of
    # the 20 kill points, all below 200, falls inside the game: in the seating, and in the first
    # hand and the second while each shuffles the next hand's deck ahead.
    cmds = four_peers(dirs, "--timeout", "60", "--verbose", target=30)
    outs = [tmp_path / f"p{i}.out" for i in range(4)]
    procs = start_all(cmds, outs)
    rng = random.Random(20261129)
    points = sorted(rng.sample(range(2, 200), 20))
    kills = 0
    deadline = time.monotonic() + 600
    try:
        for point in points:
            while entries(dirs[0]) < point and all(p.poll() is None for p in procs):
                assert time.monotonic() < deadline, "the game stalled"
                time.sleep(0.02)
            if any(p.poll() is not None for p in procs):
                break
            victim = rng.randrange(4)
            procs[victim].kill()
            procs[victim].wait()
            kills += 1
            procs[victim] = start(cmds[victim], outs[victim])
        for p in procs:
            p.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    detail = "\n".join(o.read_text()[-2000:] for o in outs)
    assert kills == 20, f"only {kills} kills happened before the game ended\n{detail}"
    assert [p.returncode for p in procs] == [0, 0, 0, 0], detail
    logs = [read_log(game_log(d)).entries for d in dirs]
    assert all(entries_ == logs[0] for entries_ in logs), first_difference(logs)
    report = audit_log(game_log(dirs[0]))
    assert report.valid and report.status == "finished", report.problems


def test_hearts_play_resumes_with_its_bots_after_all_are_killed(tmp_path: Path) -> None:
    """Kill `hearts play` and every bot it started; the same command brings the game back."""
    disc = str(free_port(socket.SOCK_DGRAM))
    cmd = hearts(
        "play",
        "--headless",
        "--bot-strategy",
        "heuristic",
        "--target",
        "30",
        "--data-dir",
        str(tmp_path),
        "--discovery-port",
        disc,
        "--name",
        "Host",
    )
    out = tmp_path / "play.out"
    with open(out, "ab") as sink:
        first = subprocess.Popen(cmd, stdout=sink, stderr=sink, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while entries(tmp_path) < 60:
            assert first.poll() is None, out.read_text()
            assert time.monotonic() < deadline, "the game did not start"
            time.sleep(0.02)
    finally:
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
    time.sleep(0.5)  # let the killed bots' sockets close
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stdout + again.stderr + out.read_text()
    log = game_log(tmp_path)
    bot_logs = sorted((tmp_path / "bots").glob("*/games/*.log"))
    assert len(bot_logs) == 3
    assert all(p.read_bytes() == log.read_bytes() for p in bot_logs)
    report = audit_log(log)
    assert report.valid and report.status == "finished", report.problems
