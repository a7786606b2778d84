"""The command line never ends in a traceback: generated arguments, parsed and dispatched by the
real ``main``, end with an exit code from the documented set, one line of error at most, and
within a bound.

In-process, so an example takes a fraction of a second: a command that gets as far as the network
(``trio.run``) or a benchmark stops there, its arguments taken; the rest (parsing, settings,
validation, audit and replay of files that are no logs, config) runs for real, in folders of
the test's own. A few real processes check the same of the ``hearts`` program itself.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import pytest
import trio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hearts_p2p.cli import bench
from hearts_p2p.cli.main import build_parser, main

from .pty_term import hearts_env

EXIT_CODES = {0, 1, 2, 3, 4, 130}
BOUND = 10.0  # seconds one command may take before it counts as a hang


class Reached(Exception):
    """The command got as far as the network or a benchmark with the arguments it was given."""


class Hang(Exception):
    pass


def _options() -> dict[str, list[str]]:
    """Every command's option strings, read from the parser itself, so a new option is tried."""
    out: dict[str, list[str]] = {"": ["--help", "--version"]}
    top = build_parser()
    for action in top._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out[name] = [s for a in sub._actions for s in a.option_strings]
    return out


OPTIONS = _options()
COMMANDS = sorted(c for c in OPTIONS if c)
VALUES = st.one_of(
    st.sampled_from(
        ["", "0", "-1", "1", "3", "4", "7", "nan", "inf", "-inf", "1e309", "65536", "99999999999",
         "0.5", "classic", "hard", "easy", "gongzhu", "hearts", "spot", "lo", "nosuch0", "eth0/x",
         "a" * 40, "x:1", "127.0.0.1:0", "[::1]:99", "::", "239.255.72.83", "999.1.1.1", "set",
         "unset", "check", "show", "name", "players", "interface", "engine", "\x00", "é", "-",
         "--", "Zoë", "\u202e"]
    ),
    st.text(max_size=12),
)  # fmt: skip


@st.composite
def command_lines(draw: st.DrawFn) -> list[str]:
    """A command and a few of its options, each perhaps with a value, in any order, with now and
    then a word that belongs nowhere."""
    command = draw(st.sampled_from(["", *COMMANDS, "frob"]))
    words = [command] if command else []
    flags = OPTIONS.get(command, OPTIONS[""])
    for _ in range(draw(st.integers(0, 5))):
        kind = draw(st.integers(0, 9))
        if kind < 6 and flags:
            words.append(draw(st.sampled_from(flags)))
            if draw(st.booleans()):
                words.append(draw(VALUES))
        else:
            words.append(draw(VALUES))
    return words


@contextlib.contextmanager
def _bounded(seconds: float) -> Iterator[None]:
    def alarm(signum: int, frame: FrameType | None) -> None:
        raise Hang(f"took over {seconds} s")

    before = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)


def _run(argv: list[str]) -> tuple[int | str, str]:
    """The exit code (or "reached"), and what went to stderr."""
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            with _bounded(BOUND):
                code: int | str = main(argv)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except Reached:
            code = "reached"
    return code, err.getvalue()


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Settings and data folders of the test's own, loopback only, and the network and the
    benchmarks replaced by a stop."""
    root = tmp_path_factory.mktemp("fuzz")
    patch = pytest.MonkeyPatch()

    def stop(*args: object, **kwargs: object) -> None:
        for arg in args:
            close = getattr(arg, "close", None)
            if callable(close) and hasattr(arg, "cr_frame"):
                close()  # a coroutine made but never awaited
        raise Reached

    patch.setattr(trio, "run", stop)
    patch.setattr(bench, "run", stop)
    for key, value in {
        "XDG_CONFIG_HOME": str(root / "config"),
        "XDG_DATA_HOME": str(root / "data"),
        "HEARTS_INTERFACE": "lo",
    }.items():
        patch.setenv(key, value)
    (root / "junk.log").write_bytes(b"\x00\xffnot a log")
    (root / "empty.log").write_bytes(b"")
    old = Path.cwd()
    os.chdir(root)  # relative paths drawn ("a", "-") land here
    try:
        yield root
    finally:
        os.chdir(old)
        patch.undo()


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(argv=command_lines())
def test_any_command_line_ends_with_a_documented_code_and_no_traceback(
    sandbox: Path, argv: list[str]
) -> None:
    code, err = _run(argv)
    assert code == "reached" or code in EXIT_CODES, (argv, code, err)
    assert "Traceback" not in err, (argv, err)
    if code in (1, 2):
        assert err.strip(), (argv, "an error with nothing said")
        assert len(err.strip().splitlines()) <= 3, (argv, err)


@settings(max_examples=100, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    argv=st.lists(st.sampled_from(["audit", "replay", "junk.log", "empty.log", ".", "--json",
                                   "--step", "x"]), max_size=4)
)  # fmt: skip
def test_audit_and_replay_of_what_is_no_log_say_so(sandbox: Path, argv: list[str]) -> None:
    code, err = _run(argv)
    assert code in EXIT_CODES and "Traceback" not in err, (argv, code, err)


def _seconds_options() -> list[tuple[str, str]]:
    top = build_parser()
    subs = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    return [
        (name, flag)
        for name, sub in subs.choices.items()
        for action in sub._actions
        if action.metavar == "SECONDS"
        for flag in action.option_strings[:1]
    ]


@pytest.mark.parametrize(("command", "flag"), _seconds_options())
def test_a_time_that_is_no_number_is_a_usage_error(sandbox: Path, command: str, flag: str) -> None:
    """``nan`` and ``inf`` parse as floats; at a timer they would fail, or wait forever."""
    for value in ("nan", "inf", "-inf", "soon"):
        code, err = _run([command, f"{flag}={value}"])
        assert code == 2, (command, flag, value, code, err)
        assert f"{flag}: {value!r} is not a number of seconds" in err


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["frob"],
        ["play", "--moon", "sideways"],
        ["play", "--headless", "--name", ""],
        ["join", "a", "b", "--wait", "nan"],
        ["watch", "--wait", "inf"],
        ["config", "set", "players", "\xff"],
        ["audit", "."],
    ],
)
def test_the_program_itself_ends_cleanly(argv: list[str], tmp_path: Path) -> None:
    """Through ``hearts``'s own entry; none of these reaches the network."""
    run = subprocess.run(
        [sys.executable, "-m", "hearts_p2p.cli.entry", *argv],
        capture_output=True, text=True, timeout=60, cwd=tmp_path,
        env=hearts_env(XDG_CONFIG_HOME=str(tmp_path / "c"), XDG_DATA_HOME=str(tmp_path / "d")),
    )  # fmt: skip
    assert run.returncode in {0, 1, 2}, run
    assert "Traceback" not in run.stderr, run.stderr
