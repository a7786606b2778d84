"""Where a peer keeps its things: identity, game logs, secrets, and the game it may resume.

Everything lives under one data directory (XDG: ``$XDG_DATA_HOME/hearts-p2p``), one set of
files per game, named by the game id. A small pointer file names the unfinished game of each
role, so a peer killed mid-game resumes by running the same command again.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from ..identity import Identity
from ..log import SecretStore
from ..private_files import open_private, private_dir
from ..system import current
from ..system.dirlock import try_lock
from ..transport import Member

__all__ = ["DataDir", "DataDirBusy", "GameFiles", "ResumeState", "default_data_dir"]


def default_data_dir() -> Path:
    return current().folders.data(os.environ)


@dataclass(frozen=True)
class GameFiles:
    log: Path
    secrets: SecretStore
    state: Path


@dataclass(frozen=True)
class ResumeState:
    """What a peer needs to rejoin its game after a crash."""

    game_id: bytes
    host_key: bytes
    name: str
    port: int
    roster: tuple[Member, ...]
    bots: dict[str, Any] | None = None  # the host's bot peers, to start again on resume
    timeout: float | None = None  # the table's clock, kept on resume whatever --timeout says

    def to_json(self) -> dict[str, Any]:
        return {
            "game_id": self.game_id.hex(),
            "host_key": self.host_key.hex(),
            "name": self.name,
            "port": self.port,
            "roster": [
                {"key": m.public_key.hex(), "address": list(m.address) if m.address else None}
                for m in self.roster
            ],
            "bots": self.bots,
            "timeout": self.timeout,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> ResumeState:
        roster = tuple(
            Member(bytes.fromhex(m["key"]), tuple(m["address"]) if m["address"] else None)
            for m in d["roster"]
        )
        return cls(
            bytes.fromhex(d["game_id"]),
            bytes.fromhex(d["host_key"]),
            str(d["name"]),
            int(d["port"]),
            roster,
            d.get("bots") if isinstance(d.get("bots"), dict) else None,
            float(d["timeout"]) if isinstance(d.get("timeout"), int | float) else None,
        )


class DataDirBusy(Exception):
    """Another hearts process is playing from this data directory."""


class DataDir:
    def __init__(self, root: Path) -> None:
        self.root = root
        self._lock: IO[bytes] | None = None

    def lock(self) -> None:
        """Hold this directory for this process (released when it exits, even by SIGKILL), so
        two peers never write one identity's log at once."""
        private_dir(self.root)
        f = os.fdopen(open_private(self.root / "lock", os.O_WRONLY), "wb")
        if not try_lock(f.fileno()):
            f.close()
            raise DataDirBusy(f"another hearts process is playing from {self.root}")
        f.truncate(0)
        f.write(str(os.getpid()).encode())  # who holds it: see holder()
        f.flush()
        self._lock = f

    def holder(self) -> int | None:
        """The process that holds this directory now (``lock``), if one does: its pid, as it
        wrote it in the lock file (0 if unreadable). Checked without taking the lock."""
        try:
            with open(self.root / "lock", "rb") as f:
                if try_lock(f.fileno()):  # released by the close
                    return None
                try:
                    text = f.read(16).decode("ascii", "replace").strip()
                except OSError:  # Windows: a locked file's bytes cannot be read
                    return 0
                return int(text) if text.isdigit() else 0
        except OSError:  # no lock file: nobody ever played from here
            return None

    @property
    def identity_path(self) -> Path:
        return self.root / "identity.key"

    def identity(self) -> Identity:
        return Identity.load_or_create(self.identity_path)

    def game(self, game_id: bytes) -> GameFiles:
        base = self.root / "games" / game_id.hex()
        return GameFiles(
            base.with_suffix(".log"),
            SecretStore(base.with_suffix(".secret")),
            base.with_suffix(".json"),
        )

    def _pointer(self, role: str) -> Path:
        return self.root / f"unfinished-{role}.json"

    def save_unfinished(self, role: str, state: ResumeState) -> None:
        files = self.game(state.game_id)
        private_dir(files.state.parent)
        _write_json(files.state, state.to_json())
        _write_json(self._pointer(role), {"game_id": state.game_id.hex()})

    def unfinished(self, role: str) -> ResumeState | None:
        """The game this role was playing when it stopped, if any and readable."""
        try:
            pointer = json.loads(self._pointer(role).read_text())
            game_id = bytes.fromhex(pointer["game_id"])
            state = json.loads(self.game(game_id).state.read_text())
            return ResumeState.from_json(state)
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def finished(self, role: str) -> None:
        self._pointer(role).unlink(missing_ok=True)


def _write_json(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    with os.fdopen(open_private(tmp, os.O_WRONLY | os.O_TRUNC), "w") as f:
        json.dump(data, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
