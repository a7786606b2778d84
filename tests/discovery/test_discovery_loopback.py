"""Announcer and browser over real sockets on the loopback interface only."""

from __future__ import annotations

import dataclasses
import functools
import itertools
import os
import socket
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from hearts_p2p.bots import make_bot
from hearts_p2p.bots.botseat import BotSeat
from hearts_p2p.discovery import (
    Announcer,
    DiscoveryConfig,
    TableState,
    announce,
    list_tables,
    open_browser,
)
from hearts_p2p.discovery.packet import Announcement, encode_announcement
from hearts_p2p.discovery.sockets import open_listener, receive_datagram
from hearts_p2p.identity import Identity
from hearts_p2p.netif import Interface, interface
from hearts_p2p.node.session import PeerOptions, SessionError, join_game

LO = [interface("lo")]
HOST = Identity.from_seed(b"h" * 32)


def announcer(
    config: DiscoveryConfig,
    ifaces: Sequence[Interface] = LO,
    interval: float = 2.0,
    table_id: bytes = b"T" * 16,
) -> Any:
    return functools.partial(
        announce,
        HOST,
        ifaces,
        table_id=table_id,
        host_name="alice",
        table_name="friday",
        rules={"points": 100},
        seats_total=4,
        seats_taken=1,
        addresses=["127.0.0.1"],
        port=40000,
        config=config,
        interval=interval,
    )


def send_raw(config: DiscoveryConfig, data: bytes) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, b"lo")
        s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton("127.0.0.1"))
        s.sendto(data, (config.group, config.port))


async def test_probe_finds_a_table_at_once(config: DiscoveryConfig) -> None:
    # The next announcement is 30 s away, past the 5 s bound: only the probe's answer finds it.
    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            await nursery.start(announcer(config, interval=30.0))
            async with open_browser(LO, config=config) as browser:
                info = await browser.wait_for(lambda t: True)
            nursery.cancel_scope.cancel()
    ad = info.announcement
    assert (ad.table_name, ad.host_name, ad.host_key) == ("friday", "alice", HOST.public_key)
    assert (ad.seats_taken, ad.seats_total, ad.port) == (1, 4, 40000)
    assert info.address == "127.0.0.1" and info.interface == "lo"
    assert ad.rules == {"points": 100}


async def test_updates_and_goodbye(config: DiscoveryConfig) -> None:
    with trio.fail_after(5):
        async with open_browser(LO, config=config, probe=False) as browser:
            async with trio.open_nursery() as nursery:
                host: Announcer = await nursery.start(announcer(config, interval=30.0))
                await browser.wait_for(lambda t: True)
                host.update(seats_taken=3, state=TableState.PLAYING)
                info = await browser.wait_for(lambda t: t.announcement.seats_taken == 3)
                assert info.announcement.state is TableState.PLAYING
                nursery.cancel_scope.cancel()
            while browser.tables():
                await browser.wait_changed()
    assert host.sent == 2


async def test_broadcast_mode(config: DiscoveryConfig) -> None:
    config = dataclasses.replace(config, broadcast=True)
    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            await nursery.start(announcer(config, interval=30.0))
            tables = await list_tables(LO, wait=0.3, config=config)
            nursery.cancel_scope.cancel()
    assert [t.announcement.table_name for t in tables] == ["friday"]


async def test_garbage_is_counted_and_ignored(config: DiscoveryConfig) -> None:
    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            host: Announcer = await nursery.start(announcer(config, interval=30.0))
            async with open_browser(LO, config=config, probe=False) as browser:
                for junk in (b"", b"HRTS", b"\xff" * 2000, b"HRTS\x01\x01" + os.urandom(90)):
                    send_raw(config, junk)
                await browser.probe()
                await browser.wait_for(lambda t: True)
                assert sum(browser.drops.values()) == 4
            nursery.cancel_scope.cancel()
    assert sum(host.drops.values()) == 4
    assert host.answered == 1


