"""``hearts list`` shows that it listens, counting down, on a terminal only."""

from __future__ import annotations

import io
import socket
import subprocess
import sys

import trio
import trio.testing

from hearts_p2p.cli.countdown import count_down

from .pty_term import Terminal, free_port, hearts_env


async def test_the_seconds_left_are_shown_each_second_then_erased(
    autojump_clock: trio.testing.MockClock,
) -> None:
    out = io.StringIO()
    start = trio.current_time()
    await count_down(2.5, "listening", out)
    assert trio.current_time() - start == 2.5
    shown = [part.removesuffix(" \x1b[K") for part in out.getvalue().split("\r") if part]
    assert shown == ["listening: 3 s", "listening: 2 s", "listening: 1 s", "\x1b[K"]


async def test_a_countdown_cut_short_erases_its_line(
    autojump_clock: trio.testing.MockClock,
) -> None:
    out = io.StringIO()
    with trio.move_on_after(1.2):
        await count_down(5, "listening", out)
    assert out.getvalue().endswith("\r\x1b[K")
    assert "listening: 4 s" in out.getvalue() and "listening: 3 s" not in out.getvalue()


def test_hearts_list_counts_down_on_a_terminal_and_not_in_a_pipe() -> None:
    port = str(free_port(socket.SOCK_DGRAM))
    term = Terminal(["list", "--wait", "2", "--port", port])
    try:
        term.expect(r"listening for tables on lo: 2 s", timeout=30)
        term.expect(r"listening for tables on lo: 1 s", timeout=10)
        term.expect(r"no tables heard on lo", timeout=10)
        assert term.wait(10) == 1
    finally:
        term.close()
    piped = subprocess.run(
        [sys.executable, "-m", "hearts_p2p.cli.main", "list", "--wait", "1", "--port", port],
        capture_output=True, text=True, timeout=60, env=hearts_env(),
    )  # fmt: skip
    assert piped.returncode == 1 and "listening" not in piped.stdout + piped.stderr
