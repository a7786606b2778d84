"""UDP sockets for discovery, each pinned to one interface.

Every socket is pinned to its interface as its OS allows (``hearts_p2p.system.pinning``:
``SO_BINDTODEVICE`` on Linux, ``IP_BOUND_IF`` on macOS, the interface's address on Windows), and
sends with TTL 1 from the interface's own address (multicast also picks the interface with
``IP_MULTICAST_IF``), so nothing we send can leave through another interface or another hop.
"""

from __future__ import annotations

import errno
import socket
from dataclasses import dataclass

import trio

from hearts_p2p.netif import Interface
from hearts_p2p.system import current
from hearts_p2p.system.pinning import Pinning

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

WSAEMSGSIZE = 10040  # <winerror.h>; errno names it on Windows only

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


async def open_sender(
    iface: Interface, config: DiscoveryConfig, pinning: Pinning | None = None
) -> trio.socket.SocketType:
    """A socket that sends announcements, probes and replies out of ``iface`` only."""
    pinning = pinning or current().pinning
    sock = trio.socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        pinning.pin(sock, iface)
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


async def open_listener(
    iface: Interface, config: DiscoveryConfig, pinning: Pinning | None = None
) -> trio.socket.SocketType:
    """A socket on the discovery port that hears the group (unless broadcast) on ``iface``.

    Several processes on one machine share the port; multicast and broadcast datagrams reach
    every one of them.
    """
    pinning = pinning or current().pinning
    sock = trio.socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        pinning.share_port(sock)
        pinning.pin(sock, iface)
        await sock.bind((pinning.listen_address(iface), config.port))
        if not config.broadcast:
            membership = pinning.membership(config.group, iface)
            sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, membership)
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
            # ICMP errors caused by earlier unicast replies surface here on Linux, and on
            # Windows as a reset (WSAECONNRESET); they say nothing about this socket's health.
            # Windows also refuses a datagram larger than the buffer (WSAEMSGSIZE) where Linux
            # and macOS hand its start over to be dropped: it is dropped all the same.
            if isinstance(e, ConnectionResetError | ConnectionRefusedError) or e.errno in (
                errno.EHOSTUNREACH,
                errno.ENETUNREACH,
                WSAEMSGSIZE,
            ):
                continue
            raise
        return data, source[0], source[1]
