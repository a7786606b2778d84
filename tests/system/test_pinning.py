"""Discovery's sockets on each OS: the options set and the address bound, seen by a fake socket
in place of the OS's, while ``open_listener``, ``open_sender`` and ``receive_datagram`` run as
they are. (Linux's run for real in tests/discovery, over loopback.)"""

from __future__ import annotations

import socket
import struct
from typing import Any

import pytest
import trio

from hearts_p2p.discovery import DiscoveryConfig
from hearts_p2p.discovery.sockets import open_listener, open_sender, receive_datagram
from hearts_p2p.netif import Interface
from hearts_p2p.system.pinning import (
    IP_BOUND_IF,
    SO_BINDTODEVICE,
    SO_REUSEPORT_LINUX,
    SO_REUSEPORT_MAC,
    LinuxPinning,
    MacPinning,
    Pinning,
    WindowsPinning,
)

EN0 = Interface("en0", 4, "192.168.1.23", "192.168.1.255")
CONFIG = DiscoveryConfig(port=47999)
GROUP = socket.inet_aton(CONFIG.group)


class FakeSocket:
    """What discovery asks of a socket, written down instead of done."""

    def __init__(self, refuse: int | None = None, arrivals: list[Any] | None = None) -> None:
        self.options: dict[tuple[int, int], int | bytes] = {}
        self.bound: tuple[str, int] | None = None
        self.closed = False
        self.refuse = refuse
        self.arrivals = arrivals or []

    def setsockopt(self, level: int, option: int, value: int | bytes) -> None:
        if option == self.refuse:
            raise PermissionError("not permitted")
        self.options[(level, option)] = value

    async def bind(self, address: tuple[str, int]) -> None:
        self.bound = address

    async def recvfrom(self, size: int) -> tuple[bytes, tuple[str, int]]:
        arrival = self.arrivals.pop(0)
        if isinstance(arrival, BaseException):
            raise arrival
        return arrival  # type: ignore[no-any-return]

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeSocket:
    sock = FakeSocket()
    monkeypatch.setattr(trio.socket, "socket", lambda *args: sock)
    return sock


async def listen(pinning: Pinning, fake: FakeSocket) -> dict[tuple[int, int], int | bytes]:
    await open_listener(EN0, CONFIG, pinning)
    return fake.options


async def test_linux_binds_to_the_device_and_joins_by_index(fake: FakeSocket) -> None:
    options = await listen(LinuxPinning(), fake)
    assert options[(socket.SOL_SOCKET, SO_BINDTODEVICE)] == b"en0"
    assert options[(socket.SOL_SOCKET, SO_REUSEPORT_LINUX)] == 1
    assert fake.bound == ("0.0.0.0", CONFIG.port)
    mreqn = options[(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP)]
    assert mreqn == GROUP + socket.inet_aton(EN0.address) + struct.pack("=i", 4)  # 12 bytes


async def test_linux_without_permission_to_bind_the_device_still_listens(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sock = FakeSocket(refuse=SO_BINDTODEVICE)
    monkeypatch.setattr(trio.socket, "socket", lambda *args: sock)
    await open_listener(EN0, CONFIG, LinuxPinning())
    assert sock.bound == ("0.0.0.0", CONFIG.port) and not sock.closed


async def test_macos_binds_to_the_interface_index_and_joins_with_ip_mreq(
    fake: FakeSocket,
) -> None:
    options = await listen(MacPinning(), fake)
    assert options[(socket.IPPROTO_IP, IP_BOUND_IF)] == 4
    assert options[(socket.SOL_SOCKET, SO_REUSEPORT_MAC)] == 1
    assert (socket.SOL_SOCKET, SO_BINDTODEVICE) not in options
    assert fake.bound == ("0.0.0.0", CONFIG.port)
    assert options[(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP)] == GROUP + socket.inet_aton(
        EN0.address
    )  # 8 bytes


async def test_windows_listens_on_the_interface_address_and_shares_by_reuseaddr(
    fake: FakeSocket,
) -> None:
    options = await listen(WindowsPinning(), fake)
    assert fake.bound == (EN0.address, CONFIG.port)
    assert set(options) == {
        (socket.SOL_SOCKET, socket.SO_REUSEADDR),
        (socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP),
    }
    assert options[(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP)] == GROUP + socket.inet_aton(
        EN0.address
    )


@pytest.mark.parametrize("pinning", [LinuxPinning(), MacPinning(), WindowsPinning()])
async def test_a_broadcast_listener_joins_no_group(fake: FakeSocket, pinning: Pinning) -> None:
    await open_listener(EN0, DiscoveryConfig(port=CONFIG.port, broadcast=True), pinning)
    assert (socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP) not in fake.options


@pytest.mark.parametrize("pinning", [LinuxPinning(), MacPinning(), WindowsPinning()])
async def test_every_sender_leaves_from_the_interface_address_one_hop(
    fake: FakeSocket, pinning: Pinning
) -> None:
    await open_sender(EN0, CONFIG, pinning)
    assert fake.bound == (EN0.address, 0)
    assert fake.options[(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL)] == 1
    assert fake.options[(socket.IPPROTO_IP, socket.IP_MULTICAST_IF)] == socket.inet_aton(
        EN0.address
    )


async def test_a_reset_from_an_earlier_reply_is_not_the_sockets_end() -> None:
    """Windows reports an ICMP port unreachable as a reset on the next receive."""
    sock = FakeSocket(arrivals=[ConnectionResetError(10054, "reset"), (b"hi", ("10.0.0.2", 5))])
    assert await receive_datagram(sock) == (b"hi", "10.0.0.2", 5)  # type: ignore[arg-type]


async def test_an_oversized_datagram_windows_refuses_is_dropped() -> None:
    """Windows fails the receive (WSAEMSGSIZE) where Linux truncates; the listener goes on."""
    sock = FakeSocket(arrivals=[OSError(10040, "message too long"), (b"ok", ("10.0.0.3", 6))])
    assert await receive_datagram(sock) == (b"ok", "10.0.0.3", 6)  # type: ignore[arg-type]
