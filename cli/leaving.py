"""The signals that make a player leave the table, and what each one says.

Ctrl-C (SIGINT), a closed terminal (SIGHUP) and a polite kill (SIGTERM, as sent by ``kill``,
systemd or a shutdown) all mean the same to the table: this player leaves. Each is a quit, so
the others hear at once, the bots started for nobody leave too, and no unfinished game is left
behind to resume into a table that has gone on without it.
"""

from __future__ import annotations

import contextlib
import os
import signal

LEAVING_SIGNALS = (signal.SIGINT, signal.SIGHUP, signal.SIGTERM)

_SAYS = {
    signal.SIGINT: "interrupted: leaving the table (Ctrl-C again to stop at once)",
    signal.SIGHUP: "the terminal closed: leaving the table",
    signal.SIGTERM: "terminated: leaving the table (again to stop at once)",
}


def leaving_text(signum: int) -> str:
    """The line shown when ``signum`` arrives."""
    return _SAYS.get(signal.Signals(signum), "leaving the table")


def detach_terminal() -> None:
    """Point standard input, output and error at /dev/null once the terminal has hung up:
    writing to a closed terminal fails (EIO), and the leaving must not fail on what it says."""
    with contextlib.suppress(OSError):
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.close(null)
