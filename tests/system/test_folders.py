"""Where data and settings live: Linux's paths as they always were, macOS's and Windows's own
(Windows's known folder faked by platformdirs' override variable), and ``XDG_*`` first on all."""

from __future__ import annotations

import getpass
from pathlib import Path

import pytest

from hearts_p2p.cli.args import data_dir_for
from hearts_p2p.config import config_path
from hearts_p2p.node.store import default_data_dir
from hearts_p2p.system.folders import MacFolders, WindowsFolders, XdgFolders

from .conftest import Simulate

LOCAL_APPDATA = "C:\\Users\\ada\\AppData\\Local"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path))
    for name in ("XDG_DATA_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("WIN_PD_OVERRIDE_LOCAL_APPDATA", LOCAL_APPDATA)
    return tmp_path


def test_linux_keeps_its_xdg_paths(home: Path) -> None:
    assert XdgFolders().data({}) == home / ".local" / "share" / "hearts-p2p"
    assert XdgFolders().config({}) == home / ".config" / "hearts-p2p"


def test_macos_keeps_both_in_application_support(home: Path) -> None:
    support = home / "Library" / "Application Support" / "hearts-p2p"
    assert MacFolders().data({}) == support
    assert MacFolders().config({}) == support


def test_windows_keeps_both_in_local_appdata(home: Path) -> None:
    for folder in (WindowsFolders().data({}), WindowsFolders().config({})):
        assert str(folder).startswith(LOCAL_APPDATA) and folder.name == "hearts-p2p"


@pytest.mark.parametrize("folders", [XdgFolders(), MacFolders(), WindowsFolders()])
def test_xdg_variables_win_on_every_os(
    home: Path, folders: XdgFolders | MacFolders | WindowsFolders
) -> None:
    env = {"XDG_DATA_HOME": "/srv/data", "XDG_CONFIG_HOME": "/srv/conf"}
    assert folders.data(env) == Path("/srv/data/hearts-p2p")
    assert folders.config(env) == Path("/srv/conf/hearts-p2p")


def test_the_data_folder_and_settings_file_follow_the_platform(
    home: Path, simulate: Simulate
) -> None:
    simulate("darwin")
    assert default_data_dir() == home / "Library" / "Application Support" / "hearts-p2p"
    assert config_path().parent == default_data_dir()
    simulate("linux")
    assert default_data_dir() == home / ".local" / "share" / "hearts-p2p"
    assert config_path() == home / ".config" / "hearts-p2p" / "config.toml"


@pytest.mark.parametrize(
    ("name", "folder"),
    [("con", "%63on"), ("NUL", "%4EUL"), ("com1", "%63om1"), ("Lpt9", "%4Cpt9"),
     ("Ada", "Ada"), ("console", "console"), ("con%2Etxt", "con%2Etxt")],
)  # fmt: skip
def test_windows_keeps_a_players_folder_off_device_names(name: str, folder: str) -> None:
    assert WindowsFolders().entry(name) == folder
    assert XdgFolders().entry(name) == MacFolders().entry(name) == name


def test_a_player_named_like_a_device_gets_a_folder_on_windows(
    home: Path, simulate: Simulate, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(getpass, "getuser", lambda: "ada")
    simulate("win32")
    assert data_dir_for("Con", is_bot=False).name == "%43on"
    assert data_dir_for("Ada", is_bot=False) == default_data_dir()
    simulate("linux")
    assert data_dir_for("Con", is_bot=False).name == "Con"
