"""The joiner side of discovery: probe, listen, and keep a live list of tables."""

from __future__ import annotations

import collections
import contextlib
import logging
import math
from collections.abc import AsyncIterator, Callable, Sequence
from typing import NoReturn

import trio

from hearts_p2p.netif import Interface

from .directory import TableDirectory, TableInfo
from .packet import PacketError, decode, encode_probe
from .sockets import DEFAULT_CONFIG, DiscoveryConfig, open_listener, open_sender, receive_datagram

__all__ = ["Browser", "list_tables", "open_browser"]

log = logging.getLogger(__name__)

# A joiner probes several times across the first two seconds (what `hearts list` waits), so
# lost probes or answers cost a fraction of a second rather than a whole announcement interval:
# at 10 % loss each way, all five round trips fail about once in 4,000 listings.
PROBE_SCHEDULE = (0.0, 0.25, 0.75, 1.25, 1.75)


class Browser:
    """Live tables heard on the chosen interfaces; made by :func:`open_browser`.

    ``drops`` counts the datagrams that were not valid discovery packets, by reason, and
    (``"elsewhere"``) the announcements heard from an address they do not name.
    """

    def __init__(self, config: DiscoveryConfig) -> None:
        self._config = config
        self._directory = TableDirectory()
        self._changed = trio.Event()
        self._probers: list[tuple[Interface, trio.socket.SocketType]] = []
        self.drops: collections.Counter[str] = collections.Counter()
        self.probes_sent = 0

    def tables(self) -> list[TableInfo]:
        """The tables live now, by name."""
        return self._directory.tables(trio.current_time())

    async def wait_changed(self) -> None:
        """Return after the next change: a table seen, updated, expired or gone."""
        await self._changed.wait()

    async def wait_for(self, predicate: Callable[[TableInfo], bool]) -> TableInfo:
        """The first live table that satisfies ``predicate``, waiting as long as it takes."""
        while True:
            changed = self._changed
            for info in self.tables():
                if predicate(info):
                    return info
            await changed.wait()

    async def probe(self) -> None:
        """Ask every host on the interfaces to announce itself now."""
        packet = encode_probe()
        for iface, sock in self._probers:
            try:
                await sock.sendto(packet, self._config.destination(iface))
                self.probes_sent += 1
            except OSError as e:
                log.warning("probe on %s failed: %s", iface.name, e)

    def _notify(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    async def _listen(self, sock: trio.socket.SocketType, iface: Interface) -> NoReturn:
        while True:
            data, host, port = await receive_datagram(sock)
            try:
                ad = decode(data)
            except PacketError as e:
                self.drops[e.reason] += 1
                log.debug("dropped datagram from %s:%d on %s: %s", host, port, iface.name, e)
                continue
            if ad is None:
                continue
            if host not in ad.addresses:
                # A genuine announcement heard from an address it does not name: replayed or
                # relayed, it must not send joiners there.
                self.drops["elsewhere"] += 1
                log.debug("ignored %s's table heard from %s on %s", ad.host_name, host, iface.name)
                continue
            if self._directory.observe(ad, host, iface.name, trio.current_time()):
                self._notify()

    async def _expire(self) -> NoReturn:
        while True:
            deadline = self._directory.next_expiry()
            changed = self._changed
            with trio.move_on_at(math.inf if deadline is None else deadline):
                await changed.wait()
                continue
            if self._directory.expire(trio.current_time()):
                self._notify()

    async def _probe_burst(self) -> None:
        start = trio.current_time()
        for offset in PROBE_SCHEDULE:
            await trio.sleep_until(start + offset)
            await self.probe()


@contextlib.asynccontextmanager
async def open_browser(
    interfaces: Sequence[Interface],
    *,
    config: DiscoveryConfig = DEFAULT_CONFIG,
    probe: bool = True,
) -> AsyncIterator[Browser]:
    """Listen for tables on ``interfaces`` (and probe for them, unless ``probe`` is false)."""
    if not interfaces:
        raise ValueError("browse on at least one interface")
    browser = Browser(config)
    async with contextlib.AsyncExitStack() as stack:
        listeners = []
        for iface in interfaces:
            listeners.append((iface, stack.enter_context(await open_listener(iface, config))))
            browser._probers.append((iface, stack.enter_context(await open_sender(iface, config))))
        async with trio.open_nursery() as nursery:
            for iface, sock in [*listeners, *browser._probers]:
                nursery.start_soon(browser._listen, sock, iface)
            nursery.start_soon(browser._expire)
            if probe:
                nursery.start_soon(browser._probe_burst)
            yield browser
            nursery.cancel_scope.cancel()


async def list_tables(
    interfaces: Sequence[Interface],
    wait: float = 2.0,
    *,
    config: DiscoveryConfig = DEFAULT_CONFIG,
) -> list[TableInfo]:
    """The tables heard within ``wait`` seconds: what ``hearts list`` prints."""
    async with open_browser(interfaces, config=config) as browser:
        await trio.sleep(wait)
        return browser.tables()
