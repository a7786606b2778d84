"""What ``hearts``, ``hearts --help`` and ``hearts -h`` print: the commands, each with its line
of help, the examples and the exit codes. Kept apart from the commands' own parsers, whose
modules load the game, the network and trio (half a second), so that these answer at once;
each command's parser takes its line of help from ``COMMANDS``, so the two never differ."""

from __future__ import annotations

import argparse

from .usage import Parser, commands

__all__ = ["COMMANDS", "DESCRIPTION", "EPILOG", "overview_parser"]

DESCRIPTION = "Hearts (Microsoft rules) peer-to-peer on your LAN, with no trusted dealer."

# In the order ``hearts --help`` lists them.
COMMANDS = {
    "play": "play now: host a table and fill the empty seats with bots",
    "host": "open a table on the LAN and wait for players",
    "join": "join a table found on the LAN, or at HOST:PORT",
    "bot": "run a headless bot peer",
    "list": "show the tables on the local network",
    "watch": "watch a table from no seat, checking the game as it is played",
    "audit": "verify a finished game from its log, offline",
    "replay": "show a logged game trick by trick",
    "bench": "measure speed and strength",
    "sim": "check the protocol on many simulated tables with faults and cheats",
    "config": "show or change your settings (name, interface, preferred rules)",
    "games": "the games you left unfinished: whether each can go on; forget one",
}

EXAMPLES = """examples:
  hearts play                            you against three bots, on this machine only
  hearts play --bot-level hard --target 50
  hearts host --table Friday --bots 2    keep a seat for a friend, who types:
  hearts join Friday --name Bea
  hearts list --interface eth0           the tables on your LAN
  hearts watch Friday                    follow a table from no seat, checking it
  hearts bot Friday --level medium       a bot peer for someone's table
  hearts play --headless --json          a game of bots only, its end as JSON
  hearts audit GAME.log                  check a game from its log, offline
  hearts games                           the games you left unfinished, and if they can go on
  hearts sim --seeds 2000 --jobs 2       the promise checked on 2,000 simulated tables
  hearts COMMAND --help                  every option of a command

"""

EXIT_CODES = """exit codes:
  0    game completed or command succeeded
  1    error
  2    usage
  3    game aborted
  4    audit failed
  130  interrupted"""

EPILOG = EXAMPLES + EXIT_CODES


def overview_parser() -> argparse.ArgumentParser:
    """The top-level parser with each command named but none of its options: enough for
    ``hearts --help`` and the bare list, formatted exactly as the full parser's."""
    parser = Parser(
        prog="hearts",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="store_true", help="show the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, text in COMMANDS.items():
        sub.add_parser(name, help=text)
    return parser


def overview(argv: list[str]) -> str | None:
    """What to print for ``argv`` without loading any command, or None if it asks more."""
    if not argv:
        return commands(overview_parser())
    if argv in (["--help"], ["-h"]):
        return overview_parser().format_help()
    return None
