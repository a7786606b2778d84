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

_HANGUP: int | None = getattr(signal, "SIGHUP", None)  # Windows has no hang-up signal
LEAVING_SIGNALS = tuple(int(s) for s in (signal.SIGINT, _HANGUP, signal.SIGTERM) if s is not None)

_SAYS = {
    int(signal.SIGINT): "interrupted: leaving the table (Ctrl-C again to stop at once)",
    int(signal.SIGTERM): "terminated: leaving the table (again to stop at once)",
}
if _HANGUP is not None:
    _SAYS[_HANGUP] = "the terminal closed: leaving the table"


def leaving_text(signum: int) -> str:
    """The line shown when ``signum`` arrives."""
    return _SAYS.get(signum, "leaving the table")


def is_hangup(signum: int) -> bool:
    """Whether ``signum`` says the terminal is gone."""
    return signum == _HANGUP


def detach_terminal() -> None:
    """Point standard input, output and error at /dev/null once the terminal has hung up:
    writing to a closed terminal fails (EIO), and the leaving must not fail on what it says."""
    with contextlib.suppress(OSError):
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.close(null)
