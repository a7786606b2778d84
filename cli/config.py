"""``hearts config``: show, set, unset and check the settings file, and fill in the flags a
command was not given from it (a flag always wins; ``$HEARTS_INTERFACE`` wins over the file's
interface). Every error that comes from the file names it."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from hearts_p2p.config import (
    KEYS,
    ConfigError,
    ConfigFileError,
    check,
    config_path,
    load,
    set_value,
    unset,
)
from hearts_p2p.netif import ENV_INTERFACE, InterfaceError, interface
from hearts_p2p.rules import GameKind
from hearts_p2p.text import clean

from .overview import COMMANDS

__all__ = ["add_parser", "apply"]

_RULES = ("preset", "players", "moon", "target", "ties")


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    keys = "\n".join(f"  {k:<10} {s.help}" for k, s in KEYS.items())
    p = sub.add_parser(
        "config",
        help=COMMANDS["config"],
        description="Show the settings file, set or unset one of its keys, or check it. Every "
        "command takes from it what its flags do not say.",
        epilog=f"settings:\n{keys}\n\nexamples:\n  hearts config\n"
        "  hearts config set interface eth0\n  hearts config set name Ada\n"
        "  hearts config unset interface\n  hearts config check\n\n"
        "exit codes:\n  0    done\n  1    the file has a problem (check) or cannot be written\n"
        "  2    usage, or a value that is refused",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("action", nargs="?", choices=("show", "set", "unset", "check"), default="show")
    p.add_argument("key", nargs="?", help="the setting")
    p.add_argument("value", nargs="?", help="its new value (for set)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    path = config_path()
    try:
        if args.action in ("show", "check"):
            if args.key is not None:
                raise ConfigError(f"{args.action} takes no key")
            return _report(path, show=args.action == "show")
        if args.key is None or (args.action == "set") != (args.value is not None):
            usage = "set KEY VALUE" if args.action == "set" else "unset KEY"
            raise ConfigError(f"usage: hearts config {usage}")
        if args.action == "set":
            value = set_value(path, args.key, args.value)
            if args.key == "interface" and (missing := _missing(str(value))):
                sys.stderr.write(f"hearts config: warning: {missing}; saved all the same\n")
        else:
            unset(path, args.key)
    except ConfigFileError as e:
        sys.stderr.write(f"hearts config: {e}\n")
        return 1
    except ConfigError as e:
        sys.stderr.write(f"hearts config: {e}\n")
        return 2
    except OSError as e:
        sys.stderr.write(f"hearts config: cannot write {path}: {e.strerror or e}\n")
        return 1
    _report(path, show=True)  # done: what is left to mend is shown, and is check's to fail
    return 0


def _report(path: Path, *, show: bool) -> int:
    """The settings (for show), then every problem of the file, one a line: 1 if any."""
    settings, problems = check(path)
    if not show and (missing := _missing(str(settings.get("interface", "lo")))) is not None:
        problems.append(f"{path}: interface: {missing}")
    if show:
        _show(path, settings)
    for line in problems:
        sys.stderr.write(f"hearts config: {line}\n")
    if problems:
        return 1
    if not show:
        sys.stdout.write(f"{path}: no problems\n")
    return 0


def _missing(names: str) -> str | None:
    """Which interfaces this machine lacks now: worth a warning, not a refusal, since a
    laptop's Wi-Fi or a VPN may be down while its name is set."""
    for name in names.split(","):
        try:
            interface(name)
        except InterfaceError as e:
            return f"{e} on this machine now"
    return None


def _show(path: Path, settings: dict[str, str | int | bool]) -> None:
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
        if (missing := _missing(str(settings["interface"]))) is not None:
            return f"{config_path()}: interface: {missing}"
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
