"""Where a player's data and settings live on each OS.

``$XDG_DATA_HOME`` and ``$XDG_CONFIG_HOME`` win on every OS, as they always have. Otherwise the
folders are the OS's own, from ``platformdirs``, which knows them (Windows asks the shell for its
known folders; the rules change between versions, and it follows them): on Linux
``~/.local/share/hearts-p2p`` and ``~/.config/hearts-p2p``, as before; on macOS
``~/Library/Application Support/hearts-p2p`` for both; on Windows
``%LOCALAPPDATA%\\hearts-p2p`` for both (local, not roaming: keys and logs stay on this machine).
Windows also keeps device names (``CON``, ``NUL``, ``COM1`` …) from every folder, so a player
named so gets a folder whose name is encoded further there.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

from platformdirs.api import PlatformDirsABC
from platformdirs.macos import MacOS
from platformdirs.unix import Unix
from platformdirs.windows import Windows

__all__ = ["APP", "Folders", "MacFolders", "WindowsFolders", "XdgFolders"]

APP = "hearts-p2p"


class Folders(Protocol):
    def data(self, env: Mapping[str, str]) -> Path:
        """Keys, secrets and logs: private to the player."""

    def config(self, env: Mapping[str, str]) -> Path:
        """The settings file's folder."""

    def entry(self, name: str) -> str:
        """``name`` (already percent-encoded, no dot) as a folder of its own on this OS."""


# Windows opens a device, not a file, for these names in any folder, with or without a suffix.
_DEVICE = re.compile(r"(CON|PRN|AUX|NUL|COM[0-9]|LPT[0-9])", re.IGNORECASE)


class _Folders:
    """``XDG_*`` from ``env`` first, then the OS's folder from platformdirs."""

    def __init__(self, dirs: type[PlatformDirsABC]) -> None:
        self._dirs = dirs

    def data(self, env: Mapping[str, str]) -> Path:
        if base := env.get("XDG_DATA_HOME"):
            return Path(base) / APP
        return Path(self._dirs(APP, appauthor=False).user_data_dir)

    def config(self, env: Mapping[str, str]) -> Path:
        if base := env.get("XDG_CONFIG_HOME"):
            return Path(base) / APP
        return Path(self._dirs(APP, appauthor=False).user_config_dir)

    def entry(self, name: str) -> str:
        return name


class XdgFolders(_Folders):
    def __init__(self) -> None:
        super().__init__(Unix)


class MacFolders(_Folders):
    def __init__(self) -> None:
        super().__init__(MacOS)


class WindowsFolders(_Folders):
    def __init__(self) -> None:
        super().__init__(Windows)

    def entry(self, name: str) -> str:
        """A device's name gets its first letter percent-encoded: ``con`` is ``%63on``."""
        if _DEVICE.fullmatch(name):
            return f"%{ord(name[0]):02X}{name[1:]}"
        return name
