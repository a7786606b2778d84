"""Where a player's data and settings live on each OS.

``$XDG_DATA_HOME`` and ``$XDG_CONFIG_HOME`` win on every OS, as they always have. Otherwise the
folders are the OS's own, from ``platformdirs``, which knows them (Windows asks the shell for its
known folders; the rules change between versions, and it follows them): on Linux
``~/.local/share/hearts-p2p`` and ``~/.config/hearts-p2p``, as before; on macOS
``~/Library/Application Support/hearts-p2p`` for both; on Windows
``%LOCALAPPDATA%\\hearts-p2p`` for both (local, not roaming: keys and logs stay on this machine).
"""

from __future__ import annotations

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


class XdgFolders(_Folders):
    def __init__(self) -> None:
        super().__init__(Unix)


class MacFolders(_Folders):
    def __init__(self) -> None:
        super().__init__(MacOS)


class WindowsFolders(_Folders):
    def __init__(self) -> None:
        super().__init__(Windows)
