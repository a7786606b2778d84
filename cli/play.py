"""``hearts play``, ``host``, ``join`` and ``bot``: sit at a table and play a whole game."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import trio

from hearts_p2p.bots import BotError
from hearts_p2p.bots.botseat import BotSeat
from hearts_p2p.frontend import FrontEnd
from hearts_p2p.game import Status
from hearts_p2p.netif import InterfaceError
from hearts_p2p.node import (
    BotSpec,
    GameRunner,
    Outcome,
    PeerOptions,
    SessionError,
    host_game,
    join_game,
)
from hearts_p2p.node.store import DataDir
from hearts_p2p.node.unfinished import Role
from hearts_p2p.rules import PRESETS, RulesError
from hearts_p2p.system.dirlock import try_lock
from hearts_p2p.text import quoted

from .args import BOT_DELAY, find_wait, options_from, peer_from, rules_from
from .args import add_parsers as add_table_parsers
from .datadir import unwritable
from .headless import ReportingSeat, bar_stream, outcome_json, outcome_lines, stream, write
from .lan import lan_interfaces, loopback_note
from .leaving import LEAVING_SIGNALS, detach_terminal, is_hangup, leaving_text
from .levels import bot_for, level_name
from .lineinput import HISTORY_FILE, EditedLines, edited, plain_lines
from .netlog import say_network_trouble
from .render import Screen, Style
from .resume import Asked, settle
from .seats import no_seat_at
from .terminal import TerminalSeat

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_ABORTED, EXIT_INTERRUPTED = 0, 1, 2, 3, 130


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    add_table_parsers(sub, {"play": run_play, "host": run_host, "join": run_join, "bot": run_bot})


def _setup(args: argparse.Namespace, *, is_bot: bool = False) -> PeerOptions | int:
    if args.verbose:
        logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s")
    else:
        level = logging.ERROR if getattr(args, "quiet", False) else logging.WARNING

        def say(text: str) -> None:
            write(sys.stderr, f"hearts {args.command}: {text}\n")

        say_network_trouble(say, level)
    try:
        opts = options_from(args, is_bot=is_bot)
    except (ValueError, InterfaceError) as e:
        sys.stderr.write(f"hearts {args.command}: {e}\n")
        return EXIT_USAGE
    if (problem := unwritable(opts.data_dir)) is not None:
        sys.stderr.write(f"hearts {args.command}: {problem}\n")
        return EXIT_ERROR
    if _held_elsewhere(opts.data_dir):
        sys.stderr.write(
            f"hearts {args.command}: another hearts process is using {opts.data_dir}; "
            "give this player another --name or --data-dir\n"
        )
        return EXIT_ERROR
    return opts


def _held_elsewhere(root: Path) -> bool:
    """Whether another process plays from this data directory, checked up front to say what to
    do about it; the session's own lock still decides, should one start in between."""
    try:
        with open(root / "lock", "rb") as f:
            if not try_lock(f.fileno()):  # a lock taken here is released by the close
                return True
    except OSError:  # no lock file yet, or none readable: the session will say
        return False
    return False


Start = Callable[[FrontEnd, trio.TaskStatus[GameRunner]], Awaitable[Outcome]]


class LeftTable(SessionError):
    """The player left (quit or Ctrl-C) before the game started."""


