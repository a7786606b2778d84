"""Network interfaces by name: the address discovery sends from and the broadcast address.

Discovery is confined to interfaces the user names (``lo``, ``veth1``), never "all of them":
on a shared machine our announcements must not reach a real network. Lookups use the Linux
``SIOCGIF*`` ioctls, so nothing beyond the standard library is needed.
"""

from __future__ import annotations

import fcntl
import ipaddress
import os
import socket
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "ENV_INTERFACE",
    "Interface",
    "InterfaceError",
    "interface",
    "interfaces_from",
]

ENV_INTERFACE = "HEARTS_INTERFACE"

_SIOCGIFADDR = 0x8915
_SIOCGIFNETMASK = 0x891B
_IFNAMSIZ = 16


class InterfaceError(ValueError):
    """An interface name that does not exist or has no IPv4 address."""


@dataclass(frozen=True)
class Interface:
    """One IPv4 interface: where announcements leave from and where broadcasts go."""

    name: str
    index: int
    address: str
    broadcast: str


def _ioctl_ipv4(sock: socket.socket, request: int, name: str) -> str:
    packed = struct.pack("256s", name.encode()[: _IFNAMSIZ - 1])
    result = fcntl.ioctl(sock.fileno(), request, packed)
    return socket.inet_ntoa(result[20:24])


def interface(name: str) -> Interface:
    """Look up ``name``'s primary IPv4 address; the broadcast address follows from its mask."""
    if not name or len(name) >= _IFNAMSIZ or "/" in name:
        raise InterfaceError(f"{name!r} is not an interface name")
    try:
        index = socket.if_nametoindex(name)
    except OSError:
        raise InterfaceError(f"no interface named {name!r}") from None
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        try:
            address = _ioctl_ipv4(sock, _SIOCGIFADDR, name)
            netmask = _ioctl_ipv4(sock, _SIOCGIFNETMASK, name)
        except OSError:
            raise InterfaceError(f"interface {name!r} has no IPv4 address") from None
    network = ipaddress.IPv4Network(f"{address}/{netmask}", strict=False)
    return Interface(name, index, address, str(network.broadcast_address))


def interfaces_from(names: Iterable[str] | None, default: str = "lo") -> Sequence[Interface]:
    """Interfaces named by a flag, else by ``$HEARTS_INTERFACE`` (comma-separated), else default.

    The fallback is loopback so that a bare command never talks to a real network.
    """
    chosen = [n for n in names or () if n]
    if not chosen:
        chosen = [n.strip() for n in os.environ.get(ENV_INTERFACE, "").split(",") if n.strip()]
    if not chosen:
        chosen = [default]
    return [interface(n) for n in dict.fromkeys(chosen)]
