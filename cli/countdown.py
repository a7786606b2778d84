"""A sign of life while a command waits a known time: the seconds left, on one line of the
terminal, rewritten each second and erased at the end. Only on a terminal: a script or a log
gets nothing extra."""

from __future__ import annotations

import math
from typing import TextIO

import trio

__all__ = ["count_down"]


async def count_down(seconds: float, what: str, out: TextIO) -> None:
    """``what: N s`` on ``out`` until ``seconds`` have passed or the caller cancels it; the line
    is erased either way, so what the command prints next starts on a clean line."""
    end = trio.current_time() + seconds
    try:
        while (left := end - trio.current_time()) > 0:
            out.write(f"\r{what}: {math.ceil(left)} s \x1b[K")
            out.flush()
            await trio.sleep(left - math.ceil(left) + 1)  # to the next whole second left
    finally:
        out.write("\r\x1b[K")
        out.flush()
