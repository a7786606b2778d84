"""Mistakes on the command line get one clear line and the right exit code, through ``hearts``."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from hearts_p2p.cli import audit
from hearts_p2p.cli.args import options_from
from hearts_p2p.cli.main import build_parser
from hearts_p2p.node.store import DataDir

from .pty_term import free_port, hearts_env


def hearts(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hearts_p2p.cli.main", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=hearts_env(**env),
    )


@pytest.mark.parametrize("target", ["0", "-5"])
def test_a_target_below_one_is_a_usage_error(target: str, tmp_path: Path) -> None:
    run = hearts("play", "--headless", "--target", target, "--data-dir", str(tmp_path))
    assert run.returncode == 2
    assert run.stderr == f"hearts play: --target must be from 1 to 10000, not {target}\n"


@pytest.mark.parametrize("command", ["audit", "replay"])
def test_a_log_that_cannot_be_read_is_an_error_not_an_invalid_game(
    command: str, tmp_path: Path
) -> None:
    missing = hearts(command, str(tmp_path / "nonexistent.log"))
    assert (missing.returncode, missing.stdout) == (1, "")
    assert missing.stderr == f"hearts {command}: {tmp_path / 'nonexistent.log'}: no such file\n"
    folder = hearts(command, str(tmp_path))
    assert folder.returncode == 1
    assert folder.stderr == f"hearts {command}: {tmp_path}: is a directory, not a game log\n"


def test_an_unreadable_log_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Checked in-process: the tests may run as root, who can read any file."""

    def refuse(path: Path, mode: str) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(audit, "open", refuse, raising=False)
    log = tmp_path / "game.log"
    assert audit.unreadable(log) == f"{log}: cannot read it (Permission denied)"


def test_a_second_process_on_one_data_directory_is_told_what_to_do(tmp_path: Path) -> None:
    held = DataDir(tmp_path / "hearts-p2p" / "players" / "Bea")
    held.lock()
    disc = str(free_port(socket.SOCK_DGRAM))
    run = hearts(
        "play", "--headless", "--name", "Bea", "--discovery-port", disc,
        XDG_DATA_HOME=str(tmp_path),
    )  # fmt: skip
    assert run.returncode == 1
    assert run.stderr == (
        f"hearts play: another hearts process is using {held.root}; "
        "give this player another --name or --data-dir\n"
    )


def test_a_joiner_takes_the_host_s_clock_unless_it_sets_its_own() -> None:
    mine = options_from(build_parser().parse_args(["join", "T", "--timeout", "30"]))
    assert (mine.absent_timeout, mine.table_clock) == (30.0, False)
    theirs = options_from(build_parser().parse_args(["join", "T"]))
    assert (theirs.absent_timeout, theirs.table_clock) == (120.0, True)


@pytest.mark.parametrize(("command", "wait"), [("join", "0"), ("bot", "-1")])
def test_a_wait_of_no_time_is_a_usage_error(command: str, wait: str, tmp_path: Path) -> None:
    run = hearts(command, "Friday", "--wait", wait, "--data-dir", str(tmp_path))
    assert (run.returncode, run.stderr) == (2, f"hearts {command}: --wait must be positive\n")


def test_a_wait_that_is_no_number_is_a_usage_error(tmp_path: Path) -> None:
    run = hearts("bot", "Friday", "--wait", "nan", "--data-dir", str(tmp_path))
    assert run.returncode == 2
    assert run.stderr.startswith("hearts bot: argument --wait: 'nan' is not a number of seconds\n")


def test_a_joiner_looks_for_its_table_ten_seconds_unless_told() -> None:
    for command in ("join", "bot"):
        assert build_parser().parse_args([command, "Friday"]).wait == 10.0
        assert build_parser().parse_args([command, "--wait", "90"]).wait == 90.0


@pytest.mark.parametrize("command", ["join", "bot"])
def test_a_joiner_gives_up_on_a_table_nobody_announces_after_its_wait(
    command: str, tmp_path: Path
) -> None:
    """Its input held open, as a person's terminal is: ``join`` leaves when its input ends."""
    disc = str(free_port(socket.SOCK_DGRAM))
    args = [command, "Nowhere", "--wait", "0.5", "--discovery-port", disc]
    with subprocess.Popen(
        [sys.executable, "-m", "hearts_p2p.cli.main", *args, "--data-dir", str(tmp_path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=hearts_env(),
    ) as proc:  # fmt: skip
        try:
            code = proc.wait(timeout=60)
        finally:
            proc.kill()
        assert proc.stderr is not None
        said = proc.stderr.read()
    assert code == 1, said
    assert f'hearts {command}: found no table "Nowhere" on lo within 0.5 s' in said
