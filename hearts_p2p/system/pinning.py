"""Keeping a discovery socket on one interface, and joining the multicast group there.

Each OS pins differently: Linux binds the socket to the device (``SO_BINDTODEVICE``), macOS to
the interface index (``IP_BOUND_IF``), and Windows has neither, but delivers to a socket bound
to an interface's own address only what arrives on that interface, multicast and broadcast
included (Linux and macOS deliver neither to such a socket, so they bind the wildcard and pin).
The multicast join names the interface by ``ip_mreqn`` (group, address, index: 12 bytes) on
Linux and by ``ip_mreq`` (group, address: 8 bytes) on macOS and Windows. Sharing the port among
several processes takes ``SO_REUSEPORT`` on Linux and macOS; on Windows ``SO_REUSEADDR`` does
it alone (and ``SO_REUSEPORT`` does not exist).
"""

from __future__ import annotations

import logging
import socket
import struct
from typing import Protocol

from .netifs import Interface

__all__ = ["LinuxPinning", "MacPinning", "Pinning", "Socket", "WindowsPinning"]

log = logging.getLogger(__name__)

# Python's socket module names these on its own OS only. Linux's vary by CPU, so the module's
# values win there; the fallbacks and macOS's are the OSes' own headers' (the same on every CPU).
SO_BINDTODEVICE: int = getattr(socket, "SO_BINDTODEVICE", 25)  # Linux <asm-generic/socket.h>
SO_REUSEPORT_LINUX: int = getattr(socket, "SO_REUSEPORT", 15)
IP_BOUND_IF = 25  # macOS <netinet/in.h>
SO_REUSEPORT_MAC = 0x0200  # macOS <sys/socket.h>


class Socket(Protocol):
    """The one call pinning makes on a socket (a trio or a standard one, or a test's)."""

    def setsockopt(self, level: int, option: int, value: int | bytes, /) -> None: ...


class Pinning(Protocol):
    """How one OS keeps a socket on one interface."""

    def share_port(self, sock: Socket) -> None:
        """Let several processes on this machine listen on the discovery port."""

    def pin(self, sock: Socket, iface: Interface) -> None:
        """Keep ``sock`` to ``iface``: nothing it sends or hears goes through another."""

    def listen_address(self, iface: Interface) -> str:
        """Where a listener binds to hear the group and broadcasts on ``iface``."""

    def membership(self, group: str, iface: Interface) -> bytes:
        """The ``IP_ADD_MEMBERSHIP`` value that joins ``group`` on ``iface``."""


def _mreq(group: str, iface: Interface) -> bytes:
    return struct.pack("=4s4s", socket.inet_aton(group), socket.inet_aton(iface.address))


class LinuxPinning:
    def share_port(self, sock: Socket) -> None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, SO_REUSEPORT_LINUX, 1)

    def pin(self, sock: Socket, iface: Interface) -> None:
        try:
            sock.setsockopt(socket.SOL_SOCKET, SO_BINDTODEVICE, iface.name.encode())
        except PermissionError:
            # Unprivileged on an old kernel: the bound source address and IP_MULTICAST_IF
            # still choose the interface for everything we send.
            log.debug("SO_BINDTODEVICE not permitted; relying on source address for %s", iface.name)

    def listen_address(self, iface: Interface) -> str:
        return "0.0.0.0"

    def membership(self, group: str, iface: Interface) -> bytes:
        return _mreq(group, iface) + struct.pack("=i", iface.index)


class MacPinning:
    def share_port(self, sock: Socket) -> None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, SO_REUSEPORT_MAC, 1)

    def pin(self, sock: Socket, iface: Interface) -> None:
        sock.setsockopt(socket.IPPROTO_IP, IP_BOUND_IF, iface.index)

    def listen_address(self, iface: Interface) -> str:
        return "0.0.0.0"

    def membership(self, group: str, iface: Interface) -> bytes:
        return _mreq(group, iface)


class WindowsPinning:
    def share_port(self, sock: Socket) -> None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)

    def pin(self, sock: Socket, iface: Interface) -> None:
        """Nothing to set: the bound address (``listen_address``, the sender's source) pins."""

    def listen_address(self, iface: Interface) -> str:
        return iface.address

    def membership(self, group: str, iface: Interface) -> bytes:
        return _mreq(group, iface)