class _Controls:
    """Say and quit, forwarded to the game once it runs; Ctrl-C is a quit that does not ask."""

    def __init__(self, tell: Callable[[str], None] | None = None) -> None:
        self.runner: GameRunner | None = None
        self.before_start: trio.CancelScope | None = None
        self.interrupted = False
        self.tell = tell

    def attach(self, runner: GameRunner) -> None:
        self.runner = runner

    def say(self, text: str) -> None:
        if self.runner is not None:
            self.runner.say(text)

    def consent(self, newcomer: bytes, yes: bool) -> None:
        if self.runner is not None:
            self.runner.consent(newcomer, yes)

    def quit(self) -> None:
        if self.runner is not None:
            self.runner.quit()
        elif self.before_start is not None:
            self.before_start.cancel()

    async def watch_interrupts(self) -> None:
        """The first Ctrl-C, hang-up or SIGTERM leaves the table as ``quit`` does, so the others
        hear at once and no unfinished game is left behind to resume; a second one stops
        without waiting (leaving.py)."""
        with trio.open_signal_receiver(*LEAVING_SIGNALS) as signals:
            async for signum in signals:
                if is_hangup(signum):
                    detach_terminal()
                if self.interrupted:
                    raise KeyboardInterrupt
                self.interrupted = True
                if self.tell is not None:
                    self.tell(leaving_text(signum))
                self.quit()


async def _session(
    opts: PeerOptions,
    start: Start,
    front: FrontEnd,
    controls: _Controls,
    reader: Callable[[], Awaitable[None]] | None = None,
) -> Outcome:
    """Run ``start`` with ``front`` in the seat, quit and Ctrl-C wired to the game."""
    outcome: Outcome | None = None

    async def play(task_status: trio.TaskStatus[GameRunner]) -> None:
        nonlocal outcome
        outcome = await start(front, task_status)
        nursery.cancel_scope.cancel()

    async with trio.open_nursery() as nursery:
        controls.before_start = nursery.cancel_scope
        nursery.start_soon(controls.watch_interrupts)
        if reader is not None:
            nursery.start_soon(reader)
        controls.attach(await nursery.start(play))
    if outcome is None:
        raise LeftTable("left the table before the game started")
    return outcome


def _with_terminal(args: argparse.Namespace, opts: PeerOptions, start: Start) -> int:
    """The person at this terminal plays the seat; the screen shows the whole game. On a
    terminal that can draw one, the person types on an editor line kept below it
    (lineinput.py), which completes the words the seat offers."""
    if not edited(sys.stdin, sys.stdout):
        return _at_terminal(args, opts, start, Screen(sys.stdout), plain_lines)
    seats: list[TerminalSeat] = []  # the one seat, made below, once the screen is

    def words() -> list[str]:
        return seats[0].words() if seats else []

    style = Style.for_stream(sys.stdout)  # the terminal's own, before its output is wrapped
    with EditedLines(opts.data_dir / HISTORY_FILE, words) as line, line.output() as out:
        screen = Screen(out, style, asker=line.show)
        return _at_terminal(args, opts, start, screen, line.lines, seats)


def _at_terminal(
    args: argparse.Namespace,
    opts: PeerOptions,
    start: Start,
    screen: Screen,
    lines: Callable[[], AsyncIterator[str]],
    made: list[TerminalSeat] | None = None,
) -> int:
    if not args.verbose:
        say_network_trouble(lambda text: screen.line(f"[{text}]"))
    controls = _Controls(screen.line)
    seat = TerminalSeat(screen, controls, play_last_card=not args.ask_last_card)
    if made is not None:
        made.append(seat)

    async def main() -> Outcome:
        return await _session(opts, start, seat, controls, lambda: seat.run(lines()))

    return _run(args, main, controls, terminal=True)


