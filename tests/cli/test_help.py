"""The top-level ``hearts --help`` shows examples, and every one of them is a command that the
parser takes as written."""

from __future__ import annotations

import shlex

from hearts_p2p.cli.main import EXAMPLES, build_parser

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
