"""``hearts watch [TABLE]``: follow a table from no seat, checking the game as it is played.

It prints what ``hearts replay`` would, as it happens: the seats, each trick, each hand's passes
(once its cards are revealed) and scores, then the audit's verdict on the watcher's own copy of
the log. Exit codes: 0 a finished game that verifies, 3 an aborted one that verifies, 4 the
game or the host's feed does not verify, 1 no table, unreachable or refused, 2 usage.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from .args import HelpFormatter, discovery_flags
from .overview import COMMANDS
from .usage import seconds

__all__ = ["add_parser"]


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "watch",
        help=COMMANDS["watch"],
        description="Find a table on the LAN (by name or id, or the only one), wait for it to "
        "start if it is still forming, and follow its game from no seat: every trick and score "
        "as it happens, every message checked as the audit checks it, and at the end the "
        "audit's verdict. A watcher sees no hidden card and sends nothing into the game; the "
        "players see that you watch.",
        epilog="examples:\n  hearts watch\n  hearts watch Friday --name Kim --interface eth0\n\n"
        "exit codes:\n  0    a finished game that verifies\n  1    no table found, "
        "unreachable or refused\n  2    usage\n  3    an aborted game that verifies\n"
        "  4    the game or the host's feed does not verify\n"
        "  130  interrupted (Ctrl-C, SIGHUP or SIGTERM)",
        formatter_class=HelpFormatter,
    )
    p.add_argument("table", nargs="?", help="table name or id prefix (default: the only one)")
    p.add_argument("--name", help="the name the players see (default: your login name)")
    discovery_flags(p, "discovery")
    p.add_argument(
        "--wait",
        type=seconds,
        default=10.0,
        metavar="SECONDS",
        help="how long to look for the table (10)",
    )
    p.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="where the watched game's log is kept (default: $XDG_DATA_HOME/hearts-p2p, "
        "under watched/)",
    )
    p.add_argument("--verbose", action="store_true", help="log network events to stderr")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    """The watch itself (the node, the audit) loads only for this command."""
    from .watching import run

    return run(args)
