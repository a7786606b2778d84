"""``hearts games`` and a rerun after a crash, through the real program: a game the others
finished without you is listed as one that cannot go on, and the same command, run again,
says so and plays a new game instead of waiting for ever on a table that is gone."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hearts_p2p.node.store import DataDir
from tests.node.procs import entries
from tests.node.unfinished_game import left_unfinished
from tests.ports import own_port

from .pty_term import FIND_WAIT, Terminal, descendants, free_port, hearts_env, running

NOBODY = [("127.0.0.1", own_port()) for _ in range(3)]


def hearts(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hearts_p2p.cli.main", *args],
        capture_output=True, text=True, timeout=timeout, env=hearts_env(),
    )  # fmt: skip


def start(procs: list[subprocess.Popen[str]], out: Path, *args: str) -> subprocess.Popen[str]:
    with open(out, "w") as sink:
        p = subprocess.Popen(
            [sys.executable, "-m", "hearts_p2p.cli.main", *args],
            stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT, text=True,
            env=hearts_env(),
        )  # fmt: skip
    procs.append(p)
    return p


def wait_until(what: str, done: object, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not (callable(done) and done()):
        assert time.monotonic() < deadline, f"no {what} within {timeout} s"
        time.sleep(0.1)


@pytest.mark.slow
def test_a_game_the_others_finished_is_not_resumed_and_the_same_command_plays_anew(
    tmp_path: Path, started: list[subprocess.Popen[str]]
) -> None:
    disc = str(free_port(socket.SOCK_DGRAM))
    ada = tmp_path / "ada"
    # The bots wait a little before each play: the hand, some 120 entries, takes seconds however
    # fast the machine, so Ada is killed mid-hand, at the 40th.
    host = ["host", "--headless", "--bots", "2", "--table", "Friday", "--target", "1",
            "--timeout", "3", "--bot-strategy", "heuristic", "--bot-delay", "0.05",
            "--name", "Ada", "--data-dir", str(ada), "--discovery-port", disc]  # fmt: skip
    guest = ["bot", "Friday", "--name", "Robo", "--strategy", "heuristic", "--delay", "0.05",
             "--data-dir", str(tmp_path / "robo"), "--discovery-port", disc,
             "--wait", FIND_WAIT]  # fmt: skip
    first = start(started, tmp_path / "h1.out", *host)
    robo = start(started, tmp_path / "r1.out", *guest)
    wait_until("game", lambda: entries(ada) >= 40, 60)
    assert (ada / "unfinished-host.json").exists()
    others = [robo.pid, *descendants(first.pid)]
    first.kill()  # a crash: no word to the others, the game left unfinished
    first.wait()
    # The others take Ada's seat over after 3 s and finish the game without her.
    wait_until("end of the others' game", lambda: not any(running(p) for p in others), 90)
    (old,) = (ada / "games").glob("*.log")

    listed = hearts("games", "--data-dir", str(ada))
    assert listed.returncode == 0, listed.stderr
    assert 'host of "Friday" (4 players, to 1' in listed.stdout, listed.stdout
    assert "cannot go on: none of its 3 other players answered within 5 s" in listed.stdout
    assert f"log: {old} (check it: hearts audit {old})" in listed.stdout

    t0 = time.monotonic()
    again = start(started, tmp_path / "h2.out", *host)
    start(started, tmp_path / "r2.out", *guest)
    assert again.wait(timeout=120) == 0, (tmp_path / "h2.out").read_text()
    said = (tmp_path / "h2.out").read_text()
    assert "It cannot go on: none of its 3 other players answered within 5 s." in said, said
    assert f"Check it with: hearts audit {old}" in said
    assert "final scores:" in said and str(old) not in said.split("final scores:")[1]
    assert time.monotonic() - t0 < 120
    assert "no unfinished game" in hearts("games", "--data-dir", str(ada)).stdout


def test_games_lists_what_can_go_on_and_forgets_on_request(tmp_path: Path) -> None:
    state = left_unfinished(tmp_path, NOBODY, table="Friday", bots=3)
    short = state.game_id.hex()[:8]
    listed = hearts("games", "--data-dir", str(tmp_path))
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.startswith(f'{short}: host of "Friday" (4 players, to 100'), listed.stdout
    assert "started 2027-01-15 08:00 UTC" in listed.stdout
    assert "can go on: its bots Bot 1, Bot 2, Bot 3 start again" in listed.stdout
    as_json = json.loads(hearts("games", "--json", "--data-dir", str(tmp_path)).stdout)
    (row,) = as_json["games"]
    assert (row["id"], row["role"], row["table"], row["can_go_on"]) == (
        short,
        "host",
        "Friday",
        True,
    )
    assert row["started"] == 1_800_000_000 and Path(row["log"]).is_file()

    assert hearts("games", "forget", "zz", "--data-dir", str(tmp_path)).returncode == 2
    missing = hearts("games", "forget", "ffffffff", "--data-dir", str(tmp_path))
    assert missing.returncode == 1
    assert missing.stderr == 'hearts games: no unfinished game "ffffffff" (see hearts games)\n'
    forgot = hearts("games", "forget", short[:5], "--data-dir", str(tmp_path))
    assert forgot.returncode == 0 and forgot.stdout.startswith(f"forgot {short}: host of")
    assert DataDir(tmp_path).unfinished("host") is None
    assert DataDir(tmp_path / "bots" / "bot3").unfinished("join") is None
    assert "no unfinished game" in hearts("games", "--data-dir", str(tmp_path)).stdout


def test_forget_all_and_the_usage_errors(tmp_path: Path) -> None:
    state = left_unfinished(tmp_path, NOBODY)
    DataDir(tmp_path).save_unfinished("join", state)
    for wrong in (["forget"], ["forget", "abcd", "--all"], ["--all"], ["abcd"]):
        done = hearts("games", *wrong, "--data-dir", str(tmp_path))
        assert done.returncode == 2 and "Traceback" not in done.stderr, wrong
        assert len(done.stderr.strip().splitlines()[-1]) < 120
    done = hearts("games", "forget", "--all", "--data-dir", str(tmp_path))
    assert done.returncode == 0 and done.stdout.count("forgot ") == 2, done.stdout
    assert DataDir(tmp_path).unfinished("host") is None
    assert DataDir(tmp_path).unfinished("join") is None


def test_a_player_playing_now_is_listed_so_and_its_games_are_not_forgotten(
    tmp_path: Path,
) -> None:
    left_unfinished(tmp_path, NOBODY)
    playing = DataDir(tmp_path)
    playing.lock()  # this test's process plays from the directory
    listed = hearts("games", "--data-dir", str(tmp_path))
    assert f"being played now, by another hearts process (pid {os.getpid()})" in listed.stdout
    refused = hearts("games", "forget", "--all", "--data-dir", str(tmp_path))
    assert refused.returncode == 1 and "is playing from" in refused.stderr
    assert playing.unfinished("host") is not None


def test_a_crashed_terminal_game_resumes_on_screen_naming_the_flags_it_ignores(
    tmp_path: Path,
) -> None:
    """`hearts play` killed mid-hand (its bots play on): the same command, with another
    --timeout, says the game can go on, resumes it, and says the flag is not followed."""
    home = tmp_path / "ada"
    args = ["play", "--bot-strategy", "heuristic", "--name", "Ada", "--data-dir", str(home),
            "--discovery-port", str(free_port(socket.SOCK_DGRAM))]  # fmt: skip
    first = Terminal(args, hearts_env())
    try:
        first.expect(r"pass 3 cards to [^\n>]*> ", timeout=60)
        bots = first.children()
        first.proc.kill()  # a crash; the bots, in sessions of their own, play on
        first.proc.wait()
        again = Terminal([*args, "--timeout", "30"], hearts_env())
        try:
            again.expect(r"It can go on \(Bot \d answers?\): resuming it, with its own settings\.")
            again.expect(r"--timeout 30 ignored: the game keeps its clock of 120 s")
            again.expect(r"Resuming game [0-9a-f]{8} from ")
            again.expect(r"pass 3 cards to [^\n>]*> ", timeout=60)
        finally:
            again.close()
    finally:
        first.close()
        for pid in bots:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
