"""Colours on a Windows console: ANSI turned on where it can be, plain text where not, with the
console's mode calls faked and the screen's style chosen as it is."""

from __future__ import annotations

import io

import pytest

from hearts_p2p.cli.render import Style
from hearts_p2p.system.console import (
    ENABLE_VIRTUAL_TERMINAL_PROCESSING,
    PosixConsole,
    WindowsConsole,
)

from .conftest import Simulate


class Console(io.StringIO):
    def isatty(self) -> bool:
        return True

    def fileno(self) -> int:
        return 7


class Pipe(io.StringIO):
    """A terminal-looking stream with no descriptor, as a test's."""

    def isatty(self) -> bool:
        return True


def test_a_windows_console_has_ansi_turned_on() -> None:
    set_to: list[int] = []

    def set_mode(fd: int, mode: int) -> bool:
        set_to.append(mode)
        return True

    assert WindowsConsole(get_mode=lambda fd: 0x3, set_mode=set_mode).ansi(Console())
    assert set_to == [0x3 | ENABLE_VIRTUAL_TERMINAL_PROCESSING]


def test_a_windows_console_already_on_is_left_alone() -> None:
    def set_mode(fd: int, mode: int) -> bool:
        raise AssertionError("asked again")

    assert WindowsConsole(get_mode=lambda fd: 0x7, set_mode=set_mode).ansi(Console())


def test_an_old_windows_console_or_none_gets_plain_text() -> None:
    assert not WindowsConsole(get_mode=lambda fd: 0x3, set_mode=lambda fd, m: False).ansi(Console())
    assert not WindowsConsole(get_mode=lambda fd: None, set_mode=lambda fd, m: True).ansi(Console())
    assert PosixConsole().ansi(Console())
    assert not WindowsConsole(get_mode=lambda fd: 0x7, set_mode=lambda fd, m: True).ansi(Pipe())


def test_the_screen_has_colour_only_where_the_console_shows_it(
    simulate: Simulate, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    simulate("win32", console=WindowsConsole(get_mode=lambda fd: 0x3, set_mode=lambda f, m: False))
    assert not Style.for_stream(Console()).color
    simulate("win32", console=WindowsConsole(get_mode=lambda fd: 0x3, set_mode=lambda f, m: True))
    assert Style.for_stream(Console()).color


def test_a_stream_without_a_descriptor_keeps_its_colour_off_windows(
    simulate: Simulate, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    simulate("linux")
    assert Style.for_stream(Pipe()).color
