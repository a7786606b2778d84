"""Network interfaces by name: the address discovery sends from and the broadcast address.

Discovery is confined to interfaces the user names (``lo``, ``eth0``, ``en0``, ``Wi-Fi``), never
"all of them": on a shared machine our announcements must not reach a real network. How each OS
names and lists its interfaces is ``hearts_p2p.system.netifs``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence

from .system import current
from .system.netifs import Interface, InterfaceError

__all__ = [
    "ENV_INTERFACE",
    "Interface",
    "InterfaceError",
    "interface",
    "interface_names",
    "interfaces_from",
    "loopback_name",
]

ENV_INTERFACE = "HEARTS_INTERFACE"


def interface(name: str) -> Interface:
    """Look up ``name``'s primary IPv4 address; the broadcast address follows from its mask."""
    return current().interfaces.lookup(name)


def interface_names() -> list[str]:
    """This machine's interfaces that have an IPv4 address, by the names ``interface`` takes."""
    return current().interfaces.names()


def loopback_name() -> str:
    """The loopback interface's name here: ``lo`` on Linux, ``lo0`` on macOS, ``loopback`` on
    Windows (its loopback address, which no adapter name there stands for)."""
    return current().interfaces.loopback


def interfaces_from(names: Iterable[str] | None, default: str | None = None) -> Sequence[Interface]:
    """Interfaces named by a flag, else by ``$HEARTS_INTERFACE`` (comma-separated), else default.

    The fallback is loopback so that a bare command never talks to a real network.
    """
    chosen = [n for n in names or () if n]
    if not chosen:
        chosen = [n.strip() for n in os.environ.get(ENV_INTERFACE, "").split(",") if n.strip()]
    if not chosen:
        chosen = [default or loopback_name()]
    return [interface(n) for n in dict.fromkeys(chosen)]
