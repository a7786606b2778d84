"""``hearts config``: show and set the settings file, and fill in the flags a command was not
given from it (a flag always wins; ``$HEARTS_INTERFACE`` wins over the file's interface)."""

from __future__ import annotations

import argparse
import os
import sys

from hearts_p2p.config import KEYS, ConfigError, config_path, load, save, set_value
from hearts_p2p.netif import ENV_INTERFACE
from hearts_p2p.rules import GameKind
from hearts_p2p.text import clean

__all__ = ["add_parser", "apply"]

_RULES = ("preset", "players", "moon", "target", "ties")


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    keys = "\n".join(f"  {k:<10} {s.help}" for k, s in KEYS.items())
    p = sub.add_parser(
        "config",
        help="show or change your settings (name, interface, preferred rules)",
        description="Show the settings file, or set or unset one of its keys. Every command "
        "takes from it what its flags do not say.",
        epilog=f"settings:\n{keys}\n\nexamples:\n  hearts config\n"
        "  hearts config set interface eth0\n  hearts config set name Ada\n"
        "  hearts config unset interface",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("action", nargs="?", choices=("show", "set", "unset"), default="show")
    p.add_argument("key", nargs="?", help="the setting")
    p.add_argument("value", nargs="?", help="its new value (for set)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    path = config_path()
    try:
        settings = load(path)
        if args.action == "show":
            if args.key is not None:
                raise ConfigError("show takes no key; hearts config shows every setting")
            _show(path, settings)
            return 0
        if args.key is None or (args.action == "set") != (args.value is not None):
            usage = "set KEY VALUE" if args.action == "set" else "unset KEY"
            raise ConfigError(f"usage: hearts config {usage}")
        if args.action == "set":
            set_value(settings, args.key, args.value)
        elif args.key not in KEYS:
            raise ConfigError(f"no setting {args.key!r} (known: {', '.join(KEYS)})")
        else:
            settings.pop(args.key, None)
        save(path, settings)
    except ConfigError as e:
        sys.stderr.write(f"hearts config: {e}\n")
        return 2
    except OSError as e:
        sys.stderr.write(f"hearts config: cannot write {path}: {e.strerror or e}\n")
        return 1
    _show(path, settings)
    return 0


def _show(path: object, settings: dict[str, str | int | bool]) -> None:
    lines = [f"settings file: {path}"]
    for key in KEYS:
        value = settings.get(key)
        shown = (
            "(not set)"
            if value is None
            else clean(str(value).lower() if isinstance(value, bool) else str(value), 80)
        )
        lines.append(f"  {key:<10} {shown}")
    if "interface" in settings and os.environ.get(ENV_INTERFACE):
        lines.append(f"(${ENV_INTERFACE} is set, and wins over the interface here)")
    sys.stdout.write("\n".join(lines) + "\n")


def apply(args: argparse.Namespace) -> str | None:
    """Fill the flags ``args`` lacks from the settings file; the error, if it cannot be read."""
    try:
        settings = load(config_path())
    except ConfigError as e:
        return str(e)
    named = args.command in ("play", "host", "join", "watch", "games")
    if named and args.name is None and "name" in settings:
        args.name = settings["name"]
    unnamed = getattr(args, "interface", "-") is None and not os.environ.get(ENV_INTERFACE)
    if unnamed and "interface" in settings:
        args.interface = str(settings["interface"]).split(",")
    if getattr(args, "broadcast", True) is False and settings.get("broadcast") is True:
        args.broadcast = True
    if args.command in ("play", "host") and args.game == GameKind.HEARTS.value:
        # The preferred rules are Hearts': a Gong Zhu table takes only its own flags.
        for key in _RULES:
            if getattr(args, key) is None and key in settings:
                setattr(args, key, settings[key])
        if args.preset is None:
            args.preset = "standard"
    return None
