"""One updating status line on stderr while a long bench runs, only where someone watches it:
never with ``--quiet``, never when stderr is not a terminal (a log file, a pipe, CI)."""

from __future__ import annotations

import sys
from typing import TextIO

__all__ = ["Progress"]


class Progress:
    def __init__(self, quiet: bool, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.on = not quiet and self.stream.isatty()
        self._width = 0

    def show(self, text: str) -> None:
        """Replace the line with ``text``."""
        if self.on:
            pad = " " * max(0, self._width - len(text))
            self.stream.write(f"\r{text}{pad}")
            self.stream.flush()
            self._width = len(text)

    def close(self) -> None:
        """End the line, so what follows starts on a fresh one."""
        if self.on and self._width:
            self.stream.write("\n")
            self.stream.flush()
            self._width = 0
