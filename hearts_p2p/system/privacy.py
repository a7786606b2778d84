"""Folders and files only their owner can read, on each OS.

The data folder holds the identity key, the game secrets and the logs; another user on the
machine must not read the first two, nor learn from the others which games were played.

POSIX (Linux, macOS): folders 0700 and files 0600 whatever the umask. The umask can only take
permissions away, so asking for 0700/0600 is enough when creating; a file that already existed
(a temporary file left by a crash, say) is set to 0600 explicitly.

Windows has no such modes (``chmod`` there sets the read-only flag alone): access is an ACL.
A folder we create gets one that grants its owner full control and no one else, inherited by
everything made in it (``icacls /inheritance:r /grant:r USER:(OI)(CI)F``); so every file,
made there later, is the owner's alone without a call per file. The default folder is under
``%LOCALAPPDATA%``, which Windows already keeps to its user. Files are opened in binary mode
(``O_BINARY``): without it Windows writes every newline byte of a log or key as two.
"""

from __future__ import annotations

import getpass
import os
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Protocol

__all__ = ["DIR_MODE", "FILE_MODE", "PosixPrivacy", "Privacy", "WindowsPrivacy"]

DIR_MODE = 0o700
FILE_MODE = 0o600

# <fcntl.h> of the Windows C runtime; os names them on Windows only.
O_BINARY = 0x8000
O_NOINHERIT = 0x0080

Opener = Callable[[Path, int, int], int]


class Privacy(Protocol):
    def private_dir(self, path: Path) -> None:
        """Make ``path`` and any missing parents, private; existing ones are left alone."""

    def open_private(self, path: Path, flags: int) -> int:
        """``os.open`` with ``O_CREAT``: a file only its owner can read, made now or before."""


def _missing(path: Path) -> list[Path]:
    """``path`` and its parents that do not exist yet, outermost first."""
    missing = []
    for p in (path, *path.parents):
        if p.exists():
            break
        missing.append(p)
    return missing[::-1]


def _fchmod(fd: int, mode: int) -> None:
    if hasattr(os, "fchmod"):
        os.fchmod(fd, mode)


class PosixPrivacy:
    def __init__(self, fchmod: Callable[[int, int], None] = _fchmod) -> None:
        self._fchmod = fchmod

    def private_dir(self, path: Path) -> None:
        for p in _missing(path):
            try:
                os.mkdir(p, DIR_MODE)
            except FileExistsError:
                continue  # made meanwhile by another process; not ours to change
            os.chmod(p, DIR_MODE)

    def open_private(self, path: Path, flags: int) -> int:
        fd = os.open(path, flags | os.O_CREAT, FILE_MODE)
        try:
            self._fchmod(fd, FILE_MODE)
        except BaseException:
            os.close(fd)
            raise
        return fd


def _icacls(args: list[str]) -> None:
    try:
        done = subprocess.run(
            ["icacls", *args], capture_output=True, text=True, timeout=30, check=False
        )
    except subprocess.TimeoutExpired:
        raise PermissionError(f"cannot make {args[0]} private: icacls took over 30 s") from None
    if done.returncode != 0:
        why = (done.stdout + done.stderr).strip().splitlines()
        raise PermissionError(
            f"cannot make {args[0]} private: {why[0] if why else 'icacls failed'}"
        )


def _account(env: Mapping[str, str]) -> str:
    user = env.get("USERNAME") or getpass.getuser()
    domain = env.get("USERDOMAIN")
    return f"{domain}\\{user}" if domain else user


class WindowsPrivacy:
    def __init__(
        self,
        icacls: Callable[[list[str]], None] = _icacls,
        opener: Opener = os.open,
        env: Mapping[str, str] = os.environ,
    ) -> None:
        self._icacls, self._open, self._env = icacls, opener, env

    def private_dir(self, path: Path) -> None:
        made = []
        for p in _missing(path):
            try:
                os.mkdir(p)
            except FileExistsError:
                continue  # made meanwhile by another process; not ours to change
            made.append(p)
        if made:
            # The outermost folder made, and (/t) those made in it; what is made there later
            # inherits its ACL.
            grant = f"{_account(self._env)}:(OI)(CI)F"
            self._icacls([str(made[0]), "/inheritance:r", "/grant:r", grant, "/t", "/q"])

    def open_private(self, path: Path, flags: int) -> int:
        return self._open(path, flags | os.O_CREAT | O_BINARY | O_NOINHERIT, FILE_MODE)
