"""Gong Zhu in a pseudo-terminal: a whole game typed against three bot peers in their own
processes, with the exposure prompt, exposed cards on every trick line and the result column."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .pty_term import Terminal, Timeout, data_dir, free_port, hearts_env, prompt_cards
from .test_terminal_pty import open_terminal, terminals  # noqa: F401 - the fixture

PROMPTS = {
    "expose": r"\n(?:expose (?P<cards>[^,\n]*), [^\n]*|you must expose [^\n]*)> ",
    "play": r"play \[(?P<legal>[^\]\n]*)\]> ",
    "over": r"Game over after [^\n]*\n",
    "aborted": r"Game aborted: [^\n]*\n",
}


@pytest.mark.slow
def test_whole_gongzhu_game_against_three_bots(tmp_path: Path, terminals: list[Terminal]) -> None:  # noqa: F811
    disc = str(free_port(socket.SOCK_DGRAM))
    term = open_terminal(
        terminals, "play", "--bot-strategy", "heuristic",
        "--game", "gongzhu", "--limit", "200", "--name", "Ada",
        "--bot-delay", "0", "--data-dir", data_dir(tmp_path, "ada"), "--discovery-port", disc,
    )  # fmt: skip
    term.expect(r"Table: Gong Zhu, 4 players, to −200", timeout=30)
    term.expect(r"── Hand 1 · Gong Zhu: exposures, then play ──", timeout=30)
    exposed: list[str] = []
    end = time.monotonic() + 120
    while time.monotonic() < end:
        try:
            key, m = term.expect_any(PROMPTS, timeout=0.2)
        except Timeout:
            continue
        if key in ("over", "aborted"):
            break
        if key == "expose":
            cards = m.group("cards")
            if cards and not exposed:  # expose everything the first time we may
                exposed = prompt_cards(cards)
                term.send(" ".join(exposed))
            else:
                term.send("")  # Enter: none, or only what we must
        else:
            legal = prompt_cards(m.group("legal"))
            term.send("" if len(legal) == 1 else legal[0])
    else:
        pytest.fail("the game did not end in time:\n" + term.tail())
    assert key == "over", term.tail()
    assert term.wait() == 0
    screen = term.text
    assert "Traceback" not in screen
    hands = len(re.findall(r"── Hand \d+ scored", screen))
    assert exposed or screen.count("You have no card you may expose") == hands
    if exposed:
        shown = r"  You expose (\S+ )*\S+ \((its score|their scores) doubled\)"
        assert re.search(shown, screen), screen
        assert re.search(r"Trick \d+[^\n]* · exposed: [^\n]*you ", screen)
    assert re.search(r"── Hand 1 scored · the game ends at −200 ──\n", screen)
    assert re.search(r"  player +hand +total +result\n  you +[+-]\d+ +-?\d+ +[+-]\d+", screen)
    assert re.search(r"Game over after \d+ hands?\. Winners?: ", screen)
    assert "(result: your total × 3 − the others' totals; above zero wins)" in screen
    log = re.search(r"Game log: (\S+\.log)", screen)
    assert log is not None
    audit = subprocess.run(
        [sys.executable, "-m", "hearts_p2p.cli.main", "audit", log.group(1)],
        capture_output=True, text=True, timeout=60, env=hearts_env(),
    )  # fmt: skip
    assert audit.returncode == 0, audit.stdout + audit.stderr
    assert "VALID: a finished game" in audit.stdout
    assert "Results (own total × 3 − the others'): " in audit.stdout
    if exposed:
        assert re.search(r"  seat \d \(Ada\) exposed ", audit.stdout)
