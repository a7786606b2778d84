"""Entry point of the ``hearts`` command.

Exit codes: 0 game completed or command succeeded, 1 error, 2 usage, 3 game aborted,
4 audit failed, 130 interrupted.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import audit, bench, config, games, play, sim, watch
from . import list as list_command
from .overview import DESCRIPTION, EPILOG
from .usage import Parser, commands, parse
from .version import installed_version


def build_parser() -> argparse.ArgumentParser:
    # A usage.Parser, and so is each command's: add_subparsers makes its parent's kind.
    parser: argparse.ArgumentParser = Parser(
        prog="hearts",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="show the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    play.add_parsers(sub)
    list_command.add_parser(sub)
    watch.add_parser(sub)
    audit.add_parsers(sub)
    bench.add_parser(sub)
    sim.add_parser(sub)
    config.add_parser(sub)
    games.add_parser(sub)
    return parser


class _Version(argparse.Action):
    """``--version``, reading the installed distribution's metadata only when asked: loading
    ``importlib.metadata`` costs every other command a tenth of a second."""

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        sys.stdout.write(f"hearts {installed_version()}\n")
        parser.exit()


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else argv
    if not argv:  # bare ``hearts``: nothing went wrong, the commands are what is asked for
        sys.stdout.write(commands(parser))
        return 0
    args = parse(parser, argv)
    if args.command != "config" and (problem := config.apply(args)) is not None:
        sys.stderr.write(f"hearts {args.command}: {problem} (see hearts config)\n")
        return 1
    try:
        code: int = args.func(args)
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted\n")
        return 130
    return code


if __name__ == "__main__":
    sys.exit(main())
