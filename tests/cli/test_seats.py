"""Joining a table that has no seat left says so at once, through the real ``hearts`` program."""

from __future__ import annotations

import socket
from pathlib import Path

from .pty_term import Terminal, data_dir, free_port, hearts_env
from .test_command_errors import hearts


def test_joining_a_table_that_plays_already_is_refused_at_once(tmp_path: Path) -> None:
    disc = str(free_port(socket.SOCK_DGRAM))
    host = Terminal(
        ["play", "--name", "Ada", "--bot-delay", "0", "--data-dir", data_dir(tmp_path, "ada"),
         "--discovery-port", disc],
        hearts_env(),
    )  # fmt: skip
    try:
        host.expect(r"pass 3 cards to [^\n>]*> ", timeout=30)  # every seat taken: it plays
        for command in ("join", "bot"):
            run = hearts(
                command, "Ada's table", "--name", "Bea", "--data-dir", data_dir(tmp_path, "bea"),
                "--discovery-port", disc,
            )  # fmt: skip
            assert run.returncode == 1, run.stdout + run.stderr
            assert run.stderr == (
                f'hearts {command}: table "Ada\'s table" is playing (4/4): it has no seat for you\n'
            )
        anyone = hearts(
            "join", "--name", "Bea", "--data-dir", data_dir(tmp_path, "bea"),
            "--discovery-port", disc,
        )  # fmt: skip
        assert anyone.returncode == 1
        assert anyone.stderr == (
            'hearts join: no open table: table "Ada\'s table" is playing (4/4): '
            "it has no seat for you\n"
        )
    finally:
        host.close()
