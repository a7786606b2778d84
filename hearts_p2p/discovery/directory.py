"""What a listener knows about tables on the network, kept without any I/O.

Entries live until three announcements in a row have been missed (allowing for the host's
±20 % jitter) or the host says goodbye. Time is passed in, so expiry is tested with plain
numbers and runs on trio's clock in the browser.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from hearts_p2p.identity import fingerprint

from .packet import Announcement, TableState

__all__ = ["EXPIRY_INTERVALS", "JITTER", "TableDirectory", "TableInfo"]

EXPIRY_INTERVALS = 3
JITTER = 0.2


@dataclass(frozen=True)
class TableInfo:
    """A table as last heard: the host's announcement plus where and when it came from.

    ``address`` is the packet's source address, one the announcement names (the browser keeps
    no other): joiners connect there, on ``announcement.port``.
    Times are on the listener's clock (``trio.current_time()``).
    """

    announcement: Announcement
    address: str
    interface: str
    first_seen: float
    last_seen: float

    @property
    def table_id(self) -> bytes:
        return self.announcement.table_id

    @property
    def host_fingerprint(self) -> str:
        return fingerprint(self.announcement.host_key)

    def expires_at(self) -> float:
        return self.last_seen + self.announcement.every / 1000 * EXPIRY_INTERVALS * (1 + JITTER)

    def age(self, now: float) -> float:
        """Seconds the table has been open, by the host's count plus the time since."""
        return self.announcement.age + (now - self.last_seen)

    def to_json(self, now: float) -> dict[str, Any]:
        ad = self.announcement
        return {
            "table_id": ad.table_id.hex(),
            "name": ad.table_name,
            "host": ad.host_name,
            "host_key": ad.host_key.hex(),
            "fingerprint": self.host_fingerprint,
            "rules": dict(ad.rules),
            "seats_taken": ad.seats_taken,
            "seats_total": ad.seats_total,
            "state": ad.state.value,
            "watchers": ad.watchers,
            "bots": list(ad.bots),
            "timeout": ad.clock or None,
            "open_seats": list(ad.open_seats),
            "address": self.address,
            "port": ad.port,
            "interface": self.interface,
            "age": round(self.age(now), 1),
            "last_heard": round(now - self.last_seen, 1),
        }


class TableDirectory:
    """Live tables keyed by (table id, host key)."""

    def __init__(self) -> None:
        self._tables: dict[tuple[bytes, bytes], TableInfo] = {}

    def observe(self, ad: Announcement, address: str, interface: str, now: float) -> bool:
        """Record an announcement; whether the set of live tables or their details changed."""
        key = (ad.table_id, ad.host_key)
        old = self._tables.get(key)
        if ad.state is TableState.CLOSED:
            return self._tables.pop(key, None) is not None
        if old is None:
            self._tables[key] = TableInfo(ad, address, interface, now, now)
            return True
        self._tables[key] = replace(
            old, announcement=ad, address=address, interface=interface, last_seen=now
        )
        return old.announcement != ad or old.address != address

    def expire(self, now: float) -> list[TableInfo]:
        """Drop and return the tables not heard from for too long."""
        gone = [info for info in self._tables.values() if info.expires_at() <= now]
        for info in gone:
            del self._tables[(info.table_id, info.announcement.host_key)]
        return gone

    def tables(self, now: float) -> list[TableInfo]:
        """The live tables, by table name then host fingerprint."""
        self.expire(now)
        return sorted(
            self._tables.values(),
            key=lambda i: (i.announcement.table_name, i.host_fingerprint, i.table_id),
        )

    def next_expiry(self) -> float | None:
        return min((i.expires_at() for i in self._tables.values()), default=None)
