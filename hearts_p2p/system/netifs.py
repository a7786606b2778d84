"""Network interfaces by name, as each OS names them, and the loopback one a bare command uses.

The machine's interfaces and their IPv4 addresses come from ``ifaddr``, which asks
``getifaddrs`` on Linux and macOS and ``GetAdaptersAddresses`` on Windows: one tested library in
place of an ioctl per OS (Linux's ``SIOCGIF*`` numbers are wrong on macOS; Windows has none).
Linux and macOS name interfaces as the kernel does (``eth0``, ``en0``; loopback ``lo``,
``lo0``). Windows names an adapter by a GUID and shows a friendly name (``Wi-Fi``,
``Ethernet``) in its settings: either is accepted, and ``loopback`` names the loopback address,
which has no adapter a person would name.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

import ifaddr

__all__ = [
    "WINDOWS_LOOPBACK",
    "Interface",
    "InterfaceError",
    "Interfaces",
    "PosixInterfaces",
    "WindowsInterfaces",
]

Adapters = Callable[[], Iterable[ifaddr.Adapter]]

_IFNAMSIZ = 16  # Linux and macOS: a name and its terminating NUL
_MAX_WINDOWS_NAME = 256  # IF_MAX_STRING_SIZE


class InterfaceError(ValueError):
    """An interface name that does not exist or has no IPv4 address."""


@dataclass(frozen=True)
class Interface:
    """One IPv4 interface: where announcements leave from and where broadcasts go."""

    name: str
    index: int
    address: str
    broadcast: str


WINDOWS_LOOPBACK = Interface("loopback", 1, "127.0.0.1", "127.255.255.255")


class Interfaces(Protocol):
    """The interfaces of this machine, looked up by the names its people use."""

    @property
    def loopback(self) -> str:
        """The name of the interface a bare command stays on: it never reaches a network."""

    def is_name(self, name: str) -> bool:
        """Whether ``name`` could name an interface here (it need not exist)."""

    def lookup(self, name: str) -> Interface: ...

    def names(self) -> list[str]:
        """Every interface with an IPv4 address, by the name ``lookup`` takes."""


def _every_adapter() -> Iterable[ifaddr.Adapter]:
    return ifaddr.get_adapters(include_unconfigured=True)


def _ipv4(name: str, adapter: ifaddr.Adapter) -> Interface:
    """The adapter's first IPv4 address (the primary one); broadcast follows from its prefix."""
    for ip in adapter.ips:
        if isinstance(ip.ip, str):
            net = ipaddress.IPv4Network(f"{ip.ip}/{ip.network_prefix}", strict=False)
            return Interface(name, adapter.index or 0, ip.ip, str(net.broadcast_address))
    raise InterfaceError(f"interface {name!r} has no IPv4 address")


class PosixInterfaces:
    """Linux and macOS: the kernel's names; ``loopback`` is ``lo`` on Linux, ``lo0`` on macOS."""

    def __init__(self, loopback: str, adapters: Adapters = _every_adapter) -> None:
        self._loopback = loopback
        self._adapters = adapters

    @property
    def loopback(self) -> str:
        return self._loopback

    def is_name(self, name: str) -> bool:
        return 0 < len(name) < _IFNAMSIZ and "/" not in name and name.isprintable()

    def lookup(self, name: str) -> Interface:
        if not self.is_name(name):
            raise InterfaceError(f"{name!r} is not an interface name")
        for adapter in self._adapters():
            if adapter.name == name and adapter.index is not None:
                return _ipv4(name, adapter)
        raise InterfaceError(f"no interface named {name!r}")

    def names(self) -> list[str]:
        return [a.name for a in self._adapters() if any(isinstance(ip.ip, str) for ip in a.ips)]


class WindowsInterfaces:
    """Windows: an adapter's friendly name (any case) or its GUID; ``loopback`` is 127.0.0.1."""

    def __init__(self, adapters: Adapters = _every_adapter) -> None:
        self._adapters = adapters

    @property
    def loopback(self) -> str:
        return WINDOWS_LOOPBACK.name

    def is_name(self, name: str) -> bool:
        return bool(name.strip()) and len(name) <= _MAX_WINDOWS_NAME and name.isprintable()

    def lookup(self, name: str) -> Interface:
        if not self.is_name(name):
            raise InterfaceError(f"{name!r} is not an interface name")
        if name.casefold() == WINDOWS_LOOPBACK.name:
            return WINDOWS_LOOPBACK
        for adapter in self._adapters():
            if name.casefold() in (adapter.name.casefold(), _friendly(adapter).casefold()):
                return _ipv4(name, adapter)
        raise InterfaceError(f"no interface named {name!r} (Get-NetAdapter lists the names)")

    def names(self) -> list[str]:
        return [
            _friendly(a) or a.name
            for a in self._adapters()
            if any(isinstance(ip.ip, str) for ip in a.ips)
        ]


def _friendly(adapter: ifaddr.Adapter) -> str:
    """The name Windows shows for the adapter; ifaddr keeps it on each address it lists."""
    return adapter.ips[0].nice_name if adapter.ips else ""
