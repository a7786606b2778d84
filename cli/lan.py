"""What a command says about the network it runs on: loopback only, and which of the machine's
interfaces a LAN game could use instead; why ``hearts list`` may hear nothing.

Looking the interfaces up only reads the machine's own configuration: nothing is sent.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

from hearts_p2p.netif import Interface, InterfaceError, interface, interface_names

__all__ = ["lan_interfaces", "loopback_note", "nothing_heard"]


def _loopback(i: Interface) -> bool:
    return ipaddress.ip_address(i.address).is_loopback


def lan_interfaces() -> list[str]:
    """The machine's interfaces with an IPv4 address off loopback: those a LAN game can use."""
    found = []
    for name in interface_names():
        try:
            if not _loopback(interface(name)):
                found.append(name)
        except InterfaceError:
            continue
    return found


def loopback_note(ifaces: Sequence[Interface], others: Sequence[str]) -> str | None:
    """One line when every interface in use is loopback, naming the ``others`` there are."""
    if not all(_loopback(i) for i in ifaces):
        return None
    if not others:
        return "on loopback only: other machines cannot see this (no LAN interface found)"
    return (
        "on loopback only: other machines cannot see this; on a LAN add "
        f"--interface {others[0]} (this machine has {', '.join(others)}), "
        f"or once for good: hearts config set interface {others[0]}"
    )


def nothing_heard(ifaces: Sequence[Interface], broadcast: bool) -> list[str]:
    """What ``hearts list`` says when it hears no table, with what to try next."""
    names = ", ".join(i.name for i in ifaces)
    lines = [f"no tables heard on {names}"]
    if not all(_loopback(i) for i in ifaces) and not broadcast:
        lines.append("if multicast is blocked on this network, try again with --broadcast")
    return lines
