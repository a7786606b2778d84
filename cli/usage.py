"""Usage errors and the list of commands: short, since the full usage of a command with thirty
options buries the one line that says what was wrong."""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from typing import NoReturn

from hearts_p2p.text import escaped

__all__ = ["Parser", "commands", "parse", "seconds"]


class Parser(argparse.ArgumentParser):
    """An argument parser whose usage error is what is wrong, the command's usage on one line,
    and where the rest is; its subcommands' parsers are of this class too."""

    def error(self, message: str) -> NoReturn:
        message = escaped(message)  # it may repeat what was typed: NEL, escapes, controls
        self.exit(
            2, f"{self.prog}: {message}\nusage: {one_line(self)}  (more: {self.prog} --help)\n"
        )


def one_line(parser: argparse.ArgumentParser) -> str:
    """argparse's usage when it fits on a line; else the command, [OPTIONS], its arguments."""
    full = " ".join(parser.format_usage().removeprefix("usage: ").split())
    if len(full) <= 80:
        return full
    formatter = parser._get_formatter()
    words = [parser.prog, "[OPTIONS]"]
    for action in parser._get_positional_actions():
        default = formatter._get_default_metavar_for_positional(action)
        words.append(formatter._format_args(action, default))
    return " ".join(words)


def parse(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.Namespace:
    """``argv`` parsed; an unknown argument is the chosen command's usage error, not the top
    level's (which would show the usage of ``hearts`` for a mistake in ``hearts play``)."""
    args, extra = parser.parse_known_args(argv)
    if extra:
        chosen = _subcommands(parser).get(getattr(args, "command", None) or "", parser)
        chosen.error(f"unrecognized arguments: {' '.join(extra)}")
    return args


def commands(parser: argparse.ArgumentParser) -> str:
    """Every command with its one line of help: what a bare ``hearts`` prints."""
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    rows = [(c.dest, c.help or "") for a in actions for c in a._choices_actions]
    width = max(len(name) for name, _ in rows)
    lines = [f"  {name:<{width}}  {text}" for name, text in rows]
    return (
        f"{parser.description}\n\ncommands:\n" + "\n".join(lines) + "\n\n"
        f"{parser.prog} COMMAND --help shows a command's options; "
        f"{parser.prog} --help shows examples\n"
    )


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    out: dict[str, argparse.ArgumentParser] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            out.update(action.choices)
    return out


def seconds(text: str) -> float:
    """A length of time given on the command line: a finite number (each option says which are
    too small). ``nan`` and ``inf`` parse as floats, and would reach a timer that cannot take
    them."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds")
    return value
