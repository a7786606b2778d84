"""``hearts list``: the tables announced on the local network, heard within a couple of seconds.

Each table's line says how many watch it, the level of each bot seated there (from the
``[level]`` its name carries) and the seats of a playing table a newcomer may take
(``4/4 open:2``). Discovery only listens and probes on the interfaces given by
``--interface`` or ``$HEARTS_INTERFACE`` and falls back to loopback, so a bare ``hearts list``
never talks to a real network: on a LAN, name your interface (``--interface eth0``).
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import sys
from typing import Any

import trio

from hearts_p2p.discovery import DEFAULT_GROUP, DEFAULT_PORT, DiscoveryConfig, list_tables
from hearts_p2p.discovery.directory import TableInfo
from hearts_p2p.netif import ENV_INTERFACE, InterfaceError, interfaces_from
from hearts_p2p.rules import Rules, RulesError
from hearts_p2p.text import clean, json_escaped

from .args import HelpFormatter
from .countdown import count_down
from .lan import lan_interfaces, loopback_note, nothing_heard
from .netlog import say_network_trouble
from .overview import COMMANDS
from .usage import seconds


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "list",
        formatter_class=HelpFormatter,
        help=COMMANDS["list"],
        description="Listen for table announcements and print the live tables. Discovery "
        f"stays on the interfaces you name (or ${ENV_INTERFACE}, comma-separated); without "
        "either it uses loopback only, so on a real LAN pass your interface.",
        epilog="example: hearts list --interface eth0 --json\n\n"
        "exit codes: 0 tables found, 1 none heard (or an error), 2 usage",
    )
    p.add_argument(
        "--interface",
        action="append",
        metavar="NAME",
        help=f"listen on this interface (repeatable; default ${ENV_INTERFACE}, else loopback)",
    )
    p.add_argument(
        "--broadcast",
        action="store_true",
        help="probe by broadcast instead of multicast (for networks that drop multicast)",
    )
    p.add_argument(
        "--wait", type=seconds, default=2.0, metavar="SECONDS", help="how long to listen (2)"
    )
    p.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"discovery UDP port ({DEFAULT_PORT})"
    )
    p.add_argument("--group", default=DEFAULT_GROUP, help=f"multicast group ({DEFAULT_GROUP})")
    p.add_argument("--json", action="store_true", help="print a JSON array")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        ifaces = interfaces_from(args.interface)
        config = DiscoveryConfig(group=args.group, port=args.port, broadcast=args.broadcast)
    except (InterfaceError, ValueError) as e:
        sys.stderr.write(f"hearts list: {e}\n")
        return 2
    if args.wait < 0:
        sys.stderr.write("hearts list: --wait must not be negative\n")
        return 2

    say_network_trouble(lambda text: sys.stderr.write(f"hearts list: {text}\n"))

    async def listen() -> tuple[list[TableInfo], float]:
        async with trio.open_nursery() as nursery:
            if args.wait > 0 and not args.json and sys.stderr.isatty():
                names = ", ".join(i.name for i in ifaces)
                what = f"listening for tables on {names}"
                nursery.start_soon(count_down, args.wait, what, sys.stderr)
            tables = await list_tables(ifaces, args.wait, config=config)
            nursery.cancel_scope.cancel()
        return tables, trio.current_time()

    tables, now = trio.run(listen)
    if args.json:
        sys.stdout.write(render_json(tables, now))
    elif tables:
        sys.stdout.write(render(tables, now))
    if not tables:
        heard, *hints = nothing_heard(ifaces, args.broadcast)
        if not args.json:
            sys.stdout.write(heard + "\n")
        sys.stderr.write("".join(f"hearts list: {hint}\n" for hint in hints))
    if (note := loopback_note(ifaces, lan_interfaces())) is not None:
        sys.stderr.write(f"hearts list: {note}\n")
    return 0 if tables else 1


def _jsonable(value: object) -> Any:
    """An announcement's values as JSON can hold them: its rules summary is whatever msgpack
    the host sent (bytes, maps keyed by numbers, non-finite floats), shown, never trusted."""
    if isinstance(value, dict):
        return {k if isinstance(k, str) else repr(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if value is None or isinstance(value, str | int | float):
        return value
    return repr(value)


def _rules(rules: dict[str, Any]) -> str:
    """The host's rules as a short line; announcements are hints, so anything odd shows raw."""
    try:
        return Rules.from_dict(rules).summary()
    except (RulesError, TypeError, ValueError, KeyError, AttributeError):
        return clean(" ".join(f"{k}={v}" for k, v in rules.items()), 200) or "-"


def _age(seconds: float) -> str:
    s = int(seconds)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


def render_json(tables: list[TableInfo], now: float) -> str:
    """The ``--json`` listing: any announcement, whatever its rules hold, safe on a terminal."""
    document = json.dumps([_jsonable(t.to_json(now)) for t in tables], indent=2)
    return json_escaped(document) + "\n"


def bots_text(labels: tuple[str, ...]) -> str:
    """The seated bots by level, as ``2 hard, 1 easy``; ``-`` for none."""
    counts = collections.Counter(clean(label, 16) for label in labels)
    return ", ".join(f"{n} {label}" for label, n in counts.items()) or "-"


def _seats(taken: int, total: int, open_seats: tuple[int, ...]) -> str:
    """``3/4``, and the seats of a playing table a newcomer may take: ``4/4 open:2``."""
    shown = f"{taken}/{total}"
    return shown + (" open:" + ",".join(map(str, open_seats)) if open_seats else "")


def _clock(timeout: int) -> str:
    """The table's clocks: ``90/120 s`` for a move, and for an absent player."""
    return f"{timeout * 3 // 4}/{timeout} s" if timeout else "-"


def render(tables: list[TableInfo], now: float) -> str:
    header = ("TABLE", "HOST", "FINGERPRINT", "SEATS", "STATE", "WATCHING", "BOTS", "CLOCK",
              "AGE", "ADDRESS", "RULES")  # fmt: skip
    rows = [header]
    for t in tables:
        ad = t.announcement
        rows.append(
            (
                clean(ad.table_name),
                clean(ad.host_name),
                t.host_fingerprint,
                _seats(ad.seats_taken, ad.seats_total, ad.open_seats),
                ad.state.value,
                str(ad.watchers),
                bots_text(ad.bots),
                _clock(ad.clock),
                _age(t.age(now)),
                f"{t.address}:{ad.port}",
                _rules(dict(ad.rules)),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(header) - 1)]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)) + "  " + r[-1] for r in rows
    ]
    return "\n".join(line.rstrip() for line in lines) + "\n"
