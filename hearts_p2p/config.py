"""The player's settings file: what every command would otherwise need as flags, kept once.

``$XDG_CONFIG_HOME/hearts-p2p/config.toml`` (``~/.config/hearts-p2p/config.toml``) holds a few
keys: the name to play under, the network interface, and the rules a host prefers. A flag given
on the command line always wins; ``$HEARTS_INTERFACE`` wins over the file's interface. The file
is read with ``tomllib``; ``hearts config set`` and ``unset`` change the one key's line and keep
every other line as it is, so a bad value elsewhere never stops the mending of another.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from .rules import PRESETS, Moon, Ties
from .system import current

__all__ = [
    "KEYS",
    "ConfigError",
    "ConfigFileError",
    "Setting",
    "check",
    "config_path",
    "load",
    "set_value",
    "unset",
]


class ConfigError(ValueError):
    """A config file that cannot be read, or a key or value it cannot hold."""


class ConfigFileError(ConfigError):
    """The file itself: unreadable, not UTF-8 TOML, or not to be changed one line at a time."""


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
    """The settings in ``path`` (none if it does not exist), each checked as ``set`` checks it;
    the first problem found is raised."""
    settings, problems = _checked(path, _read(path))
    if problems:
        raise ConfigError(problems[0])
    return settings


def check(path: Path) -> tuple[dict[str, str | int | bool], list[str]]:
    """The file's good settings and every problem, each naming the file: what ``hearts config``
    shows and ``hearts config check`` reports."""
    try:
        raw = _read(path)
    except ConfigError as e:
        return {}, [str(e)]
    return _checked(path, raw)


def set_value(path: Path, key: str, text: str) -> str | int | bool:
    """Check ``text`` as a value of ``key`` and write it to the file; the value stored."""
    if key not in KEYS:
        raise ConfigError(f"no setting {key!r} (known: {', '.join(KEYS)})")
    try:
        value = KEYS[key].parse(text)
    except ConfigError as e:
        raise ConfigError(f"{key}: {e}") from None
    _rewrite(path, key, value)
    return value


def unset(path: Path, key: str) -> None:
    """Remove ``key`` from the file, whatever its value or the others' (a key the file has but
    this version does not know included)."""
    if key not in KEYS and key not in _present_keys(path):
        raise ConfigError(f"no setting {key!r} (known: {', '.join(KEYS)})")
    _rewrite(path, key, None)


def _read(path: Path) -> dict[str, object]:
    """The file's keys as TOML gives them, unchecked; none if there is no file."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as e:
        raise ConfigFileError(f"{path}: cannot read it ({e.strerror or e})") from None
    return _parse(path, data)


def _parse(path: Path, data: bytes) -> dict[str, object]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ConfigFileError(f"{path}: not UTF-8 text (byte {e.start + 1})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigFileError(f"{path}: {e}") from None


def _checked(
    path: Path, raw: Mapping[str, object]
) -> tuple[dict[str, str | int | bool], list[str]]:
    """The good settings of ``raw``, and a line for each bad one."""
    out: dict[str, str | int | bool] = {}
    problems = []
    for key, value in raw.items():
        if key not in KEYS:
            problems.append(f"{path}: no setting {key!r} (known: {', '.join(KEYS)})")
            continue
        try:
            out[key] = KEYS[key].parse(
                str(value).lower() if isinstance(value, bool) else str(value)
            )
        except ConfigError as e:
            problems.append(f"{path}: {key}: {e}")
    return out, problems


def _present_keys(path: Path) -> set[str]:
    try:
        return set(_read(path))
    except ConfigError:
        return set()


def _toml(value: str | int | bool) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


_HEADER = b"# hearts-p2p settings, written by `hearts config set`\n"


def _rewrite(path: Path, key: str, value: str | int | bool | None) -> None:
    """Replace ``key``'s line (or remove it, for None) and keep every other line as it was,
    bad values included; checked by reading the result back, so a file this cannot change
    safely (the key inside a table, say) is left alone, and the error says to edit it."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        data = _HEADER
    except OSError as e:
        raise ConfigFileError(f"{path}: cannot read it ({e.strerror or e})") from None
    line = re.compile(
        rb"\s*(" + re.escape(key.encode()) + rb'|"' + re.escape(key.encode()) + rb'")\s*='
    )
    kept = [ln for ln in data.splitlines(keepends=True) if not line.match(ln)]
    if kept and not kept[-1].endswith(b"\n"):
        kept[-1] += b"\n"
    if value is not None:
        kept.append(f"{key} = {_toml(value)}\n".encode())
    new = b"".join(kept)
    try:
        before: dict[str, object] | None = _parse(path, data)
    except ConfigError:
        before = None  # the line removed may have been what broke it
    try:
        after = _parse(path, new)
    except ConfigError as e:
        raise ConfigFileError(f"{e}; edit that line, or unset its key") from None
    others = {k: v for k, v in after.items() if k != key}
    if after.get(key) != value or (
        before is not None and others != {k: v for k, v in before.items() if k != key}
    ):
        raise ConfigFileError(f"{path}: cannot change {key} by itself here; edit the file")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(new)
    tmp.replace(path)
