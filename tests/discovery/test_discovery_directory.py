"""Expiry and goodbye, on plain numbers."""

from __future__ import annotations

import dataclasses

from hearts_p2p.discovery.directory import TableDirectory
from hearts_p2p.discovery.packet import Announcement, TableState

KEY = bytes(range(32))


def ad(table: int = 1, **changes: object) -> Announcement:
    base = Announcement(
        table_id=bytes([table]) * 16,
        host_key=KEY,
        host_name="alice",
        table_name=f"table {table}",
        rules={},
        seats_taken=1,
        seats_total=4,
        addresses=("127.0.0.1",),
        port=4000,
        state=TableState.OPEN,
        age=30,
        every=2000,
    )
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


def test_expires_after_three_missed_announcements() -> None:
    d = TableDirectory()
    assert d.observe(ad(), "10.0.0.1", "lo", now=100.0)
    # Three intervals of 2 s, each up to 20 % late: gone at 107.2, not before.
    assert [t.address for t in d.tables(now=107.1)] == ["10.0.0.1"]
    assert d.next_expiry() == 100.0 + 7.2
    assert d.tables(now=107.2) == []


def test_each_announcement_extends_life() -> None:
    d = TableDirectory()
    d.observe(ad(), "10.0.0.1", "lo", now=0.0)
    assert not d.observe(ad(), "10.0.0.1", "lo", now=5.0)
    assert len(d.tables(now=12.0)) == 1
    info = d.tables(now=12.0)[0]
    assert (info.first_seen, info.last_seen) == (0.0, 5.0)
    assert info.age(now=12.0) == 37.0


def test_goodbye_removes_at_once() -> None:
    d = TableDirectory()
    d.observe(ad(), "10.0.0.1", "lo", now=0.0)
    assert d.observe(ad(state=TableState.CLOSED), "10.0.0.1", "lo", now=1.0)
    assert d.tables(now=1.0) == []
    assert not d.observe(ad(state=TableState.CLOSED), "10.0.0.1", "lo", now=1.0)


def test_updates_are_changes() -> None:
    d = TableDirectory()
    d.observe(ad(), "10.0.0.1", "lo", now=0.0)
    assert d.observe(ad(seats_taken=2), "10.0.0.1", "lo", now=1.0)
    assert d.observe(ad(seats_taken=2), "10.0.0.2", "lo", now=1.5)
    assert d.tables(now=2.0)[0].announcement.seats_taken == 2


def test_tables_sorted_and_keyed_by_table_and_host() -> None:
    d = TableDirectory()
    d.observe(ad(2), "10.0.0.2", "lo", now=0.0)
    d.observe(ad(1), "10.0.0.1", "lo", now=0.0)
    d.observe(ad(1, host_key=bytes(32)), "10.0.0.3", "lo", now=0.0)
    tables = d.tables(now=0.0)
    assert [t.announcement.table_name for t in tables] == ["table 1", "table 1", "table 2"]


def test_slower_hosts_live_longer() -> None:
    d = TableDirectory()
    d.observe(ad(every=10_000), "10.0.0.1", "lo", now=0.0)
    assert d.tables(now=35.0)
    assert not d.tables(now=36.0)


def test_json_view() -> None:
    d = TableDirectory()
    d.observe(ad(), "10.0.0.1", "lo", now=10.0)
    j = d.tables(now=11.0)[0].to_json(now=11.0)
    assert j["address"] == "10.0.0.1"
    assert j["age"] == 31.0
    assert j["last_heard"] == 1.0
    assert j["seats_taken"] == 1 and j["seats_total"] == 4
    assert len(j["fingerprint"]) == 14
