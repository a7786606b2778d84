"""The host side of discovery: announce a table, answer probes, say goodbye on the way out."""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import logging
import random
from collections.abc import Mapping, Sequence
from typing import Any, NoReturn

import trio

from hearts_p2p.identity import Identity
from hearts_p2p.netif import Interface

from .packet import Announcement, PacketError, TableState, decode, encode_announcement
from .sockets import DEFAULT_CONFIG, DiscoveryConfig, open_listener, open_sender, receive_datagram

__all__ = ["Announcer", "announce"]

log = logging.getLogger(__name__)

# Probes are answered at once, but no more than this many per second in all, so a flood of
# (possibly spoofed) probes cannot turn a host into a traffic source.
MAX_ANSWERS_PER_SECOND = 50
GOODBYE_GRACE = 0.5


class Announcer:
    """A running announcement, as handed back by ``nursery.start(announce, ...)``.

    The host calls :meth:`update` as seats fill or play starts; the change goes out at once.
    ``sent`` counts announcements sent, ``answered`` probes answered, and ``drops`` the
    datagrams that were not valid discovery packets, by reason.
    """

    def __init__(self, identity: Identity, announcement: Announcement, interval: float) -> None:
        self._identity = identity
        self._announcement = announcement
        self._interval = interval
        self._opened_at = trio.current_time()
        self._wake = trio.Event()
        self.sent = 0
        self.answered = 0
        self.drops: collections.Counter[str] = collections.Counter()

    @property
    def announcement(self) -> Announcement:
        return self._announcement

    def update(
        self,
        *,
        seats_taken: int | None = None,
        state: TableState | None = None,
        rules: Mapping[str, Any] | None = None,
        watchers: int | None = None,
        bots: Sequence[str] | None = None,
        open_seats: Sequence[int] | None = None,
    ) -> None:
        """Change what the table says about itself and announce it now."""
        if state is TableState.CLOSED:
            raise ValueError("a table closes by cancelling its announcer, which says goodbye")
        ad = self._announcement
        self._announcement = dataclasses.replace(
            ad,
            seats_taken=ad.seats_taken if seats_taken is None else seats_taken,
            state=ad.state if state is None else state,
            rules=ad.rules if rules is None else rules,
            watchers=ad.watchers if watchers is None else watchers,
            bots=ad.bots if bots is None else tuple(bots),
            open_seats=ad.open_seats if open_seats is None else tuple(open_seats),
        )
        self._wake.set()

    def packet(self, state: TableState | None = None) -> bytes:
        age = int(trio.current_time() - self._opened_at)
        ad = dataclasses.replace(
            self._announcement, age=age, state=state or self._announcement.state
        )
        return encode_announcement(ad, self._identity)

    async def _sleep(self) -> None:
        with trio.move_on_after(self._interval * random.uniform(0.8, 1.2)):
            await self._wake.wait()
        self._wake = trio.Event()


async def _send(
    senders: Sequence[tuple[Interface, trio.socket.SocketType]],
    config: DiscoveryConfig,
    packet: bytes,
) -> int:
    sent = 0
    for iface, sock in senders:
        try:
            await sock.sendto(packet, config.destination(iface))
            sent += 1
        except OSError as e:
            log.warning("announcement on %s failed: %s", iface.name, e)
    return sent


async def _answer_probes(
    announcer: Announcer,
    listener: trio.socket.SocketType,
    sender: trio.socket.SocketType,
    iface: Interface,
) -> NoReturn:
    window_start, answers = trio.current_time(), 0
    while True:
        data, host, port = await receive_datagram(listener)
        try:
            if decode(data) is not None:
                continue  # another host's announcement
        except PacketError as e:
            announcer.drops[e.reason] += 1
            log.debug("dropped datagram from %s:%d on %s: %s", host, port, iface.name, e)
            continue
        now = trio.current_time()
        if now - window_start >= 1:
            window_start, answers = now, 0
        if answers >= MAX_ANSWERS_PER_SECOND:
            announcer.drops["rate"] += 1
            continue
        answers += 1
        try:
            await sender.sendto(announcer.packet(), (host, port))
            announcer.answered += 1
        except OSError as e:
            log.debug("probe answer to %s:%d failed: %s", host, port, e)


async def announce(
    identity: Identity,
    interfaces: Sequence[Interface],
    *,
    table_id: bytes,
    host_name: str,
    table_name: str,
    rules: Mapping[str, Any],
    seats_total: int,
    addresses: Sequence[str],
    port: int,
    seats_taken: int = 0,
    state: TableState = TableState.OPEN,
    clock: int = 0,
    config: DiscoveryConfig = DEFAULT_CONFIG,
    interval: float = 2.0,
    task_status: trio.TaskStatus[Announcer] = trio.TASK_STATUS_IGNORED,
) -> NoReturn:
    """Announce a table on each interface every ``interval`` s ±20 % until cancelled.

    ``addresses`` and ``port`` are where the lobby listens: they are signed into the
    announcement, and joiners take the table only from a packet sent from one of them.

    Start it with ``announcer = await nursery.start(announce, identity, ifaces, ...)``; the
    first announcement is out before ``start`` returns. Cancelling it sends a goodbye so
    listeners drop the table at once instead of waiting for it to expire.
    """
    if not interfaces:
        raise ValueError("announce on at least one interface")
    ad = Announcement(
        table_id=table_id,
        host_key=identity.public_key,
        host_name=host_name,
        table_name=table_name,
        rules=rules,
        seats_taken=seats_taken,
        seats_total=seats_total,
        addresses=tuple(addresses),
        port=port,
        state=state,
        every=round(interval * 1000),
        clock=clock,
    )
    announcer = Announcer(identity, ad, interval)
    announcer.packet()  # refuse an announcement too large to send before going live
    async with contextlib.AsyncExitStack() as stack:
        senders = []
        listeners = []
        for iface in interfaces:
            senders.append((iface, stack.enter_context(await open_sender(iface, config))))
            listeners.append(stack.enter_context(await open_listener(iface, config)))
        async with trio.open_nursery() as nursery:
            for (iface, sender), listener in zip(senders, listeners, strict=True):
                nursery.start_soon(_answer_probes, announcer, listener, sender, iface)
            try:
                announcer.sent += await _send(senders, config, announcer.packet())
                task_status.started(announcer)
                while True:
                    await announcer._sleep()
                    announcer.sent += await _send(senders, config, announcer.packet())
            finally:
                with trio.CancelScope(shield=True), trio.move_on_after(GOODBYE_GRACE):
                    await _send(senders, config, announcer.packet(TableState.CLOSED))
    raise AssertionError("unreachable")
