"""Keepalive in each OS's own numbers and units (Linux's are checked on live sockets by
tests/transport/test_transport_handshake.py)."""

from __future__ import annotations

import socket

from hearts_p2p.system.keepalive import LINUX, MAC, WINDOWS
from hearts_p2p.transport.connection import KEEPALIVE

TCP = socket.IPPROTO_TCP
ASKED = (KEEPALIVE["idle"], KEEPALIVE["interval"], KEEPALIVE["count"], KEEPALIVE["user_timeout_ms"])
ON = (socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)


def test_linux_gives_up_in_milliseconds() -> None:
    assert LINUX.options(*ASKED)[1:] == [
        (TCP, socket.TCP_KEEPIDLE, 5),
        (TCP, socket.TCP_KEEPINTVL, 1),
        (TCP, socket.TCP_KEEPCNT, 3),
        (TCP, socket.TCP_USER_TIMEOUT, 10_000),
    ]


def test_macos_names_the_idle_time_keepalive_and_gives_up_in_seconds() -> None:
    assert MAC.options(*ASKED) == [
        ON, (TCP, 0x10, 5), (TCP, 0x101, 1), (TCP, 0x102, 3), (TCP, 0x80, 10)
    ]  # fmt: skip


def test_windows_gives_up_by_maxrt_in_seconds() -> None:
    assert WINDOWS.options(*ASKED) == [ON, (TCP, 3, 5), (TCP, 17, 1), (TCP, 16, 3), (TCP, 5, 10)]
    assert WINDOWS.options(5, 1, 3, 400)[-1] == (TCP, 5, 1)  # never 0, which means "default"
