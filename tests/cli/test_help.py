"""The top-level ``hearts --help`` shows examples, and every one of them is a command that the
parser takes as written."""

from __future__ import annotations

import shlex

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
