"""Fixtures of the CLI tests that start the real program."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Iterator

import pytest

from .pty_term import descendants


@pytest.fixture
def started() -> Iterator[list[subprocess.Popen[str]]]:
    """The programs a test starts, killed with their bots however the test ends."""
    procs: list[subprocess.Popen[str]] = []
    yield procs
    for p in procs:
        for pid in descendants(p.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if p.poll() is None:
            p.kill()
        p.communicate(timeout=10)
