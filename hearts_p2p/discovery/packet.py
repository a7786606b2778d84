"""The discovery datagrams: signed table announcements and the probes that ask for them.

Layout: ``MAGIC`` (4 bytes), version (1), kind (1), then for an announcement a msgpack map and
the host's 64-byte Ed25519 signature over everything before it. A probe is the header and 26
bytes of padding, so an answer is never many times the size of the question.

Announcements are only hints (anyone can replay one), but a packet whose signature does not
match the key it names is dropped: it can only be noise or a forgery. The host signs the
addresses and the port its lobby listens on, so a genuine announcement replayed from elsewhere
cannot send joiners elsewhere: the browser takes a table only from an address it names.
Decoding is strict and turns every defect into a :class:`PacketError` whose ``reason`` the
receiver counts.
"""

from __future__ import annotations

import enum
import ipaddress
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import msgpack

from hearts_p2p.identity import PUBLIC_KEY_BYTES, SIGNATURE_BYTES, Identity, verify

__all__ = [
    "MAGIC",
    "MAX_PACKET",
    "PROBE_BYTES",
    "TABLE_ID_BYTES",
    "VERSION",
    "Announcement",
    "Kind",
    "PacketError",
    "TableState",
    "decode",
    "encode_announcement",
    "encode_probe",
]

MAGIC = b"HRTS"
VERSION = 2
HEADER_BYTES = 6
PROBE_BYTES = 32
MAX_PACKET = 1200
TABLE_ID_BYTES = 16
MAX_TEXT = 64
MAX_SEATS = 16
MAX_ADDRESSES = 4
_SIGNING_TAG = b"hearts-p2p announcement\0"
_FIELDS = frozenset(
    {"table", "host_key", "host", "name", "rules", "seats", "addrs", "port", "state"}
    | {"age", "every"}
)
# Left out while empty, so a table without them announces what it always did.
_OPTIONAL = frozenset({"watchers", "bots", "clock", "open"})
MAX_CLOCK = 86_400  # seconds
MAX_WATCHERS = 64
MAX_LABEL = 16


class Kind(enum.IntEnum):
    ANNOUNCE = 1
    PROBE = 2


class TableState(enum.StrEnum):
    """What a joiner can do: join an open table, watch a playing one; closed means goodbye."""

    OPEN = "open"
    PLAYING = "playing"
    CLOSED = "closed"


