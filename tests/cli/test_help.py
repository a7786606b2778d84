"""The top-level ``hearts --help`` shows examples, and every one of them is a command that the
parser takes as written."""

from __future__ import annotations

import shlex
import subprocess
import sys

import pytest

from hearts_p2p.cli.main import build_parser
from hearts_p2p.cli.overview import EXAMPLES, overview
from hearts_p2p.cli.usage import commands

from .test_command_errors import hearts


def test_the_help_shows_examples_that_parse() -> None:
    run = hearts("--help")
    assert run.returncode == 0
    assert "examples:\n  hearts play " in run.stdout and "exit codes:" in run.stdout
    commands = [ln.split("   ")[0].strip() for ln in EXAMPLES.splitlines()[1:] if ln.strip()]
    assert len(commands) >= 8
    parser = build_parser()
    for command in commands:
        if "COMMAND" in command:
            continue
        args = parser.parse_args(shlex.split(command)[1:])
        assert callable(args.func), command


def test_the_overview_is_the_full_parser_s_at_every_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """``hearts --help`` and a bare ``hearts`` print from a parser that names the commands only;
    it must print exactly what the parser of every option would."""
    for columns in ("60", "80", "132"):
        monkeypatch.setenv("COLUMNS", columns)
        assert overview(["--help"]) == build_parser().format_help()
        assert overview(["-h"]) == build_parser().format_help()
        assert overview([]) == commands(build_parser())
    assert overview(["play"]) is None and overview(["--help", "play"]) is None


def test_help_and_the_bare_command_load_no_game_and_no_network() -> None:
    """What makes them answer at once (under a tenth of a second, where the rest takes half):
    neither trio nor the game's modules are imported."""
    probe = (
        "import sys\n"
        "from hearts_p2p.cli.entry import main\n"
        "for argv in (['hearts', '--help'], ['hearts']):\n"
        "    sys.argv = argv\n"
        "    assert main() == 0\n"
        "heavy = [m for m in ('trio', 'hearts_p2p.game', 'hearts_p2p.node') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=False
    )
    assert run.returncode == 0, run.stderr
    assert "examples:" in run.stdout and "commands:" in run.stdout
