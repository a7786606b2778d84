"""The data folder and every file in it are the owner's alone, whatever the umask."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from hearts_p2p.identity import Identity
from hearts_p2p.log import GameLog
from hearts_p2p.node.store import DataDir, ResumeState
from hearts_p2p.transport import Member

GAME = bytes(range(16))


@pytest.fixture
def open_umask() -> Iterator[None]:
    """The most careless umask there is: anything created follows only its own mode."""
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


def modes(root: Path) -> dict[str, int]:
    out = {".": stat.S_IMODE(root.stat().st_mode)}
    for p in root.rglob("*"):
        out[str(p.relative_to(root))] = stat.S_IMODE(p.stat().st_mode)
    return out


def test_a_data_folder_made_under_umask_0_is_private(tmp_path: Path, open_umask: None) -> None:
    root = tmp_path / "deep" / "data"
    store = DataDir(root)
    store.lock()
    store.identity()
    files = store.game(GAME)
    log = GameLog.open(files.log)
    log.append(b"entry")
    log.close()
    files.secrets.save({"secret": b"s" * 32})
    state = ResumeState(GAME, b"k" * 32, "me", 4000, (Member(b"k" * 32, ("127.0.0.1", 4000)),))
    store.save_unfinished("join", state)
    bot = DataDir(root / "bots" / "bot1")
    bot.lock()
    Identity.load_or_create(bot.identity_path)
    found = modes(tmp_path / "deep")
    made = {"identity.key", "lock", "unfinished-join.json", f"games/{GAME.hex()}.log",
            f"games/{GAME.hex()}.secret", f"games/{GAME.hex()}.json"}  # fmt: skip
    assert made <= {name.removeprefix("data/") for name in found}
    for name, mode in found.items():
        is_dir = (tmp_path / "deep" / name).is_dir()
        assert mode == (0o700 if is_dir else 0o600), f"{name} is {oct(mode)}"


def test_a_leftover_temporary_file_is_made_private(tmp_path: Path, open_umask: None) -> None:
    """A crash can leave a secrets .tmp behind; one made loose must not pass its mode on."""
    store = DataDir(tmp_path / "data")
    files = store.game(GAME)
    files.secrets.save({})
    tmp = files.secrets.path.with_suffix(".tmp")
    tmp.write_bytes(b"")
    os.chmod(tmp, 0o666)
    files.secrets.save({"secret": b"s" * 32})
    assert stat.S_IMODE(files.secrets.path.stat().st_mode) == 0o600
