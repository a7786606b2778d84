"""``hearts play``, ``host``, ``join`` and ``bot``: sit at a table and play a whole game."""

from __future__ import annotations

import argparse
import getpass
import logging
import signal
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import trio

from hearts_p2p.bots import STRATEGIES, BotError, make_bot
from hearts_p2p.bots.botseat import BotSeat
from hearts_p2p.discovery import DEFAULT_GROUP, DEFAULT_PORT, DiscoveryConfig
from hearts_p2p.frontend import FrontEnd
from hearts_p2p.game import Status
from hearts_p2p.netif import ENV_INTERFACE, InterfaceError, interfaces_from
from hearts_p2p.node import (
    BotSpec,
    GameRunner,
    Outcome,
    PeerOptions,
    SessionError,
    default_data_dir,
    host_game,
    join_game,
)
from hearts_p2p.rules import PRESETS, Moon, Rules, RulesError, Ties

from .render import Screen
from .terminal import TerminalSeat, stdin_lines

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_ABORTED, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
BOT_DELAY = 0.4
GAME_EXIT_CODES = """exit codes:
  0    the game was played to the end
  1    error (no table found, port in use, ...)
  2    usage
  3    game aborted (someone quit, a player was gone too long, a cheat was found)
  130  interrupted (Ctrl-C)"""


