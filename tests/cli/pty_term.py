"""Drive the real ``hearts`` program in a pseudo-terminal, as a person at a keyboard would.

The program sees a terminal (colour on, Ctrl-C is SIGINT from the line discipline), and the test
reads the screen and types lines, waiting for text with a hard deadline so a hang fails the test.
"""

from __future__ import annotations

import codecs
import contextlib
import fcntl
import os
import re
import select
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

from tests.ports import own_port

# Control sequences, the editor line's (prompt_toolkit's) included, read as text: moving the
# cursor right is a space (how it shows a prompt's trailing blank), a backspace takes back the
# character before it, and anything else changes no text. Erasing changes none either, so a
# prompt taken away for a line printed above it stays at that line's start.
_CONTROL = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]|\r")
_BACKSPACED = re.compile(r"[^\n]?\x08")  # a character the cursor stepped back over, redrawn
SUITS = {"♣": "c", "♦": "d", "♠": "s", "♥": "h"}


def free_port(kind: int = socket.SOCK_STREAM) -> int:
    return own_port(kind)


# How long a test's joiners and watchers look for their table: long, since the host they look for
# may start slowly on a machine busy with other tests; a run that finds it sooner goes on at once.
FIND_WAIT = "60"

# An empty settings directory, so the settings file of whoever runs the tests changes nothing.
NO_SETTINGS = tempfile.mkdtemp(prefix="hearts-test-settings-")


def hearts_env(**extra: str) -> dict[str, str]:
    """Loopback only, a UTF-8 colour terminal, no settings file, and nothing inherited that
    changes the look."""
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "HEARTS_ASCII")}
    env.update(HEARTS_INTERFACE="lo", TERM="xterm-256color", LANG="C.UTF-8", COLUMNS=str(WIDE))
    env["XDG_CONFIG_HOME"] = NO_SETTINGS
    env["PYTHONIOENCODING"] = "utf-8"
    # The editor line asks a terminal where its cursor is, to keep room below for completions;
    # this screen reader is no terminal to answer, and room kept is blank lines in its text.
    env["PROMPT_TOOLKIT_NO_CPR"] = "1"
    env.update(extra)
    return env


# Wide enough that no line the tests read whole wraps (a game log's path is long); a test of
# wrapping opens a narrow terminal.
WIDE = 300


class Timeout(AssertionError):
    pass


class Terminal:
    """One program on its own pseudo-terminal; ``expect`` reads on from where it last matched."""

    def __init__(
        self, args: list[str], env: dict[str, str] | None = None, columns: int = WIDE
    ) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
        env = {**(env or hearts_env()), "COLUMNS": str(columns)}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "hearts_p2p.cli.main", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            start_new_session=True,
            preexec_fn=_controlling_tty,
        )
        os.close(slave)
        self.fd = master
        self.raw = ""  # everything the program wrote, escapes included
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.pos = 0  # where the next expect starts, in the plain text

    @property
    def text(self) -> str:
        """The screen so far as text: no colour codes, no carriage returns (``_CONTROL``)."""

        def shown(m: re.Match[str]) -> str:
            code = m.group()
            return " " if code.startswith("\x1b[") and code.endswith("C") else ""

        return _BACKSPACED.sub("", _CONTROL.sub(shown, self.raw))

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return True
        try:
            data = os.read(self.fd, 65536)
        except OSError:  # EIO: the program closed the terminal
            return False
        if not data:
            return False
        self.raw += self._decoder.decode(data)  # a character may be split between reads
        return True

    def expect(self, pattern: str, timeout: float = 20.0) -> re.Match[str]:
        """Wait for ``pattern`` (a regex) in what appeared since the last match."""
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while True:
            m = rx.search(self.text, self.pos)
            if m is not None:
                self.pos = m.end()
                return m
            left = deadline - time.monotonic()
            if left <= 0 or (not self._read(min(left, 0.2)) and self.proc.poll() is not None):
                raise Timeout(f"no {pattern!r} within {timeout} s; screen:\n{self.tail()}")

    def expect_any(
        self, patterns: dict[str, str], timeout: float = 20.0
    ) -> tuple[str, re.Match[str]]:
        """Wait for the first of several patterns to appear; returns its key and match."""
        joined = "|".join(f"(?P<{k}>{p})" for k, p in patterns.items())
        m = self.expect(joined, timeout)
        key = next(k for k in patterns if m.group(k) is not None)
        return key, m

    def send(self, line: str) -> None:
        os.write(self.fd, line.encode() + b"\r")

    def keys(self, typed: str) -> None:
        """Keys as typed, with no Enter after them (``\t`` is Tab, ``\x1b[A`` the Up arrow)."""
        os.write(self.fd, typed.encode())

    def interrupt(self) -> None:
        """Ctrl-C, through the terminal's line discipline like a real keypress."""
        os.write(self.fd, b"\x03")

    def wait(self, timeout: float = 30.0) -> int:
        """The exit code, reading the screen meanwhile so the program never blocks on output."""
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None:
            if time.monotonic() > deadline:
                raise Timeout(f"still running after {timeout} s; screen:\n{self.tail()}")
            self._read(0.1)
        while self._read(0.05) and select.select([self.fd], [], [], 0)[0]:
            pass
        return self.proc.returncode

    def tail(self, chars: int = 3000) -> str:
        return self.text[-chars:]

    def children(self) -> list[int]:
        """The processes the program started (its bots), found before it is killed."""
        return descendants(self.proc.pid)

    def close(self) -> None:
        """Kill the program and everything it started: its bots run in sessions of their own,
        so they are killed one by one."""
        started = self.children()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        for pid in started:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self.proc.wait(timeout=10)
        os.close(self.fd)


def descendants(pid: int) -> list[int]:
    """Every live process below ``pid``, from /proc."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            for child in (task / "children").read_text().split():
                found += [int(child), *descendants(int(child))]
    return found


def running(pid: int) -> bool:
    """Whether ``pid`` is a process that has not exited (a zombie has)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def _controlling_tty() -> None:
    """Make the pty the child's controlling terminal, so Ctrl-C becomes SIGINT."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def hand_cards(line: str) -> list[str]:
    """``♣ 3 4 9   ♦ Q*`` → ``['3c', '4c', '9c', 'qd']`` (the marks of legal and received cards
    dropped)."""
    out = []
    for group in line.strip().split("   "):
        suit, *ranks = group.split()
        out += [r.strip("[]*").lower() + SUITS[suit] for r in ranks]
    return out


def prompt_cards(text: str) -> list[str]:
    """The legal cards listed in a ``play [8♣ J♣ K♣]>`` prompt, typed back as ``8c``."""
    return [c[:-1].lower() + SUITS[c[-1]] for c in text.split()]


def data_dir(tmp: Path, name: str) -> str:
    path = tmp / name
    path.mkdir(parents=True, exist_ok=True)
    return str(path)