class PacketError(ValueError):
    """A datagram that is not a valid discovery packet; ``reason`` is a short counter key."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


@dataclass(frozen=True)
class Announcement:
    """A host's description of its table, as it is signed and sent.

    ``rules`` is the caller's summary, passed through untouched. ``age`` is how many seconds the
    table has been open (by the host's clock, so no clock sync is needed) and ``every`` the
    host's announcement interval in milliseconds, from which listeners derive expiry.
    ``addresses`` are the IPv4 addresses the lobby listens on, with ``port``. ``watchers`` is
    how many watch the game; ``bots`` labels each seated bot (its level, or ``bot``).
    ``open_seats``: the seats of a playing table that a newcomer may take (its rules allow it
    and the table plays them), which ``hearts join`` looks for.
    """

    table_id: bytes
    host_key: bytes
    host_name: str
    table_name: str
    rules: Mapping[str, Any]
    seats_taken: int
    seats_total: int
    addresses: tuple[str, ...]
    port: int
    state: TableState
    age: int = 0
    every: int = 2000
    watchers: int = 0
    bots: tuple[str, ...] = ()
    clock: int = 0  # the table's timeout in seconds (the move clock is 3/4 of it); 0: unsaid
    open_seats: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        _check(len(self.table_id) == TABLE_ID_BYTES, "table id is 16 bytes")
        _check(len(self.host_key) == PUBLIC_KEY_BYTES, "host key is 32 bytes")
        _check_text(self.host_name, "host name")
        _check_text(self.table_name, "table name")
        _check(all(isinstance(k, str) for k in self.rules), "rules summary keys must be strings")
        _check(0 < self.seats_total <= MAX_SEATS, "seats total out of range")
        _check(0 <= self.seats_taken <= self.seats_total, "seats taken out of range")
        _check(0 < len(self.addresses) <= MAX_ADDRESSES, "1 to 4 addresses")
        _check(all(_is_ipv4(a) for a in self.addresses), "addresses are dotted IPv4")
        _check(0 < self.port < 65536, "port out of range")
        _check(0 <= self.age < 2**32, "age out of range")
        _check(100 <= self.every <= 60_000, "interval out of range")
        _check(0 <= self.watchers <= MAX_WATCHERS, "watchers out of range")
        _check(0 <= self.clock <= MAX_CLOCK, "clock out of range")
        _check(len(self.bots) <= self.seats_taken, "more bots than seats taken")
        for label in self.bots:
            _check(isinstance(label, str) and len(label) <= MAX_LABEL, "bot label too long")
            _check_text(label, "bot label")
        _check(len(self.open_seats) <= self.seats_total, "more open seats than seats")
        _check(
            all(type(n) is int and 0 <= n < self.seats_total for n in self.open_seats),
            "open seats are seat numbers",
        )


def _check(ok: bool, message: str) -> None:
    if not ok:
        raise PacketError("schema", message)


def _is_ipv4(value: object) -> bool:
    """Dotted-quad in its one canonical spelling, so equal addresses compare equal."""
    try:
        return isinstance(value, str) and str(ipaddress.IPv4Address(value)) == value
    except ValueError:
        return False


def _check_text(value: object, what: str) -> None:
    _check(isinstance(value, str) and 0 < len(value) <= MAX_TEXT, f"{what} is 1-64 characters")
    assert isinstance(value, str)
    # Names end up on other people's terminals: no escape sequences or other control codes.
    _check(
        not any(unicodedata.category(c) in ("Cc", "Cf") for c in value),
        f"{what} contains control characters",
    )


def _header(kind: Kind) -> bytes:
    return MAGIC + bytes((VERSION, kind))


def encode_announcement(ad: Announcement, identity: Identity) -> bytes:
    """Sign ``ad`` with the host's identity; it must be the key the announcement names."""
    if ad.host_key != identity.public_key:
        raise ValueError("an announcement is signed by the host it names")
    body: bytes = msgpack.packb(
        {
            "table": ad.table_id,
            "host_key": ad.host_key,
            "host": ad.host_name,
            "name": ad.table_name,
            "rules": dict(ad.rules),
            "seats": [ad.seats_taken, ad.seats_total],
            "addrs": list(ad.addresses),
            "port": ad.port,
            "state": ad.state.value,
            "age": ad.age,
            "every": ad.every,
            **({"watchers": ad.watchers} if ad.watchers else {}),
            **({"bots": list(ad.bots)} if ad.bots else {}),
            **({"clock": ad.clock} if ad.clock else {}),
            **({"open": list(ad.open_seats)} if ad.open_seats else {}),
        },
        use_bin_type=True,
    )
    signed = _header(Kind.ANNOUNCE) + body
    packet = signed + identity.sign(_SIGNING_TAG + signed)
    if len(packet) > MAX_PACKET:
        raise ValueError(f"announcement is {len(packet)} bytes, over {MAX_PACKET}")
    return packet


def encode_probe() -> bytes:
    return _header(Kind.PROBE) + bytes(PROBE_BYTES - HEADER_BYTES)


def _no_ext(code: int, data: bytes) -> object:
    raise PacketError("decode", "msgpack extension types are not allowed")


def _unpack(body: bytes) -> Any:
    try:
        return msgpack.unpackb(
            body,
            raw=False,
            strict_map_key=True,
            ext_hook=_no_ext,
        )
    except PacketError:
        raise
    except (ValueError, TypeError, msgpack.UnpackException) as e:
        raise PacketError("decode", type(e).__name__) from None


def decode(data: bytes) -> Announcement | None:
    """Parse one datagram: an :class:`Announcement`, or ``None`` for a probe."""
    if len(data) > MAX_PACKET:
        raise PacketError("size", f"{len(data)} bytes")
    if len(data) < HEADER_BYTES:
        raise PacketError("short")
    if data[:4] != MAGIC:
        raise PacketError("magic")
    if data[4] != VERSION:
        raise PacketError("version", str(data[4]))
    kind = data[5]
    if kind == Kind.PROBE:
        if len(data) != PROBE_BYTES:
            raise PacketError("size", "probe length")
        return None
    if kind != Kind.ANNOUNCE:
        raise PacketError("kind", str(kind))
    if len(data) < HEADER_BYTES + 1 + SIGNATURE_BYTES:
        raise PacketError("short")
    signed, signature = data[:-SIGNATURE_BYTES], data[-SIGNATURE_BYTES:]
    fields = _unpack(signed[HEADER_BYTES:])
    if not isinstance(fields, dict) or set(fields) - _OPTIONAL != _FIELDS:
        raise PacketError("schema", "wrong fields")
    ad = _announcement(fields)
    if not verify(ad.host_key, signature, _SIGNING_TAG + signed):
        raise PacketError("signature")
    return ad


def _announcement(f: dict[str, Any]) -> Announcement:
    def typed(name: str, kind: type) -> Any:
        value = f[name]
        # bool is an int subclass; a true/false port or seat count is a defect.
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise PacketError("schema", f"{name} is not {kind.__name__}")
        return value

    seats = typed("seats", list)
    addresses = typed("addrs", list)
    watchers = typed("watchers", int) if "watchers" in f else 0
    bots = typed("bots", list) if "bots" in f else []
    clock = typed("clock", int) if "clock" in f else 0
    open_seats = typed("open", list) if "open" in f else []
    _check(len(seats) == 2, "seats is [taken, total]")
    _check(all(type(s) is int for s in seats), "seats are integers")
    try:
        state = TableState(typed("state", str))
    except ValueError:
        raise PacketError("schema", "unknown state") from None
    return Announcement(
        table_id=typed("table", bytes),
        host_key=typed("host_key", bytes),
        host_name=typed("host", str),
        table_name=typed("name", str),
        rules=typed("rules", dict),
        seats_taken=seats[0],
        seats_total=seats[1],
        addresses=tuple(addresses),
        port=typed("port", int),
        state=state,
        age=typed("age", int),
        every=typed("every", int),
        watchers=watchers,
        bots=tuple(bots),
        clock=clock,
        open_seats=tuple(open_seats),
    )
