"""Run a table announcement on its own, without the game: for tests and manual trials.

    python -m hearts_p2p.discovery announce --interface lo --port 47999 --name "test table"

It prints ``announcing TABLE_ID_HEX`` once the first announcement is out, and says goodbye on
SIGINT or SIGTERM (or after ``--for`` seconds).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import sys
from collections.abc import Sequence

import trio

from hearts_p2p.identity import Identity
from hearts_p2p.netif import InterfaceError, interfaces_from

from .announcer import announce
from .sockets import DEFAULT_GROUP, DEFAULT_PORT, DiscoveryConfig


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m hearts_p2p.discovery")
    sub = p.add_subparsers(dest="command", required=True)
    a = sub.add_parser("announce", help="announce a table that nobody can join")
    a.add_argument(
        "--interface", action="append", help="repeatable; default $HEARTS_INTERFACE or lo"
    )
    a.add_argument("--port", type=int, default=DEFAULT_PORT, help="discovery UDP port")
    a.add_argument("--group", default=DEFAULT_GROUP)
    a.add_argument("--broadcast", action="store_true")
    a.add_argument("--name", default="test table")
    a.add_argument("--host-name", default="tester")
    a.add_argument("--seats", type=int, default=4)
    a.add_argument("--taken", type=int, default=1)
    a.add_argument("--tcp-port", type=int, default=40000)
    a.add_argument("--rules", default="{}", help="rules summary as a JSON object")
    a.add_argument("--interval", type=float, default=2.0)
    a.add_argument("--table-id", help="32 hex digits; random by default")
    a.add_argument("--for", dest="duration", type=float, default=math.inf)
    return p


async def _announce(args: argparse.Namespace) -> None:
    ifaces = interfaces_from(args.interface)
    table_id = bytes.fromhex(args.table_id) if args.table_id else os.urandom(16)
    config = DiscoveryConfig(group=args.group, port=args.port, broadcast=args.broadcast)
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with trio.open_nursery() as nursery:
            await nursery.start(
                lambda task_status: announce(
                    Identity.generate(),
                    ifaces,
                    table_id=table_id,
                    host_name=args.host_name,
                    table_name=args.name,
                    rules=json.loads(args.rules),
                    seats_total=args.seats,
                    seats_taken=args.taken,
                    addresses=[iface.address for iface in ifaces][:4],
                    port=args.tcp_port,
                    config=config,
                    interval=args.interval,
                    task_status=task_status,
                )
            )
            print(f"announcing {table_id.hex()}", flush=True)
            with trio.move_on_after(args.duration):
                async for _ in signals:
                    break
            nursery.cancel_scope.cancel()


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        trio.run(_announce, args)
    except InterfaceError as e:
        sys.stderr.write(f"error: {e}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
