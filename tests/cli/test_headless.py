"""Runs with no person at the table, through the real ``hearts`` program: a bot says where it
sits and how each hand went, and every run ends with the scores by name, or as JSON."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
from pathlib import Path

from .pty_term import FIND_WAIT, Terminal, free_port, hearts_env


def start(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "hearts_p2p.cli.main", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=hearts_env(),
    )


def finish(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    try:
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, out, err


def test_a_bot_reports_as_it_plays_and_a_headless_host_ends_in_json(tmp_path: Path) -> None:
    disc = str(free_port(socket.SOCK_DGRAM))
    host = start(
        "host", "--headless", "--json", "--name", "Ada", "--table", "Friday", "--bots", "2",
        "--target", "1", "--bot-strategy", "heuristic", "--data-dir", str(tmp_path / "ada"),
        "--discovery-port", disc,
    )  # fmt: skip
    bot = start(
        "bot", "Friday", "--name", "Robo", "--strategy", "heuristic",
        "--data-dir", str(tmp_path / "robo"), "--discovery-port", disc, "--wait", FIND_WAIT,
    )  # fmt: skip
    code, out, err = finish(bot)
    host_code, host_out, host_err = finish(host)
    assert code == 0, out + err
    assert host_code == 0, host_out + host_err
    lines = out.splitlines()
    assert 'playing at "Friday" as Robo, with ' in out, out
    assert any(re.fullmatch(r"hand 1: [+-]\d+ for me, totals (\S.* -?\d+, ){3}\S.* -?\d+", ln)
               for ln in lines), out  # fmt: skip
    final = next(ln for ln in lines if ln.startswith("final scores: "))
    assert re.fullmatch(r"final scores: (\S[^,]* -?\d+, ){3}\S[^,]* -?\d+; winners? .+", final)
    assert "by seat" not in out and "Robo" in final and "Ada" in final
    assert lines[-1].startswith("game log: ")

    outcome = json.loads(host_out)
    assert outcome["status"] == "finished"
    names = {row["name"] for row in outcome["totals"]}
    assert {"Ada", "Robo"} <= names and len(names) == 4
    assert set(outcome["winners"]) <= names and outcome["winners"]
    assert Path(outcome["log"]).is_file() and re.fullmatch(r"[0-9a-f]{64}", outcome["final_hash"])
    bot_log = lines[-1].removeprefix("game log: ")
    assert Path(bot_log).read_bytes() == Path(outcome["log"]).read_bytes()


def test_json_needs_a_headless_game(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "hearts_p2p.cli.main", "play", "--json", "--data-dir",
         str(tmp_path)],
        capture_output=True, text=True, timeout=60, env=hearts_env(),
    )  # fmt: skip
    assert (run.returncode, run.stderr) == (2, "hearts play: --json needs --headless\n")


def test_a_headless_game_on_a_terminal_shows_its_progress_in_one_line(tmp_path: Path) -> None:
    """On a terminal, one line redrawn in place says the hand and trick in play and the
    totals; it is taken away before the final scores, which print on a clean line."""
    disc = str(free_port(socket.SOCK_DGRAM))
    term = Terminal(
        ["play", "--headless", "--name", "Ada", "--target", "10", "--bot-strategy", "heuristic",
         "--data-dir", str(tmp_path / "ada"), "--discovery-port", disc],
    )  # fmt: skip
    try:
        term.expect(r"hand 1 · (passing|trick 1 of 13) · totals [^\n]*Ada 0", timeout=60)
        assert term.wait(timeout=120) == 0
    finally:
        term.close()
    assert re.search(r"\rhand 1 · trick \d+ of 13 · totals [^\r\n]*Ada 0\b", term.raw)
    assert re.search(r"\r\x1b\[K\r?\n?final scores: ", term.raw)
    assert "Traceback" not in term.text


def test_a_headless_game_to_a_pipe_or_in_json_draws_no_progress(tmp_path: Path) -> None:
    disc = str(free_port(socket.SOCK_DGRAM))
    code, out, err = finish(start(
        "play", "--headless", "--name", "Ada", "--target", "1", "--bot-strategy", "heuristic",
        "--data-dir", str(tmp_path / "ada"), "--discovery-port", disc,
    ))  # fmt: skip
    assert code == 0, out + err
    assert "\r" not in out + err and "trick" not in out + err
    assert out.startswith("final scores: ")
