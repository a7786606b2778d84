"""Interfaces by name: Linux's for real, macOS's and Windows's from the adapters their OS call
(``getifaddrs``, ``GetAdaptersAddresses``) would list, as ``ifaddr`` hands them over."""

from __future__ import annotations

from pathlib import Path

import ifaddr
import pytest

from hearts_p2p.cli.lan import lan_interfaces, loopback_note
from hearts_p2p.config import ConfigError, load, set_value
from hearts_p2p.netif import Interface, InterfaceError, interface, interfaces_from
from hearts_p2p.system.netifs import WINDOWS_LOOPBACK, PosixInterfaces, WindowsInterfaces

from .conftest import Simulate

MAC = [
    ifaddr.Adapter("lo0", "lo0", [ifaddr.IP(("::1", 0, 0), 128, "lo0"),
                                  ifaddr.IP("127.0.0.1", 8, "lo0")], index=1),
    ifaddr.Adapter("en0", "en0", [ifaddr.IP(("fe80::1c", 0, 4), 64, "en0"),
                                  ifaddr.IP("192.168.1.23", 24, "en0"),
                                  ifaddr.IP("192.168.1.99", 24, "en0")], index=4),
    ifaddr.Adapter("utun0", "utun0", [ifaddr.IP(("fe80::2", 0, 9), 64, "utun0")], index=9),
]  # fmt: skip

WINDOWS = [
    ifaddr.Adapter("{4D36E972-E325-11CE-BFC1-08002BE10318}", "Intel(R) Wi-Fi 6 AX201 160MHz",
                   [ifaddr.IP("10.0.0.7", 22, "Wi-Fi")], index=12),
    ifaddr.Adapter("{1A2B3C4D-0000-0000-0000-000000000001}", "Software Loopback Interface 1",
                   [ifaddr.IP("127.0.0.1", 8, "Loopback Pseudo-Interface 1")], index=1),
    ifaddr.Adapter("{1A2B3C4D-0000-0000-0000-000000000002}", "Bluetooth Device", [], index=17),
]  # fmt: skip


def test_linux_finds_loopback_by_its_kernel_name() -> None:
    lo = PosixInterfaces("lo").lookup("lo")
    assert (lo.address, lo.broadcast) == ("127.0.0.1", "127.255.255.255") and lo.index > 0
    assert "lo" in PosixInterfaces("lo").names()


@pytest.mark.parametrize(
    ("name", "error"),
    [("", "'' is not an interface name"), ("x" * 16, "is not an interface name"),
     ("a/b", "is not an interface name"), ("nope0", "no interface named 'nope0'")],
)  # fmt: skip
def test_linux_names_a_bad_interface_in_one_line(name: str, error: str) -> None:
    with pytest.raises(InterfaceError, match=error):
        PosixInterfaces("lo").lookup(name)


def test_macos_names_interfaces_as_its_kernel_does() -> None:
    mac = PosixInterfaces("lo0", adapters=lambda: MAC)
    assert mac.loopback == "lo0"
    assert mac.lookup("lo0") == Interface("lo0", 1, "127.0.0.1", "127.255.255.255")
    # The first IPv4 address is the primary one; IPv6 ones before it are passed over.
    assert mac.lookup("en0") == Interface("en0", 4, "192.168.1.23", "192.168.1.255")
    assert mac.names() == ["lo0", "en0"]
    with pytest.raises(InterfaceError, match="interface 'utun0' has no IPv4 address"):
        mac.lookup("utun0")
    with pytest.raises(InterfaceError, match="no interface named 'lo'"):
        mac.lookup("lo")


def test_windows_takes_the_friendly_name_in_any_case_or_the_guid() -> None:
    win = WindowsInterfaces(adapters=lambda: WINDOWS)
    wifi = Interface("Wi-Fi", 12, "10.0.0.7", "10.0.3.255")
    assert win.lookup("Wi-Fi") == wifi
    assert win.lookup("wi-fi") == Interface("wi-fi", 12, "10.0.0.7", "10.0.3.255")
    assert win.lookup("{4D36E972-E325-11CE-BFC1-08002BE10318}").address == "10.0.0.7"
    assert win.names() == ["Wi-Fi", "Loopback Pseudo-Interface 1"]
    with pytest.raises(InterfaceError, match="no interface named 'eth0'"):
        win.lookup("eth0")
    with pytest.raises(InterfaceError, match="is not an interface name"):
        win.lookup("  ")


def test_windows_loopback_is_the_loopback_address() -> None:
    win = WindowsInterfaces(adapters=lambda: [])
    assert win.loopback == "loopback"
    assert win.lookup("Loopback") == WINDOWS_LOOPBACK
    assert WINDOWS_LOOPBACK.address == "127.0.0.1"


@pytest.mark.parametrize(
    ("os_name", "adapters", "loopback", "lan"),
    [("darwin", MAC, "lo0", "en0"), ("win32", WINDOWS, "loopback", "Wi-Fi")],
)
def test_a_bare_command_stays_on_loopback_and_names_the_lan_interface(
    simulate: Simulate,
    monkeypatch: pytest.MonkeyPatch,
    os_name: str,
    adapters: list[ifaddr.Adapter],
    loopback: str,
    lan: str,
) -> None:
    """What ``hearts list`` does with no flag, on a simulated Mac and Windows laptop."""
    monkeypatch.delenv("HEARTS_INTERFACE", raising=False)
    if os_name == "darwin":
        simulate("darwin", interfaces=PosixInterfaces("lo0", adapters=lambda: adapters))
    else:
        simulate("win32", interfaces=WindowsInterfaces(adapters=lambda: adapters))
    (chosen,) = interfaces_from(None)
    assert (chosen.name, chosen.address) == (loopback, "127.0.0.1")
    assert lan_interfaces() == [lan]
    note = loopback_note([chosen], lan_interfaces())
    assert note is not None and f"--interface {lan}" in note
    assert interface(lan).address != "127.0.0.1"
    monkeypatch.setenv("HEARTS_INTERFACE", lan)
    assert [i.name for i in interfaces_from(None)] == [lan]


def test_a_windows_adapters_long_name_is_a_setting_there_only(
    simulate: Simulate, tmp_path: Path
) -> None:
    """Windows names run past Linux's 15 characters (``Local Area Connection* 12``)."""
    settings = tmp_path / "config.toml"
    simulate("win32")
    set_value(settings, "interface", "Local Area Connection* 12, Wi-Fi")
    assert load(settings) == {"interface": "Local Area Connection* 12,Wi-Fi"}
    simulate("linux")
    with pytest.raises(ConfigError, match="is not an interface name"):
        set_value(settings, "interface", "Local Area Connection* 12")
    set_value(settings, "interface", "eth0")
    assert load(settings) == {"interface": "eth0"}
