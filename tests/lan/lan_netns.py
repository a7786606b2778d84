"""A private LAN for tests: peers in network namespaces, joined by a bridge in a namespace too.

Nothing is created in the machine's own network namespace, and nothing is linked to a physical
interface, so no test packet can reach a real network. Every name carries a random tag, so
runs in parallel never collide, and :func:`private_lan` removes everything it made even when
the test fails.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import pytest

PEER_INTERFACE = "eth0"


def require_netns(*tools: str) -> None:
    """Skip unless we are root with iproute2 (and the named tools)."""
    if os.geteuid() != 0:
        pytest.skip("network namespace tests need root")
    for tool in ("ip", *tools):
        if shutil.which(tool) is None:
            pytest.skip(f"network namespace tests need `{tool}` (iproute2)")


def ip(*args: str) -> None:
    result = subprocess.run(["ip", *args], capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)}: {result.stderr.strip()}")


@dataclass(frozen=True)
class Lan:
    """Peer ``i`` lives in ``namespaces[i]`` with ``eth0`` at ``addresses[i]``."""

    namespaces: Sequence[str]
    addresses: Sequence[str]
    switch: str = ""  # the bridge's namespace: peer i's cable is ``port{i}`` there

    def unplug(self, i: int) -> None:
        """Pull peer ``i``'s cable out of the switch, for good: its link is dead, not closed."""
        ip("-n", self.switch, "link", "set", f"port{i}", "down")

    def command(self, i: int, *args: str) -> list[str]:
        """Run this package's Python (``-m module ...``) inside peer ``i``'s namespace."""
        return ["ip", "netns", "exec", self.namespaces[i], sys.executable, *args]


@contextlib.contextmanager
def private_lan(peers: int, loss_percent: float = 0) -> Iterator[Lan]:
    """``peers`` namespaces on one bridge, link-local addresses, optional netem loss."""
    tag = secrets.token_hex(3)
    switch = f"hp{tag}sw"
    namespaces = [f"hp{tag}p{i}" for i in range(peers)]
    addresses = [f"169.254.{tag_byte(tag)}.{i + 1}" for i in range(peers)]
    made: list[str] = []
    try:
        try:
            ip("netns", "add", switch)
        except RuntimeError as e:
            pytest.skip(f"cannot create network namespaces here: {e}")
        made.append(switch)
        ip("-n", switch, "link", "add", "br0", "type", "bridge")
        ip("-n", switch, "link", "set", "br0", "up")
        for i, (ns, address) in enumerate(zip(namespaces, addresses, strict=True)):
            ip("netns", "add", ns)
            made.append(ns)
            ip("-n", ns, "link", "set", "lo", "up")
            ip("-n", switch, "link", "add", f"port{i}", "type", "veth", "peer", "name",
               PEER_INTERFACE, "netns", ns)  # fmt: skip
            ip("-n", switch, "link", "set", f"port{i}", "master", "br0")
            ip("-n", switch, "link", "set", f"port{i}", "up")
            ip("-n", ns, "addr", "add", f"{address}/16", "dev", PEER_INTERFACE)
            ip("-n", ns, "link", "set", PEER_INTERFACE, "up")
            if loss_percent:
                add_loss(ns, PEER_INTERFACE, loss_percent)
        yield Lan(namespaces, addresses, switch)
    finally:
        for ns in reversed(made):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, check=False)


def tc(ns: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["ip", "netns", "exec", ns, "tc", *args], capture_output=True, text=True, check=False
    )


def add_loss(ns: str, dev: str, percent: float) -> None:
    """Drop ``percent`` % of the packets leaving ``dev``: netem, or the same by other means.

    Kernels built without ``sch_netem`` get an HTB root whose classic-BPF filter sends a random
    ``percent`` % of packets (``ld rand``) to a class whose queue holds nothing (``pfifo limit
    0``), which drops them: the same independent random loss that ``netem loss`` gives.
    """
    if tc(ns, "qdisc", "add", "dev", dev, "root", "netem", "loss", f"{percent}%").returncode == 0:
        return
    threshold = round((1 - percent / 100) * 2**32)
    program = f"4,32 0 0 {2**32 - 0x1000 + 56},53 0 1 {threshold},6 0 0 {2**32 - 1},6 0 0 0"
    steps = [
        ("qdisc", "add", "dev", dev, "root", "handle", "1:", "htb", "default", "20"),
        ("class", "add", "dev", dev, "parent", "1:", "classid", "1:10", "htb", "rate", "10gbit"),
        ("class", "add", "dev", dev, "parent", "1:", "classid", "1:20", "htb", "rate", "10gbit"),
        ("qdisc", "add", "dev", dev, "parent", "1:10", "handle", "10:", "pfifo", "limit", "0"),
        ("filter", "add", "dev", dev, "parent", "1:", "bpf", "bytecode", program,
         "classid", "1:10"),
    ]  # fmt: skip
    for step in steps:
        result = tc(ns, *step)
        if result.returncode != 0:
            pytest.skip(f"cannot simulate packet loss here: tc {' '.join(step)}: {result.stderr}")


def tag_byte(tag: str) -> int:
    """A third address octet from the tag, avoiding 0 and 255 (reserved in 169.254/16)."""
    return 1 + int(tag[:2], 16) % 254
