"""The player's settings file: what every command would otherwise need as flags, kept once.

``$XDG_CONFIG_HOME/hearts-p2p/config.toml`` (``~/.config/hearts-p2p/config.toml``) holds a few
keys: the name to play under, the network interface, and the rules a host prefers. A flag given
on the command line always wins; ``$HEARTS_INTERFACE`` wins over the file's interface. The file
is read with ``tomllib``; ``hearts config set`` writes it back as plain ``key = value`` lines.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from .rules import PRESETS, Moon, Ties
from .system import current

__all__ = ["KEYS", "ConfigError", "Setting", "config_path", "load", "save", "set_value"]


class ConfigError(ValueError):
    """A config file that cannot be read, or a key or value it cannot hold."""


@dataclass(frozen=True)
class Setting:
    """One key of the file: what it means and how a typed value becomes a stored one."""

    help: str
    parse: Callable[[str], str | int | bool]


def _name(text: str) -> str:
    if not 0 < len(text) <= 32 or not text.isprintable():
        raise ConfigError("name must be 1 to 32 printable characters")
    return text


def _interface(text: str) -> str:
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names or not all(current().interfaces.is_name(n) for n in names):
        raise ConfigError(f"{text!r} is not an interface name (e.g. eth0, or eth0,wlan0)")
    return ",".join(names)


def _choice(options: list[str]) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if text not in options:
            raise ConfigError(f"{text!r} is not one of {', '.join(options)}")
        return text

    return parse


def _int(low: int, high: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise ConfigError(f"{text!r} is not a number") from None
        if not low <= value <= high:
            raise ConfigError(f"{value} is not from {low} to {high}")
        return value

    return parse


def _bool(text: str) -> bool:
    if text.lower() in ("true", "yes", "on", "1"):
        return True
    if text.lower() in ("false", "no", "off", "0"):
        return False
    raise ConfigError(f"{text!r} is not true or false")


KEYS: dict[str, Setting] = {
    "name": Setting("your name at the table", _name),
    "interface": Setting("network interface(s) for discovery and play, e.g. eth0", _interface),
    "broadcast": Setting("discover by broadcast instead of multicast (true/false)", _bool),
    "preset": Setting("rules preset: " + ", ".join(sorted(PRESETS)), _choice(sorted(PRESETS))),
    "players": Setting("players at a table you host (3 to 6)", _int(3, 6)),
    "moon": Setting("shooting the moon: " + ", ".join(m.value for m in Moon),
                    _choice([m.value for m in Moon])),
    "target": Setting("the total that ends a game you host", _int(1, 10000)),
    "ties": Setting("equal lowest totals: " + ", ".join(t.value for t in Ties),
                    _choice([t.value for t in Ties])),
}  # fmt: skip


def config_path(env: Mapping[str, str] = os.environ) -> Path:
    """Where the file lives: under ``$XDG_CONFIG_HOME``, else the OS's settings folder
    (``~/.config`` on Linux, ``~/Library/Application Support`` on macOS, ``%LOCALAPPDATA%`` on
    Windows)."""
    return current().folders.config(env) / "config.toml"


def load(path: Path) -> dict[str, str | int | bool]:
    """The settings in ``path`` (none if it does not exist), each checked as ``set`` checks it."""
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        return {}
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ConfigError(f"{path}: {e}") from None
    out: dict[str, str | int | bool] = {}
    for key, value in data.items():
        if key not in KEYS:
            raise ConfigError(f"{path}: no setting {key!r} (known: {', '.join(KEYS)})")
        try:
            out[key] = KEYS[key].parse(
                str(value).lower() if isinstance(value, bool) else str(value)
            )
        except ConfigError as e:
            raise ConfigError(f"{path}: {key}: {e}") from None
    return out


def set_value(settings: dict[str, str | int | bool], key: str, text: str) -> None:
    """Check ``text`` as a value of ``key`` and store it in ``settings``."""
    if key not in KEYS:
        raise ConfigError(f"no setting {key!r} (known: {', '.join(KEYS)})")
    try:
        settings[key] = KEYS[key].parse(text)
    except ConfigError as e:
        raise ConfigError(f"{key}: {e}") from None


def _toml(value: str | int | bool) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def save(path: Path, settings: Mapping[str, str | int | bool]) -> None:
    """Write ``settings`` to ``path`` in the order of ``KEYS``, replacing the file whole."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [f"{k} = {_toml(settings[k])}\n" for k in KEYS if k in settings]
    tmp = path.with_suffix(".tmp")
    header = "# hearts-p2p settings, written by `hearts config set`\n"
    tmp.write_text(header + "".join(lines), encoding="utf-8")
    tmp.replace(path)
