"""What differs between Linux, macOS and Windows, behind a few small interfaces.

Each module holds one concern — network interfaces, pinning a socket to one, folders, private
files, the memory probe, child processes, the console's colours, TCP keepalive — with one
implementation per OS; the directory lock (``dirlock``) is one call whose OS cases
``filelock`` holds. They are chosen here, in one place, from ``sys.platform``: everything above
asks ``current()`` and never tests the platform itself. Tests build the other OSes'
implementations with their OS calls faked, so each OS's own logic runs on any machine.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Literal

from .children import Children, NewProcessGroup, NewSession
from .console import Console, PosixConsole, WindowsConsole
from .folders import Folders, MacFolders, WindowsFolders, XdgFolders
from .keepalive import LINUX, MAC, WINDOWS, KeepAlive
from .memory import LinuxMemory, MacMemory, MemoryProbe, WindowsMemory
from .netifs import Interfaces, PosixInterfaces, WindowsInterfaces
from .pinning import LinuxPinning, MacPinning, Pinning, WindowsPinning
from .privacy import PosixPrivacy, Privacy, WindowsPrivacy

__all__ = ["OSName", "Platform", "current", "os_name", "platform_for"]

OSName = Literal["linux", "darwin", "win32"]


def os_name(platform: str = sys.platform) -> OSName:
    """The OS family of ``sys.platform``: the BSDs and other Unixes play as Linux does."""
    if platform == "darwin":
        return "darwin"
    if platform == "win32":
        return "win32"
    return "linux"


@dataclass(frozen=True)
class Platform:
    """One OS's implementation of every interface."""

    name: OSName
    interfaces: Interfaces
    pinning: Pinning
    folders: Folders
    privacy: Privacy
    memory: MemoryProbe
    children: Children
    console: Console
    keepalive: KeepAlive


def platform_for(name: OSName) -> Platform:
    """The implementations for ``name``, with that OS's real calls (made only when used)."""
    if name == "darwin":
        return Platform(
            name, PosixInterfaces("lo0"), MacPinning(), MacFolders(), PosixPrivacy(),
            MacMemory(), NewSession(), PosixConsole(), MAC,
        )  # fmt: skip
    if name == "win32":
        return Platform(
            name, WindowsInterfaces(), WindowsPinning(), WindowsFolders(), WindowsPrivacy(),
            WindowsMemory(), NewProcessGroup(), WindowsConsole(), WINDOWS,
        )  # fmt: skip
    return Platform(
        name, PosixInterfaces("lo"), LinuxPinning(), XdgFolders(), PosixPrivacy(),
        LinuxMemory(), NewSession(), PosixConsole(), LINUX,
    )  # fmt: skip


_platform: Platform | None = None


def current() -> Platform:
    """This machine's platform (chosen once; a test may set ``_platform`` to simulate one)."""
    global _platform
    if _platform is None:
        _platform = platform_for(os_name())
    return _platform
