"""Whether a terminal shows ANSI escapes (red suits, bold, erasing the prompt line).

Every POSIX terminal does. A Windows console does only once virtual-terminal processing is on
for its output handle (``SetConsoleMode``), which Windows Terminal has from the start and the
older console host needs asked for; a console too old to take it keeps plain text.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Protocol, TextIO

__all__ = ["Console", "PosixConsole", "WindowsConsole"]

ENABLE_VIRTUAL_TERMINAL_PROCESSING = 0x0004  # <wincon.h>


class Console(Protocol):
    def ansi(self, stream: TextIO) -> bool:
        """Whether the terminal ``stream`` writes to shows ANSI escapes, turning them on if it
        can."""


class PosixConsole:
    def ansi(self, stream: TextIO) -> bool:
        return True


GetMode = Callable[[int], int | None]
SetMode = Callable[[int, int], bool]

if sys.platform == "win32":
    import ctypes
    import msvcrt
    from ctypes import wintypes

    def _get_mode(fd: int) -> int | None:
        """The console mode of ``fd``'s handle; None if it is no console."""
        kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
        mode = wintypes.DWORD()
        if not kernel32.GetConsoleMode(msvcrt.get_osfhandle(fd), ctypes.byref(mode)):
            return None
        return int(mode.value)

    def _set_mode(fd: int, mode: int) -> bool:
        kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
        return bool(kernel32.SetConsoleMode(msvcrt.get_osfhandle(fd), mode))

else:

    def _get_mode(fd: int) -> int | None:
        raise OSError("GetConsoleMode is Windows's")

    def _set_mode(fd: int, mode: int) -> bool:
        raise OSError("SetConsoleMode is Windows's")


class WindowsConsole:
    def __init__(self, get_mode: GetMode = _get_mode, set_mode: SetMode = _set_mode) -> None:
        self._get_mode, self._set_mode = get_mode, set_mode

    def ansi(self, stream: TextIO) -> bool:
        try:
            fd = stream.fileno()
            mode = self._get_mode(fd)
            if mode is None:
                return False
            if mode & ENABLE_VIRTUAL_TERMINAL_PROCESSING:
                return True
            return self._set_mode(fd, mode | ENABLE_VIRTUAL_TERMINAL_PROCESSING)
        except (OSError, ValueError):  # no descriptor, or no console behind it
            return False