def _host(args: argparse.Namespace, humans_or_bots: tuple[int, int]) -> int:
    opts = _setup(args)
    if isinstance(opts, int):
        return opts
    try:
        rules = rules_from(args)
    except RulesError as e:
        sys.stderr.write(f"hearts {args.command}: {e}\n")
        return EXIT_USAGE
    if args.json and not args.headless:
        sys.stderr.write(f"hearts {args.command}: --json needs --headless\n")
        return EXIT_USAGE
    humans, bots = humans_or_bots
    if bots < 0 or humans < 0 or bots + humans > rules.players - 1:
        sys.stderr.write(
            f"hearts {args.command}: a {rules.players}-player table has "
            f"{rules.players - 1} seats besides yours\n"
        )
        return EXIT_USAGE
    delay = args.bot_delay if args.bot_delay is not None else (0 if args.headless else BOT_DELAY)
    if delay < 0:
        sys.stderr.write(f"hearts {args.command}: --bot-delay must not be negative\n")
        return EXIT_USAGE
    note = loopback_note(opts.interfaces, lan_interfaces())
    if note is not None and (args.command == "host" or humans):  # seats wait for people
        (sys.stderr if args.headless else sys.stdout).write(f"hearts {args.command}: {note}\n")
    table = args.table or f"{opts.name}'s table"
    spec = BotSpec(bots, args.strategy, delay=delay)
    asked = Asked(table[:32], rules, (bots, args.strategy), None, args.timeout, args.port)
    settle(opts, Role.HOST, asked, sys.stderr if args.headless else sys.stdout)

    async def start(front: FrontEnd, task_status: trio.TaskStatus[GameRunner]) -> Outcome:
        return await host_game(opts, rules, table[:32], front, spec, task_status=task_status)

    if args.headless:
        bar = bar_stream(False, args.json)
        seat = ReportingSeat(BotSeat(bot_for(args.strategy, 0)), quoted(table[:32]), None, bar)
        return _headless(args, opts, start, seat)
    return _with_terminal(args, opts, start)


def _headless(
    args: argparse.Namespace,
    opts: PeerOptions,
    start: Start,
    seat: ReportingSeat,
    quiet: bool = False,
) -> int:
    def tell(text: str) -> None:
        if not quiet:
            sys.stderr.write(text + "\n")

    controls = _Controls(tell)

    async def main() -> Outcome:
        try:
            return await _session(opts, start, seat, controls)
        finally:
            seat.end_bar()  # however the game ended: what follows prints on a clean line

    return _run(args, main, controls, quiet=quiet, summary=seat)


def run_play(args: argparse.Namespace) -> int:
    players = args.players or PRESETS[args.preset or "standard"].players  # 4 for Gong Zhu too
    return _host(args, (args.humans, players - 1 - args.humans))


def run_host(args: argparse.Namespace) -> int:
    return _host(args, (0, args.bots))


def run_join(args: argparse.Namespace) -> int:
    opts = _setup(args)
    if isinstance(opts, int):
        return opts
    try:
        peer = peer_from(args.peer)
        wait = find_wait(args.wait)
    except ValueError as e:
        sys.stderr.write(f"hearts join: {e}\n")
        return EXIT_USAGE

    if args.seat is not None:
        return _with_terminal(args, opts, _sitting(opts, args.table, args.seat, wait))
    settle(opts, Role.JOIN, Asked(args.table, peer=peer, timeout=args.timeout, port=args.port),
           sys.stdout)  # fmt: skip
    if (refusal := _no_seat(opts, args.table, peer)) is not None:
        sys.stderr.write(f"hearts join: {refusal}\n")
        return EXIT_ERROR

    async def start(front: FrontEnd, task_status: trio.TaskStatus[GameRunner]) -> Outcome:
        return await join_game(opts, front, args.table, peer, wait, task_status=task_status)

    return _with_terminal(args, opts, start)


def _sitting(opts: PeerOptions, table: str | None, seat: int, wait: float) -> Start:
    """Take open seat ``seat`` of the running game ``table`` (sitting.py)."""

    async def start(front: FrontEnd, task_status: trio.TaskStatus[GameRunner]) -> Outcome:
        from hearts_p2p.node.sitting import find_open_seat, sit_down  # it loads the audit

        info = await find_open_seat(opts, table, seat, wait)
        if info is None:
            what = f"table {quoted(table)}" if table else "table"
            raise SessionError(f"found no playing {what} with seat {seat} open within "
                               f"{wait:g} s (hearts list shows open:N)")  # fmt: skip
        return await sit_down(opts, front, info, seat, task_status=task_status)

    return start


def _no_seat(opts: PeerOptions, table: str | None, peer: tuple[str, int] | None) -> str | None:
    """Why the table named cannot be joined, told at once; a game to resume needs no seat."""
    if peer is not None or DataDir(opts.data_dir).unfinished("join") is not None:
        return None
    return trio.run(no_seat_at, opts, table)


