"""Holding a data directory for one process: an exclusive lock on its ``lock`` file.

``filelock`` takes it with the OS's own call on a descriptor we opened (``flock`` on Linux and
macOS, ``LockFileEx`` on Windows), so the file stays ours to make private; every OS releases
it when the process ends, however it ends.
"""

from __future__ import annotations

from filelock import lock_descriptor

__all__ = ["try_lock"]


def try_lock(fd: int) -> bool:
    """Lock ``fd``'s file for this process, or say it is held (by another descriptor)."""
    return lock_descriptor(fd, blocking=False)