async def test_announces_every_interval_with_jitter(
    config: DiscoveryConfig, autojump_clock: trio.testing.MockClock
) -> None:
    heard: list[float] = []
    listener = trio.socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    with listener, trio.fail_after(120):
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        await listener.bind(("0.0.0.0", config.port))
        listener.setsockopt(
            socket.IPPROTO_IP,
            socket.IP_ADD_MEMBERSHIP,
            socket.inet_aton(config.group) + socket.inet_aton("127.0.0.1"),
        )
        async with trio.open_nursery() as nursery:
            await nursery.start(announcer(config, interval=2.0))
            with trio.move_on_after(60):
                while True:
                    await listener.recv(2048)
                    heard.append(trio.current_time())
            nursery.cancel_scope.cancel()
    gaps = [b - a for a, b in itertools.pairwise(heard)]
    assert 25 <= len(heard) <= 38
    assert all(1.6 - 1e-6 <= g <= 2.4 + 1e-6 for g in gaps)


async def test_silent_tables_expire(
    config: DiscoveryConfig, autojump_clock: trio.testing.MockClock
) -> None:
    ad = Announcement(
        table_id=b"E" * 16,
        host_key=HOST.public_key,
        host_name="bob",
        table_name="ghost",
        rules={},
        seats_taken=1,
        seats_total=4,
        addresses=("127.0.0.1",),
        port=40000,
        state=TableState.OPEN,
    )
    with trio.fail_after(60):
        async with open_browser(LO, config=config, probe=False) as browser:
            send_raw(config, encode_announcement(ad, HOST))
            info = await browser.wait_for(lambda t: True)
            await trio.sleep_until(info.last_seen + 7.1)
            assert browser.tables()
            await browser.wait_changed()
            assert browser.tables() == []
            assert trio.current_time() - info.last_seen <= 7.2 + 1e-6


def send_from(config: DiscoveryConfig, data: bytes, source: str) -> None:
    """Send ``data`` to the group on loopback from ``source`` (any 127/8 address is ours)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton("127.0.0.1"))
        s.bind((source, 0))
        s.sendto(data, (config.group, config.port))


async def capture_genuine(config: DiscoveryConfig) -> bytes:
    """The host's real announcement, as anyone on the LAN hears it."""
    async with trio.open_nursery() as nursery:
        listener = await open_listener(LO[0], config)
        with listener:
            await nursery.start(announcer(config, interval=30.0))
            data, _, _ = await receive_datagram(listener)
        nursery.cancel_scope.cancel()
    return data


async def test_a_replayed_announcement_cannot_send_joiners_elsewhere(
    config: DiscoveryConfig, tmp_path: Path
) -> None:
    """Mallory replays the host's genuine, signed announcement from her own address. The
    announcement names the host's address: the browser ignores the copy, so neither
    `hearts list` nor join-by-name sends anyone to Mallory."""
    with trio.fail_after(20):
        genuine = await capture_genuine(config)
        async with open_browser(LO, config=config, probe=False) as browser:
            for _ in range(3):
                send_from(config, genuine, "127.0.0.2")
            while browser.drops["elsewhere"] < 3:
                await trio.sleep(0.02)
            assert browser.tables() == []
            send_from(config, genuine, "127.0.0.1")  # the same bytes from the named address
            info = await browser.wait_for(lambda t: True)
        assert info.address == "127.0.0.1"
        opts = PeerOptions(tmp_path / "joiner", "joiner", LO, discovery=config)

        async def replay() -> None:
            while True:
                send_from(config, genuine, "127.0.0.2")
                await trio.sleep(0.1)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(replay)
            with pytest.raises(SessionError, match='found no table "friday"'):
                await join_game(opts, BotSeat(make_bot("random", 1)), "friday", find_timeout=1.5)
            nursery.cancel_scope.cancel()
