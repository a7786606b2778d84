"""``hearts config`` and the settings file, through the real ``hearts`` program. Every setting
here stays on loopback: no test writes a real interface into a file."""

from __future__ import annotations

import json
import socket
import tomllib
from pathlib import Path

import pytest

from hearts_p2p.cli import config
from hearts_p2p.cli.main import build_parser

from .pty_term import free_port
from .test_command_errors import hearts


def test_config_sets_shows_and_unsets_settings(tmp_path: Path) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path)}
    path = tmp_path / "hearts-p2p" / "config.toml"
    empty = hearts("config", **env)
    assert empty.returncode == 0
    assert f"settings file: {path}\n  name       (not set)\n" in empty.stdout
    for key, value in (("name", 'Zoë "Z"'), ("interface", "lo"), ("target", "30")):
        assert hearts("config", "set", key, value, **env).returncode == 0
    assert tomllib.loads(path.read_text()) == {"name": 'Zoë "Z"', "interface": "lo", "target": 30}
    shown = hearts("config", **env).stdout
    assert '  name       Zoë "Z"\n  interface  lo\n' in shown and "  target     30\n" in shown
    assert hearts("config", "unset", "target", **env).returncode == 0
    assert "target" not in tomllib.loads(path.read_text())


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (("set", "players", "9"), "hearts config: players: 9 is not from 3 to 6\n"),
        (("set", "moon", "full"), "hearts config: moon: 'full' is not one of classic, negative"),
        (("set", "colour", "red"), "hearts config: no setting 'colour' (known: name, interface"),
        (("set", "name"), "hearts config: usage: hearts config set KEY VALUE\n"),
    ],
)
def test_a_wrong_setting_is_refused_and_the_file_left_alone(
    args: tuple[str, ...], error: str, tmp_path: Path
) -> None:
    run = hearts("config", *args, XDG_CONFIG_HOME=str(tmp_path))
    assert run.returncode == 2
    assert run.stderr.startswith(error)
    assert not (tmp_path / "hearts-p2p" / "config.toml").exists()


def test_a_broken_file_stops_a_command_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "hearts-p2p" / "config.toml"
    path.parent.mkdir()
    path.write_text("players = 12\n")
    run = hearts("list", "--wait", "0", XDG_CONFIG_HOME=str(tmp_path))
    assert run.returncode == 1
    assert (
        run.stderr == f"hearts list: {path}: players: 12 is not from 3 to 6 (see hearts config)\n"
    )


def test_flags_win_over_the_file_and_the_environment_over_its_interface(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "hearts-p2p" / "config.toml"
    path.parent.mkdir()
    path.write_text('name = "Ada"\ninterface = "lo"\nmoon = "choice"\n')
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.delenv("HEARTS_INTERFACE", raising=False)
    parser = build_parser()
    args = parser.parse_args(["host", "--name", "Bea"])
    assert config.apply(args) is None
    assert (args.name, args.interface, args.moon, args.preset) == (
        "Bea",
        ["lo"],
        "choice",
        "standard",
    )
    bot = parser.parse_args(["bot", "Friday"])
    assert config.apply(bot) is None and bot.name is None  # a bot is not the player
    monkeypatch.setenv("HEARTS_INTERFACE", "lo")
    join = parser.parse_args(["join"])
    assert config.apply(join) is None and join.interface is None  # netif reads the variable


def test_a_game_takes_the_name_and_rules_from_the_file(tmp_path: Path) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data")}
    assert hearts("config", "set", "name", "Ada", **env).returncode == 0
    assert hearts("config", "set", "target", "1", **env).returncode == 0
    disc = str(free_port(socket.SOCK_DGRAM))
    run = hearts(
        "play", "--headless", "--json", "--bot-strategy", "heuristic", "--discovery-port", disc,
        **env,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    outcome = json.loads(run.stdout)
    assert "Ada" in {row["name"] for row in outcome["totals"]}
    assert outcome["hands"] == 1
    assert max(row["total"] for row in outcome["totals"]) >= 1
