"""Warnings of the network layers as status lines a person can read, each said once.

The layers below log what goes wrong on the network (an announcement that cannot be sent, a
probe that fails, a refused connection). Printed as log records they would land in the middle
of the game screen as ``hearts_p2p.discovery.announcer: …`` lines, repeated every second while
an interface is down; here each distinct trouble is one cleaned line. ``--verbose`` keeps the
full log on stderr instead.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from hearts_p2p.text import clean

__all__ = ["StatusLines", "say_network_trouble"]


class StatusLines(logging.Handler):
    """Hands each distinct warning to ``say`` once, as ``network: …``."""

    def __init__(self, say: Callable[[str], object], level: int = logging.WARNING) -> None:
        super().__init__(level)
        self.say = say
        self._said: set[str] = set()

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = clean(record.getMessage(), 200)
        except (TypeError, ValueError):  # a record whose arguments do not fit its format
            text = clean(str(record.msg), 200)
        if text not in self._said:
            self._said.add(text)
            self.say(f"network: {text}")


def say_network_trouble(say: Callable[[str], object], level: int = logging.WARNING) -> None:
    """Route every record from ``level`` up to ``say``, replacing any handler set before."""
    root = logging.getLogger()
    for handler in root.handlers[:]:
        root.removeHandler(handler)
    root.addHandler(StatusLines(say, level))
    root.setLevel(level)
