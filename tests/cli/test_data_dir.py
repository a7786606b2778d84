"""Without --data-dir, each player name has a data directory of its own."""

from __future__ import annotations

import getpass
from pathlib import Path

import pytest

from hearts_p2p.cli.args import data_dir_for


@pytest.fixture
def xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.setattr(getpass, "getuser", lambda: "ada")
    return tmp_path / "hearts-p2p"


def test_the_login_name_keeps_the_directory_it_always_had(xdg: Path) -> None:
    assert data_dir_for("ada", is_bot=False) == xdg
    assert data_dir_for("Ada", is_bot=False) == xdg
    assert data_dir_for("ada", is_bot=True) == xdg / "players" / "ada"
    assert data_dir_for("Bea", is_bot=False) == xdg / "players" / "Bea"


@pytest.mark.parametrize("name", ["..", ".", "a/b", "../../etc", "Zoë", "Ada Lovelace", "a%2Fb"])
def test_every_name_is_one_folder_of_its_own(xdg: Path, name: str) -> None:
    path = data_dir_for(name, is_bot=False)
    assert path.parent == xdg / "players"
    assert path.name not in (".", "..") and "/" not in path.name


def test_different_names_never_share_a_folder(xdg: Path) -> None:
    names = ["a/b", "a%2Fb", "a_b", "a.b", "a%2Eb", "A/B"]
    assert len({data_dir_for(n, is_bot=False) for n in names}) == len(names)