def run_bot(args: argparse.Namespace) -> int:
    opts = _setup(args, is_bot=True)
    if isinstance(opts, int):
        return opts
    opts.name = level_name(opts.name, args.strategy)
    try:
        peer = peer_from(args.peer)
        wait = find_wait(args.wait)
        bot = bot_for(args.strategy, args.seed if args.seed is not None else 0)
        if args.delay < 0:
            raise ValueError("--delay must not be negative")
    except (ValueError, BotError) as e:
        sys.stderr.write(f"hearts bot: {e}\n")
        return EXIT_USAGE

    if args.seat is None and not args.resuming:
        asked = Asked(args.table, peer=peer, timeout=args.timeout, port=args.port)
        settle(opts, Role.JOIN, asked, stream(args.quiet, args.json))
    if args.seat is None and (refusal := _no_seat(opts, args.table, peer)) is not None:
        sys.stderr.write(f"hearts bot: {refusal}\n")
        return EXIT_ERROR

    async def joined(front: FrontEnd, task_status: trio.TaskStatus[GameRunner]) -> Outcome:
        return await join_game(opts, front, args.table, peer, wait, task_status=task_status)

    start = joined if args.seat is None else _sitting(opts, args.table, args.seat, wait)

    if args.table is not None:
        where = quoted(args.table)
    else:
        where = args.peer if args.peer is not None else "the first open table"
    out = stream(args.quiet, args.json)
    bar = bar_stream(args.quiet, args.json)
    seat = ReportingSeat(BotSeat(bot, args.delay), where, out, bar)
    return _headless(args, opts, start, seat, quiet=args.quiet)


def _unwrapped(main: Callable[[], Awaitable[Outcome]]) -> Outcome:
    """Run ``main``; an interrupt or a session error comes out bare, not in an exception group."""
    try:
        outcome: Outcome = trio.run(main)
    except BaseExceptionGroup as group:
        leaves = _leaves(group)
        for kind in (KeyboardInterrupt, SessionError):
            for leaf in leaves:
                if isinstance(leaf, kind):
                    raise leaf from None
        raise
    return outcome


def _leaves(group: BaseExceptionGroup[BaseException]) -> list[BaseException]:
    out: list[BaseException] = []
    for e in group.exceptions:
        out += _leaves(e) if isinstance(e, BaseExceptionGroup) else [e]
    return out


def _run(
    args: argparse.Namespace,
    main: Callable[[], Awaitable[Outcome]],
    controls: _Controls,
    *,
    terminal: bool = False,
    quiet: bool = False,
    summary: ReportingSeat | None = None,
) -> int:
    """Run a session to its end and turn how it ended into an exit code.

    On a terminal the screen has already shown the result and the log; headless runs print the
    final scores by name and the log (or, with ``--json``, all of it as one object) instead.
    """
    try:
        outcome = _unwrapped(main)
    except LeftTable as e:
        if not quiet:
            sys.stderr.write(f"hearts {args.command}: {e}\n")
        return EXIT_INTERRUPTED if controls.interrupted else EXIT_ABORTED
    except SessionError as e:
        sys.stderr.write(f"hearts {args.command}: {e}\n")
        return EXIT_INTERRUPTED if controls.interrupted else EXIT_ERROR
    ended = outcome.status in (Status.FINISHED, Status.ABORTED)
    if summary is not None and getattr(args, "json", False):
        write(sys.stdout, outcome_json(outcome, summary))
    elif summary is not None and not quiet:
        write(sys.stdout, "".join(line + "\n" for line in outcome_lines(outcome, summary)))
    elif not quiet and (not terminal or not ended):
        sys.stdout.write(f"game log: {outcome.log_path}\n")
    if controls.interrupted:
        return EXIT_INTERRUPTED
    return EXIT_OK if outcome.status is Status.FINISHED else EXIT_ABORTED
