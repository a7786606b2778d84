"""TCP keepalive and the give-up time for unacknowledged data, in each OS's own options.

A peer whose cable is pulled sends no reset; only these let the kernel end its connection in
seconds rather than hours. The three OSes have the same four knobs under different numbers and
units: Linux ``TCP_KEEPIDLE``, ``TCP_KEEPINTVL``, ``TCP_KEEPCNT`` and ``TCP_USER_TIMEOUT`` (ms);
macOS names the idle time ``TCP_KEEPALIVE`` and gives up after ``TCP_RXT_CONNDROPTIME`` (s);
Windows gives up after ``TCP_MAXRT`` (s). Python names only its own OS's, and only some.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass

__all__ = ["LINUX", "MAC", "WINDOWS", "KeepAlive"]

Option = tuple[int, int, int]  # level, option, value


@dataclass(frozen=True)
class KeepAlive:
    """One OS's option numbers; ``give_up_in_ms`` says the give-up time's unit."""

    idle: int
    interval: int
    count: int
    give_up: int
    give_up_in_ms: bool

    def options(self, idle: int, interval: int, count: int, give_up_ms: int) -> list[Option]:
        """What to set: seconds idle before the first probe, seconds between probes, probes
        unanswered before the end, and how long sent data may stay unacknowledged."""
        tcp = socket.IPPROTO_TCP
        give_up = give_up_ms if self.give_up_in_ms else max(1, give_up_ms // 1000)
        return [
            (socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1),
            (tcp, self.idle, idle),
            (tcp, self.interval, interval),
            (tcp, self.count, count),
            (tcp, self.give_up, give_up),
        ]


# Linux's numbers differ on a few CPUs, so its socket module's win where it has them.
LINUX = KeepAlive(
    getattr(socket, "TCP_KEEPIDLE", 4),
    getattr(socket, "TCP_KEEPINTVL", 5),
    getattr(socket, "TCP_KEEPCNT", 6),
    getattr(socket, "TCP_USER_TIMEOUT", 18),
    give_up_in_ms=True,
)
MAC = KeepAlive(0x10, 0x101, 0x102, 0x80, give_up_in_ms=False)  # <netinet/tcp.h>
WINDOWS = KeepAlive(3, 17, 16, 5, give_up_in_ms=False)  # <ws2ipdef.h>: TCP_KEEPALIVE, _MAXRT
