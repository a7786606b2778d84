"""UDP sockets for discovery, each pinned to one interface.

Every socket is bound to its interface with ``SO_BINDTODEVICE`` where the kernel allows it, and
sends with TTL 1 from the interface's own address (multicast also picks the interface with
``IP_MULTICAST_IF``), so nothing we send can leave through another interface or another hop.
"""

from __future__ import annotations

import errno
import logging
import socket
import struct
from dataclasses import dataclass

import trio

from hearts_p2p.netif import Interface

from .packet import MAX_PACKET

__all__ = [
    "DEFAULT_CONFIG",
    "DEFAULT_GROUP",
    "DEFAULT_PORT",
    "DiscoveryConfig",
    "open_listener",
    "open_sender",
    "receive_datagram",
]

log = logging.getLogger(__name__)

DEFAULT_GROUP = "239.255.72.83"
DEFAULT_PORT = 47283


@dataclass(frozen=True)
class DiscoveryConfig:
    """Where discovery talks: a multicast group and UDP port, or broadcast instead.

    In broadcast mode nothing joins the group: announcements and probes go to each interface's
    broadcast address, for networks whose switches drop multicast.
    """

    group: str = DEFAULT_GROUP
    port: int = DEFAULT_PORT
    broadcast: bool = False

    def __post_init__(self) -> None:
        if not 0 < self.port < 65536:
            raise ValueError(f"discovery port {self.port} out of range")
        first = int(self.group.split(".")[0]) if self.group.count(".") == 3 else 0
        if not 224 <= first <= 239:
            raise ValueError(f"{self.group} is not an IPv4 multicast group")

    def destination(self, iface: Interface) -> tuple[str, int]:
        return (iface.broadcast if self.broadcast else self.group, self.port)


DEFAULT_CONFIG = DiscoveryConfig()


def _pin(sock: trio.socket.SocketType, iface: Interface) -> None:
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, iface.name.encode())
    except PermissionError:
        # Unprivileged on an old kernel: the bound source address and IP_MULTICAST_IF
        # still choose the interface for everything we send.
        log.debug("SO_BINDTODEVICE not permitted; relying on source address for %s", iface.name)


async def open_sender(iface: Interface, config: DiscoveryConfig) -> trio.socket.SocketType:
    """A socket that sends announcements, probes and replies out of ``iface`` only."""
    sock = trio.socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        _pin(sock, iface)
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, 1)
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 1)
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 1)
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(iface.address))
        if config.broadcast:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
        await sock.bind((iface.address, 0))
    except BaseException:
        sock.close()
        raise
    return sock


async def open_listener(iface: Interface, config: DiscoveryConfig) -> trio.socket.SocketType:
    """A socket on the discovery port that hears the group (unless broadcast) on ``iface``.

    Several processes on one machine share the port (``SO_REUSEPORT``); multicast and
    broadcast datagrams reach every one of them.
    """
    sock = trio.socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        _pin(sock, iface)
        await sock.bind(("0.0.0.0", config.port))
        if not config.broadcast:
            mreq = struct.pack(
                "=4s4si",
                socket.inet_aton(config.group),
                socket.inet_aton(iface.address),
                iface.index,
            )
            sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, mreq)
    except BaseException:
        sock.close()
        raise
    return sock


async def receive_datagram(sock: trio.socket.SocketType) -> tuple[bytes, str, int]:
    """One datagram as (data, source address, source port).

    The buffer is larger than any valid packet, so an oversized one is seen and dropped rather
    than silently truncated into something that might parse.
    """
    while True:
        try:
            data, source = await sock.recvfrom(MAX_PACKET * 2)
        except OSError as e:
            # ICMP errors caused by earlier unicast replies surface here on Linux; they say
            # nothing about this socket's health.
            if e.errno in (errno.ECONNREFUSED, errno.EHOSTUNREACH, errno.ENETUNREACH):
                continue
            raise
        return data, source[0], source[1]
