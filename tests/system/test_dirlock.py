"""The data directory's lock: one holder at a time, released with its descriptor."""

from __future__ import annotations

import os
from pathlib import Path

from hearts_p2p.system.dirlock import try_lock


def test_one_holder_at_a_time(tmp_path: Path) -> None:
    first = os.open(tmp_path / "lock", os.O_RDWR | os.O_CREAT, 0o600)
    second = os.open(tmp_path / "lock", os.O_RDONLY)
    try:
        assert try_lock(first)
        assert not try_lock(second)
        os.close(first)
        assert try_lock(second)
    finally:
        os.close(second)
