"""Announcement encoding and the strict decoder: every defect is a counted PacketError."""

from __future__ import annotations

import contextlib
import dataclasses

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hearts_p2p.discovery.packet import (
    MAGIC,
    MAX_PACKET,
    Announcement,
    PacketError,
    TableState,
    decode,
    encode_announcement,
    encode_probe,
)
from hearts_p2p.identity import Identity

HOST = Identity.from_seed(bytes(range(32)))
OTHER = Identity.from_seed(bytes(32))


def ad(**changes: object) -> Announcement:
    base = Announcement(
        table_id=bytes(range(16)),
        host_key=HOST.public_key,
        host_name="alice",
        table_name="friday night",
        rules={"points": 100, "jack_of_diamonds": False},
        seats_taken=2,
        seats_total=4,
        addresses=("127.0.0.1",),
        port=40123,
        state=TableState.OPEN,
        age=12,
        every=2000,
    )
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


def resign(fields: dict[str, object], identity: Identity = HOST) -> bytes:
    """A correctly signed packet around arbitrary fields, to reach the schema checks."""
    body: bytes = msgpack.packb(fields, use_bin_type=True)
    signed = MAGIC + bytes((2, 1)) + body
    return signed + identity.sign(b"hearts-p2p announcement\0" + signed)


def fields() -> dict[str, object]:
    return {
        "table": bytes(16),
        "host_key": HOST.public_key,
        "host": "alice",
        "name": "t",
        "rules": {},
        "seats": [1, 4],
        "addrs": ["10.0.0.7"],
        "port": 4000,
        "state": "open",
        "age": 0,
        "every": 2000,
    }


def reason(data: bytes) -> str:
    with pytest.raises(PacketError) as info:
        decode(data)
    return info.value.reason


def test_round_trip() -> None:
    original = ad()
    assert decode(encode_announcement(original, HOST)) == original


def test_watchers_and_bots_round_trip_and_are_left_out_while_empty() -> None:
    busy = ad(seats_taken=3, watchers=2, bots=("hard", "bot"), clock=90)
    assert decode(encode_announcement(busy, HOST)) == busy
    plain = encode_announcement(ad(), HOST)
    assert b"watchers" not in plain and b"bots" not in plain and b"clock" not in plain


def test_probe() -> None:
    assert decode(encode_probe()) is None


def test_only_the_named_host_signs() -> None:
    with pytest.raises(ValueError, match="signed by the host"):
        encode_announcement(ad(), OTHER)


def test_tampering_breaks_the_signature() -> None:
    packet = bytearray(encode_announcement(ad(), HOST))
    i = packet.index(b"friday")
    packet[i] ^= 0x20
    assert reason(bytes(packet)) == "signature"


def test_signature_by_another_key() -> None:
    assert reason(resign(fields(), OTHER)) == "signature"


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"", "short"),
        (b"HRT", "short"),
        (b"XXXX\x02\x01" + bytes(80), "magic"),
        (b"HRTS\x01\x01" + bytes(80), "version"),
        (b"HRTS\x02\x07" + bytes(80), "kind"),
        (b"HRTS\x02\x02", "size"),
        (b"HRTS\x02\x01" + bytes(10), "short"),
        (b"HRTS\x02\x01" + b"\xc1" + bytes(64), "decode"),
        (b"HRTS\x02\x01" + bytes(MAX_PACKET), "size"),
    ],
)
def test_garbage(data: bytes, expected: str) -> None:
    assert reason(data) == expected


@pytest.mark.parametrize(
    "change",
    [
        {"extra": 1},
        {"table": bytes(15)},
        {"host_key": bytes(31)},
        {"host": ""},
        {"host": "x" * 65},
        {"host": "evil\x1b[2J"},
        {"name": "zero\u200bwidth"},
        {"rules": [1, 2]},
        {"seats": [5, 4]},
        {"seats": [True, 4]},
        {"seats": [1, 4, 5]},
        {"addrs": []},
        {"addrs": ["10.0.0.1"] * 5},
        {"addrs": ["10.0.0.01"]},
        {"addrs": ["::1"]},
        {"addrs": [b"\x7f\x00\x00\x01"]},
        {"addrs": "10.0.0.1"},
        {"port": 0},
        {"port": True},
        {"port": "4000"},
        {"state": "gone"},
        {"every": 5},
        {"age": -1},
        {"watchers": -1},
        {"watchers": True},
        {"clock": -1},
        {"clock": 86_401},
        {"clock": 1.5},
        {"bots": "hard"},
        {"bots": ["hard", "easy"]},  # more bots than the one seat taken
        {"bots": ["x" * 17]},
        {"bots": ["\x1b[2J"]},
    ],
)
def test_schema(change: dict[str, object]) -> None:
    f = fields()
    f.update(change)
    assert reason(resign(f)) == "schema"


def test_missing_field() -> None:
    f = fields()
    del f["port"]
    assert reason(resign(f)) == "schema"


def test_extension_types_refused() -> None:
    f = fields()
    f["rules"] = {"x": msgpack.ExtType(5, b"boom")}
    assert reason(resign(f)) == "decode"


def test_oversized_announcement_refused_at_the_source() -> None:
    with pytest.raises(ValueError, match="over"):
        encode_announcement(ad(rules={"blob": "x" * 2000}), HOST)


@given(st.binary(max_size=300))
def test_random_bytes_never_crash(data: bytes) -> None:
    with contextlib.suppress(PacketError):
        decode(data)


@given(st.binary(max_size=200))
def test_random_bodies_behind_a_valid_header(body: bytes) -> None:
    with contextlib.suppress(PacketError):
        decode(MAGIC + b"\x01\x01" + body + bytes(64))


def test_open_seats_round_trip_are_left_out_while_empty_and_must_be_seat_numbers() -> None:
    """A playing table's seats open to a newcomer (SPEC 10.4 ``open``): carried as signed, left
    out when none is open, and refused when not seat numbers of the table."""
    playing = ad(seats_taken=4, state=TableState.PLAYING, open_seats=(2,))
    assert decode(encode_announcement(playing, HOST)).open_seats == (2,)  # type: ignore[union-attr]
    assert encode_announcement(ad(), HOST).count(b"\xa4open") == 1  # the state alone
    for bad in ((4,), (-1,), (0, 1, 2, 3, 0)):
        with pytest.raises(PacketError, match="open seats"):
            ad(seats_taken=4, state=TableState.PLAYING, open_seats=bad)
