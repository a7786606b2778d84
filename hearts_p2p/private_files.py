"""Folders and files only their owner can read: 0700 and 0600 whatever the umask.

The data folder holds the identity key, the game secrets and the logs; another user on the
machine must not read the first two, nor learn from the others which games were played. The
umask can only take permissions away, so asking for 0700/0600 is enough when creating; a file
that already existed (a temporary file left by a crash, say) is set to 0600 explicitly.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["DIR_MODE", "FILE_MODE", "open_private", "private_dir"]

DIR_MODE = 0o700
FILE_MODE = 0o600


def private_dir(path: Path) -> None:
    """Make ``path`` and any missing parents, each created 0700; existing ones are left alone."""
    missing = []
    for p in (path, *path.parents):
        if p.exists():
            break
        missing.append(p)
    for p in reversed(missing):
        try:
            os.mkdir(p, DIR_MODE)
        except FileExistsError:
            continue  # made meanwhile by another process; not ours to change
        os.chmod(p, DIR_MODE)


def open_private(path: Path, flags: int) -> int:
    """``os.open`` with ``O_CREAT``, the file 0600 whether made now or before."""
    fd = os.open(path, flags | os.O_CREAT, FILE_MODE)
    try:
        os.fchmod(fd, FILE_MODE)
    except BaseException:
        os.close(fd)
        raise
    return fd
