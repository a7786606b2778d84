"""On loopback only, ``host`` and ``list`` say so and name the interfaces a LAN game could use;
``list`` that hears nothing exits 1 and, on a real interface, suggests ``--broadcast``.

Nothing here sends on a real interface: the real commands run on ``lo``, and the advice for a
LAN interface is checked on a made-up one, with no network involved."""

from __future__ import annotations

import socket
from pathlib import Path

from hearts_p2p.cli.lan import lan_interfaces, loopback_note, nothing_heard
from hearts_p2p.netif import Interface, interface

from .pty_term import Terminal, data_dir, free_port, hearts_env
from .test_command_errors import hearts

LAN = Interface("eth9", 9, "192.168.7.20", "192.168.7.255")  # never used to send


def test_the_advice_depends_on_the_interface() -> None:
    lo = interface("lo")
    assert nothing_heard([lo], broadcast=False) == ["no tables heard on lo"]
    assert nothing_heard([LAN], broadcast=False) == [
        "no tables heard on eth9",
        "if multicast is blocked on this network, try again with --broadcast",
    ]
    assert nothing_heard([LAN], broadcast=True) == ["no tables heard on eth9"]
    assert loopback_note([LAN], ["eth9"]) is None
    note = loopback_note([lo], ["eth9", "wlan3"])
    assert note is not None and "--interface eth9 (this machine has eth9, wlan3)" in note
    assert "hearts config set interface eth9" in note
    assert "no LAN interface found" in (loopback_note([lo], []) or "")
    assert "lo" not in lan_interfaces()


def test_list_that_hears_nothing_on_loopback_says_so_and_fails() -> None:
    port = str(free_port(socket.SOCK_DGRAM))
    run = hearts("list", "--wait", "0.3", "--port", port)
    assert run.returncode == 1
    assert run.stdout == "no tables heard on lo\n"
    assert "hearts list: on loopback only: other machines cannot see this" in run.stderr
    assert all(name in run.stderr for name in lan_interfaces())
    assert "--broadcast" not in run.stderr


def test_host_on_loopback_says_so_before_it_waits(tmp_path: Path) -> None:
    disc = str(free_port(socket.SOCK_DGRAM))
    term = Terminal(
        ["host", "--name", "Ada", "--table", "Friday", "--data-dir", data_dir(tmp_path, "ada"),
         "--discovery-port", disc],
        hearts_env(),
    )  # fmt: skip
    try:
        term.expect(r"hearts host: on loopback only: other machines cannot see this", 30)
        term.expect(r'Table "Friday" open on 127\.0\.0\.1:\d+', 30)
    finally:
        term.close()
