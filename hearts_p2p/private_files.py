"""Folders and files only their owner can read: 0700 and 0600 on POSIX, an owner-only ACL on
Windows (``hearts_p2p.system.privacy`` says how each OS does it)."""

from __future__ import annotations

from pathlib import Path

from .system import current
from .system.privacy import DIR_MODE, FILE_MODE

__all__ = ["DIR_MODE", "FILE_MODE", "open_private", "private_dir"]


def private_dir(path: Path) -> None:
    """Make ``path`` and any missing parents, each private; existing ones are left alone."""
    current().privacy.private_dir(path)


def open_private(path: Path, flags: int) -> int:
    """``os.open`` with ``O_CREAT``, the file private whether made now or before."""
    return current().privacy.open_private(path, flags)
