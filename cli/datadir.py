"""Whether the data folder can be written, asked before a game or a watch begins: a read-only
or unwritable folder is then one line that says which folder and what to do, not an error
from deep in the session."""

from __future__ import annotations

import tempfile
from pathlib import Path

__all__ = ["unwritable"]


def unwritable(folder: Path) -> str | None:
    """Why nothing can be written in ``folder`` (made if missing), or None if it can."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as e:
        where = e.filename or folder
        return (
            f"cannot write to {where} ({e.strerror or e}): give another --data-dir, "
            "or set $XDG_DATA_HOME"
        )
    return None