class _HelpFormatter(argparse.HelpFormatter):
    """Wraps a description to the terminal; keeps an epilog's lines (examples, exit codes)."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if "\n" in text:
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    play = sub.add_parser(
        "play",
        help="play now: host a table and fill the empty seats with bots",
        description="Host a table on the LAN and fill every other seat with bot peers, so the "
        "game starts at once: you against three bots. Use --humans to keep seats for friends.",
        epilog="examples:\n  hearts play --name Ada\n  hearts play --name Ada --moon choice "
        "--target 50\n  hearts play --humans 1 --interface eth0   (one friend joins)\n\n"
        + GAME_EXIT_CODES,
        formatter_class=_HelpFormatter,
    )
    _common(play)
    _rules(play)
    play.add_argument("--table", help="table name (default: NAME's table)")
    play.add_argument(
        "--headless", action="store_true", help="a bot plays your seat too (all bots, no input)"
    )
    play.add_argument(
        "--humans",
        type=int,
        default=0,
        metavar="K",
        help="keep K seats for people who join (default 0)",
    )
    _bot_choice(play, "--bot-strategy")
    _bot_delay(play)
    play.set_defaults(func=run_play)

    host = sub.add_parser(
        "host",
        help="open a table on the LAN and wait for players",
        description="Open a table, announce it on the LAN, and start when every seat is taken.",
        epilog="example:\n  hearts host --table Friday --bots 1 --interface eth0 --port 47300\n\n"
        + GAME_EXIT_CODES,
        formatter_class=_HelpFormatter,
    )
    _common(host)
    _rules(host)
    host.add_argument("--table", help="table name (default: NAME's table)")
    host.add_argument("--bots", type=int, default=0, metavar="K", help="fill K seats with bots")
    host.add_argument(
        "--headless", action="store_true", help="a bot plays your seat too (no input)"
    )
    _bot_choice(host, "--bot-strategy")
    _bot_delay(host)
    host.set_defaults(func=run_host)

    join = sub.add_parser(
        "join",
        help="join a table found on the LAN, or at HOST:PORT",
        description="Join a table by name or id (as `hearts list` shows), the only open one "
        "if no name is given, or the host at --peer HOST:PORT without discovery (over a VPN).",
        epilog="examples:\n  hearts join Friday --interface eth0\n"
        "  hearts join --peer 10.8.0.2:47300 --interface tun0   (over a VPN)\n\n" + GAME_EXIT_CODES,
        formatter_class=_HelpFormatter,
    )
    _common(join)
    join.add_argument("table", nargs="?", help="table name or id prefix")
    join.add_argument("--peer", metavar="HOST:PORT", help="the host's address, skipping discovery")
    join.set_defaults(func=run_join)

    bot = sub.add_parser(
        "bot",
        help="run a headless bot peer",
        description="Join a table as a bot: a real peer with its own key, playing on its own.",
        epilog="example:\n  hearts bot Friday --strategy montecarlo --interface eth0\n\n"
        + GAME_EXIT_CODES,
        formatter_class=_HelpFormatter,
    )
    _common(bot)
    bot.add_argument("table", nargs="?", help="table name or id prefix")
    bot.add_argument("--peer", metavar="HOST:PORT", help="the host's address, skipping discovery")
    _bot_choice(bot, "--strategy")
    bot.add_argument("--seed", type=int, help="seed for a reproducible bot")
    bot.add_argument(
        "--delay",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="wait this long before each play, so people can follow (0)",
    )
    bot.add_argument("--quiet", action="store_true", help="print nothing but errors")
    bot.set_defaults(func=run_bot)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--name", help="your name at the table (default: your login name)")
    p.add_argument(
        "--interface",
        action="append",
        metavar="NAME",
        help=f"network interface for discovery and play (repeatable; default "
        f"${ENV_INTERFACE}, else lo)",
    )
    p.add_argument(
        "--broadcast", action="store_true", help="discover by broadcast instead of multicast"
    )
    p.add_argument(
        "--discovery-port",
        type=int,
        default=DEFAULT_PORT,
        metavar="PORT",
        help=f"discovery UDP port ({DEFAULT_PORT})",
    )
    p.add_argument("--group", default=DEFAULT_GROUP, help=f"multicast group ({DEFAULT_GROUP})")
    p.add_argument(
        "--port",
        type=int,
        default=0,
        help="TCP port to listen on for other players (default: any free port)",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=120.0,
        metavar="SECONDS",
        help="end the game when a player is gone this long (120)",
    )
    p.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="where keys and game logs live (default $XDG_DATA_HOME/hearts-p2p)",
    )
    p.add_argument("--verbose", action="store_true", help="log network events to stderr")
    p.add_argument("--timings", type=Path, help=argparse.SUPPRESS)  # for hearts bench game


def _rules(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("rules")
    g.add_argument(
        "--preset",
        choices=sorted(PRESETS),
        default="standard",
        help="standard (Microsoft), omnibus (J♦ −10), spot (hearts by rank, to 500)",
    )
    g.add_argument("--players", type=int, choices=(3, 4, 5, 6), help="players (4)")
    g.add_argument("--no-passing", action="store_true", help="never pass cards")
    g.add_argument(
        "--moon",
        choices=[m.value for m in Moon],
        help="shooting the moon: classic, negative, choice or off",
    )
    g.add_argument("--jack-of-diamonds", action="store_true", help="J♦ scores −10")
    g.add_argument("--spot-hearts", action="store_true", help="hearts score 2..14, Q♠ 25")
    g.add_argument(
        "--queen-breaks-hearts", action="store_true", help="once Q♠ is played, hearts may be led"
    )
    g.add_argument("--target", type=int, help="the game ends at this total (100; 500 spot)")
    g.add_argument("--ties", choices=[t.value for t in Ties], help="shared or play_on")


def _bot_choice(p: argparse.ArgumentParser, flag: str) -> None:
    p.add_argument(
        flag,
        dest="strategy",
        choices=sorted(STRATEGIES),
        default="heuristic",
        help="bot strategy (heuristic)",
    )


def _bot_delay(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--bot-delay",
        type=float,
        metavar="SECONDS",
        help=f"bots wait this long before each play so you can follow the trick "
        f"({BOT_DELAY}; 0 with --headless)",
    )


def rules_from(args: argparse.Namespace) -> Rules:
    d: dict[str, Any] = PRESETS[args.preset].to_dict()
    if args.spot_hearts or args.target is None:
        d["target"] = 0  # the preset's or the variant's default
    overrides = {
        "players": args.players,
        "passing": False if args.no_passing else None,
        "moon": args.moon,
        "jack_of_diamonds": True if args.jack_of_diamonds else None,
        "spot_hearts": True if args.spot_hearts else None,
        "queen_breaks_hearts": True if args.queen_breaks_hearts else None,
        "target": args.target,
        "ties": args.ties,
    }
    d.update({k: v for k, v in overrides.items() if v is not None})
    return Rules.from_dict(d)


def options_from(args: argparse.Namespace, *, is_bot: bool = False) -> PeerOptions:
    name = args.name or ("Bot" if is_bot else _login_name())
    if not 0 < len(name) <= 32 or not name.isprintable():
        raise ValueError("--name must be 1 to 32 printable characters")
    if args.timeout <= 0:
        raise ValueError("--timeout must be positive")
    if not 0 <= args.port < 65536:
        raise ValueError("--port must be 0..65535")
    return PeerOptions(
        data_dir=args.data_dir or default_data_dir(),
        name=name,
        interfaces=interfaces_from(args.interface),
        discovery=DiscoveryConfig(
            group=args.group, port=args.discovery_port, broadcast=args.broadcast
        ),
        port=args.port,
        absent_timeout=args.timeout,
        is_bot=is_bot,
        timings=args.timings,
    )


def _login_name() -> str:
    try:
        return getpass.getuser()[:32] or "Player"
    except (OSError, KeyError):
        return "Player"


def _peer(text: str | None) -> tuple[str, int] | None:
    if text is None:
        return None
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"--peer takes HOST:PORT, not {text!r}")
    return host, int(port)


def _setup(args: argparse.Namespace, *, is_bot: bool = False) -> PeerOptions | int:
    level = logging.INFO if args.verbose else logging.WARNING
    if getattr(args, "quiet", False) and not args.verbose:
        level = logging.ERROR
    logging.basicConfig(level=level, format="%(name)s: %(message)s")
    try:
        return options_from(args, is_bot=is_bot)
    except (ValueError, InterfaceError) as e:
        sys.stderr.write(f"hearts {args.command}: {e}\n")
        return EXIT_USAGE


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

    def quit(self) -> None:
        if self.runner is not None:
            self.runner.quit()
        elif self.before_start is not None:
            self.before_start.cancel()

    async def watch_interrupts(self) -> None:
        """The first Ctrl-C leaves the table as ``quit`` does, so the others hear at once and
        no unfinished game is left behind to resume; a second one stops without waiting."""
        with trio.open_signal_receiver(signal.SIGINT) as signals:
            async for _ in signals:
                if self.interrupted:
                    raise KeyboardInterrupt
                self.interrupted = True
                if self.tell is not None:
                    self.tell("interrupted: leaving the table (Ctrl-C again to stop at once)")
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
    """The person at this terminal plays the seat; the screen shows the whole game."""
    screen = Screen(sys.stdout)
    controls = _Controls(screen.line)
    seat = TerminalSeat(screen, controls)

    async def main() -> Outcome:
        return await _session(opts, start, seat, controls, lambda: seat.run(stdin_lines()))

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
    table = args.table or f"{opts.name}'s table"
    spec = BotSpec(bots, args.strategy, delay=delay)

    async def start(front: FrontEnd, task_status: trio.TaskStatus[GameRunner]) -> Outcome:
        return await host_game(opts, rules, table[:32], front, spec, task_status=task_status)

    if args.headless:
        return _headless(args, opts, start, BotSeat(make_bot(args.strategy, 0)))
    return _with_terminal(args, opts, start)


def _headless(
    args: argparse.Namespace, opts: PeerOptions, start: Start, seat: BotSeat, quiet: bool = False
) -> int:
    def tell(text: str) -> None:
        if not quiet:
            sys.stderr.write(text + "\n")

    controls = _Controls(tell)

    async def main() -> Outcome:
        return await _session(opts, start, seat, controls)

    return _run(args, main, controls, quiet=quiet)


def run_play(args: argparse.Namespace) -> int:
    players = args.players or PRESETS[args.preset].players
    return _host(args, (args.humans, players - 1 - args.humans))


def run_host(args: argparse.Namespace) -> int:
    return _host(args, (0, args.bots))


def run_join(args: argparse.Namespace) -> int:
    opts = _setup(args)
    if isinstance(opts, int):
        return opts
    try:
        peer = _peer(args.peer)
    except ValueError as e:
        sys.stderr.write(f"hearts join: {e}\n")
        return EXIT_USAGE

    async def start(front: FrontEnd, task_status: trio.TaskStatus[GameRunner]) -> Outcome:
        return await join_game(opts, front, args.table, peer, task_status=task_status)

    return _with_terminal(args, opts, start)


def run_bot(args: argparse.Namespace) -> int:
    opts = _setup(args, is_bot=True)
    if isinstance(opts, int):
        return opts
    try:
        peer = _peer(args.peer)
        bot = make_bot(args.strategy, args.seed if args.seed is not None else 0)
        if args.delay < 0:
            raise ValueError("--delay must not be negative")
    except (ValueError, BotError) as e:
        sys.stderr.write(f"hearts bot: {e}\n")
        return EXIT_USAGE

    async def start(front: FrontEnd, task_status: trio.TaskStatus[GameRunner]) -> Outcome:
        return await join_game(opts, front, args.table, peer, task_status=task_status)

    return _headless(args, opts, start, BotSeat(bot, args.delay), quiet=args.quiet)


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
) -> int:
    """Run a session to its end and turn how it ended into an exit code.

    On a terminal the screen has already shown the result and the log; headless runs print a
    two-line summary instead.
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
    if not quiet and (not terminal or not ended):
        if outcome.status is Status.FINISHED and outcome.result is not None:
            totals = " ".join(str(t) for t in outcome.result.totals)
            sys.stdout.write(f"final scores: {totals} (by seat)\n")
        sys.stdout.write(f"game log: {outcome.log_path}\n")
    if controls.interrupted:
        return EXIT_INTERRUPTED
    return EXIT_OK if outcome.status is Status.FINISHED else EXIT_ABORTED
