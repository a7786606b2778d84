"""The arguments of ``hearts play``, ``host``, ``join`` and ``bot``, and what they mean: the
rules of the table and the options of this peer."""

from __future__ import annotations

import argparse
import getpass
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from hearts_p2p.discovery import DEFAULT_GROUP, DEFAULT_PORT, DiscoveryConfig
from hearts_p2p.netif import ENV_INTERFACE, interfaces_from
from hearts_p2p.node.session import PeerOptions
from hearts_p2p.node.store import default_data_dir
from hearts_p2p.rules import PRESETS, GameKind, Moon, OpenSeats, Rules, RulesError, Ties
from hearts_p2p.system import current

from .levels import CHOICES, DEFAULT_BOT, Level
from .overview import COMMANDS
from .usage import seconds

Runner = Callable[[argparse.Namespace], int]

BOT_DELAY = 0.4
FIND_WAIT = 10.0  # seconds a joiner looks for its table: a LAN announces it every second or so
GAME_EXIT_CODES = """exit codes:
  0    the game was played to the end
  1    error (no table found, port in use, ...)
  2    usage
  3    game aborted (someone quit, a player was gone too long, a cheat was found)
  130  interrupted: Ctrl-C, SIGHUP (the terminal closed) or SIGTERM; you left the table"""


class HelpFormatter(argparse.HelpFormatter):
    """Wraps a description to the terminal; keeps an epilog's lines (examples, exit codes)."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if "\n" in text:
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)


def add_parsers(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], run: Mapping[str, Runner]
) -> None:
    """The four commands that sit at a table; ``run`` holds what each one does."""
    play = sub.add_parser(
        "play",
        help=COMMANDS["play"],
        description="Host a table on the LAN and fill every other seat with bot peers, so the "
        "game starts at once: you against three bots. Use --humans to keep seats for friends.",
        epilog="examples:\n  hearts play --name Ada\n  hearts play --name Ada --moon choice "
        "--target 50\n  hearts play --bot-level hard\n"
        "  hearts play --humans 1 --interface eth0   (one friend joins)\n\n" + GAME_EXIT_CODES,
        formatter_class=HelpFormatter,
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
    _json(play)
    _bot_choice(play, "--bot-strategy", "--bot-level")
    _bot_delay(play)
    play.set_defaults(func=run["play"])

    host = sub.add_parser(
        "host",
        help=COMMANDS["host"],
        description="Open a table, announce it on the LAN, and start when every seat is taken.",
        epilog="example:\n  hearts host --table Friday --bots 1 --interface eth0 --port 47300\n\n"
        + GAME_EXIT_CODES,
        formatter_class=HelpFormatter,
    )
    _common(host)
    _rules(host)
    host.add_argument("--table", help="table name (default: NAME's table)")
    host.add_argument("--bots", type=int, default=0, metavar="K", help="fill K seats with bots")
    host.add_argument(
        "--headless", action="store_true", help="a bot plays your seat too (no input)"
    )
    _json(host)
    _bot_choice(host, "--bot-strategy", "--bot-level")
    _bot_delay(host)
    host.set_defaults(func=run["host"])

    join = sub.add_parser(
        "join",
        help=COMMANDS["join"],
        description="Join a table by name or id (as `hearts list` shows), the only open one "
        "if no name is given, or the host at --peer HOST:PORT without discovery (over a VPN).",
        epilog="examples:\n  hearts join Friday --interface eth0\n"
        "  hearts join --peer 10.8.0.2:47300 --interface tun0   (over a VPN)\n"
        "  hearts join Friday --seat 2 --interface eth0   (an open seat of a running game)\n\n"
        + GAME_EXIT_CODES,
        formatter_class=HelpFormatter,
    )
    _common(join)
    join.add_argument("table", nargs="?", help="table name or id prefix")
    join.add_argument("--peer", metavar="HOST:PORT", help="the host's address, skipping discovery")
    _seat(join)
    _find_wait(join)
    join.set_defaults(func=run["join"])

    bot = sub.add_parser(
        "bot",
        help=COMMANDS["bot"],
        description="Join a table as a bot: a real peer with its own key, playing on its own.",
        epilog="examples:\n  hearts bot Friday --level hard --interface eth0\n"
        "  hearts bot Friday --strategy montecarlo --interface eth0\n\n" + GAME_EXIT_CODES,
        formatter_class=HelpFormatter,
    )
    _common(bot)
    bot.add_argument("table", nargs="?", help="table name or id prefix")
    bot.add_argument("--peer", metavar="HOST:PORT", help="the host's address, skipping discovery")
    _seat(bot)
    _find_wait(bot)
    _bot_choice(bot, "--strategy", "--level")
    bot.add_argument("--seed", type=int, help="seed for a reproducible bot")
    bot.add_argument(
        "--delay",
        type=seconds,
        default=0.0,
        metavar="SECONDS",
        help="wait this long before each play, so people can follow (0)",
    )
    bot.add_argument(
        "--quiet", action="store_true", help="print nothing but errors (no status lines)"
    )
    _json(bot)
    # Started by a host resuming its game: resume without asking whether it can go on.
    bot.add_argument("--resuming", action="store_true", help=argparse.SUPPRESS)
    bot.set_defaults(func=run["bot"])


def discovery_flags(p: argparse.ArgumentParser, what: str) -> None:
    """``--interface`` (for ``what``), ``--broadcast``, ``--discovery-port`` and ``--group``."""
    p.add_argument(
        "--interface",
        action="append",
        metavar="NAME",
        help=f"network interface for {what} (repeatable; default ${ENV_INTERFACE}, else loopback)",
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


def _seat(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--seat",
        type=int,
        metavar="N",
        help="take open seat N of a game being played (hearts list shows open:N), at the next "
        "hand, if the table's rules let a newcomer sit",
    )


def _find_wait(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--wait",
        type=seconds,
        default=FIND_WAIT,
        metavar="SECONDS",
        help=f"how long to look for the table on the LAN ({FIND_WAIT:g}; not used with --peer)",
    )


def find_wait(seconds: float) -> float:
    """``--wait`` as given, which must be some time: none would fail before a table is heard."""
    if not seconds > 0:  # NaN too
        raise ValueError("--wait must be positive")
    return seconds


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--name", help="your name at the table (default: your login name)")
    discovery_flags(p, "discovery and play")
    p.add_argument(
        "--port",
        type=int,
        default=0,
        help="TCP port to listen on for other players (default: any free port)",
    )
    p.add_argument(
        "--timeout",
        type=seconds,
        default=None,
        metavar="SECONDS",
        help="take a player's seat over when it is gone or silent this long; your own move is "
        "played for you after 3/4 of it (120; a joiner takes the host's)",
    )
    p.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="where keys and game logs live (default: one directory per --name under "
        "$XDG_DATA_HOME/hearts-p2p)",
    )
    p.add_argument("--verbose", action="store_true", help="log network events to stderr")
    p.add_argument(
        "--ask-last-card",
        action="store_true",
        help="ask for your last card of a hand too (by default it is played for you)",
    )
    p.add_argument("--timings", type=Path, help=argparse.SUPPRESS)  # for hearts bench game


def _rules(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("rules")
    g.add_argument(
        "--game",
        choices=[k.value for k in GameKind],
        default=GameKind.HEARTS.value,
        help="hearts (the default) or gongzhu (拱猪: exposures, the pig, the sheep)",
    )
    g.add_argument(
        "--preset",
        choices=sorted(PRESETS),
        help="standard (Microsoft, the default), omnibus (J♦ −10), spot (hearts by rank, to 500)",
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
    g.add_argument(
        "--claims",
        action="store_true",
        help="the player on lead may claim the rest when its cards win every trick (Gong Zhu "
        "always allows it)",
    )
    g.add_argument(
        "--open-seats",
        choices=[o.value for o in OpenSeats],
        default=OpenSeats.NO.value,
        help="who may take a seat the table plays once its player left: no (the default: only "
        "that player, coming back), anyone, or ask (every seated player says yes)",
    )
    gz = p.add_argument_group("Gong Zhu rules (with --game gongzhu)")
    gz.add_argument("--limit", type=int, help="the game ends once a total is -LIMIT or less (1000)")
    for flag, label in _GONGZHU_FLAGS.items():
        gz.add_argument(f"--{flag.replace('_', '-')}", action="store_true", help=label)


def _json(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--json",
        action="store_true",
        help="print the end of the game as one JSON object: status, totals by name, winners, "
        "the log and its final hash (with --headless for play and host)",
    )


def _bot_choice(p: argparse.ArgumentParser, flag: str, level_flag: str) -> None:
    p.add_argument(
        level_flag,
        dest="strategy",
        choices=[level.value for level in Level],
        help="how well the bots play: easy (rules of thumb), medium (a short Monte-Carlo "
        "search), hard (the strongest: a search that shoots and stops moons, searches its "
        "pass, solves the last tricks and plays to win the game); shown in their names",
    )
    p.add_argument(
        flag,
        dest="strategy",
        choices=CHOICES,
        help=f"bot strategy or level ({DEFAULT_BOT})",
    )
    p.set_defaults(strategy=DEFAULT_BOT)  # for both flags: one default for one destination


def _bot_delay(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--bot-delay",
        type=seconds,
        metavar="SECONDS",
        help=f"bots wait this long before each play so you can follow the trick "
        f"({BOT_DELAY}; 0 with --headless)",
    )


_GONGZHU_FLAGS = {
    "expose_all": "分牌全亮: Q♠ J♦ 10♣ A♥ must all be exposed",
    "expose_all_but_sheep": "除羊全亮: Q♠ 10♣ A♥ must be exposed, J♦ may not be",
    "hearts_by_rank": "按点计分: 2♥..10♥ score minus their rank (4♥ −10)",
    "force_fourth": "逼明: once three are exposed, the fourth's holder must expose it",
    "same_colour_discard": "同色垫牌: a discard off the led colour takes the trick",
    "partners": "打对家: seats across are partners, their results add up",
}
_HEARTS_FLAGS = {
    "preset": "--preset",
    "no_passing": "--no-passing",
    "moon": "--moon",
    "jack_of_diamonds": "--jack-of-diamonds",
    "spot_hearts": "--spot-hearts",
    "queen_breaks_hearts": "--queen-breaks-hearts",
    "target": "--target",
    "ties": "--ties",
    "claims": "--claims",
}


def rules_from(args: argparse.Namespace) -> Rules:
    open_seats = OpenSeats(getattr(args, "open_seats", OpenSeats.NO.value))
    if args.game == GameKind.GONGZHU.value:
        return replace(_gongzhu_rules(args), open_seats=open_seats)
    given = [f"--{f.replace('_', '-')}" for f in _GONGZHU_FLAGS if getattr(args, f)]
    if args.limit is not None:
        given.insert(0, "--limit")
    if given:
        raise RulesError(f"{', '.join(given)}: Gong Zhu rules, for --game gongzhu")
    return replace(_hearts_rules(args), open_seats=open_seats)


def _gongzhu_rules(args: argparse.Namespace) -> Rules:
    given = [flag for name, flag in _HEARTS_FLAGS.items() if getattr(args, name)]
    if given:
        raise RulesError(f"{', '.join(given)}: Hearts rules, not for --game gongzhu")
    if args.limit is not None and args.limit < 1:  # 0 would mean "the default" to Rules
        raise RulesError(f"--limit must be from 1 to 10000, not {args.limit}")
    d: dict[str, Any] = {f: bool(getattr(args, f)) for f in _GONGZHU_FLAGS}
    d |= {"game": GameKind.GONGZHU.value, "limit": args.limit or 0, "players": args.players or 4}
    return Rules.from_dict(d)


def _hearts_rules(args: argparse.Namespace) -> Rules:
    if args.target is not None and args.target < 1:  # 0 would mean "the default" to Rules
        raise RulesError(f"--target must be from 1 to 10000, not {args.target}")
    d: dict[str, Any] = PRESETS[args.preset or "standard"].to_dict()
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
        "claims": True if args.claims else None,
    }
    d.update({k: v for k, v in overrides.items() if v is not None})
    return Rules.from_dict(d)


def options_from(args: argparse.Namespace, *, is_bot: bool = False) -> PeerOptions:
    # Given but empty is a mistake to say, not a reason to play under the login name.
    name = args.name if args.name is not None else ("Bot" if is_bot else login_name())
    if not 0 < len(name) <= 32 or not name.isprintable():
        raise ValueError("--name must be 1 to 32 printable characters")
    if args.timeout is not None and args.timeout <= 0:
        raise ValueError("--timeout must be positive")
    if not 0 <= args.port < 65536:
        raise ValueError("--port must be 0..65535")
    return PeerOptions(
        data_dir=args.data_dir or data_dir_for(name, is_bot=is_bot),
        name=name,
        interfaces=interfaces_from(args.interface),
        discovery=DiscoveryConfig(
            group=args.group, port=args.discovery_port, broadcast=args.broadcast
        ),
        port=args.port,
        absent_timeout=args.timeout or 120.0,
        table_clock=args.timeout is None,
        is_bot=is_bot,
        timings=args.timings,
    )


def data_dir_for(name: str, *, is_bot: bool) -> Path:
    """A data directory per player name, so several players (and bots) can share a machine
    with no flags; the login name (in any case: ``Ada`` for ``ada``) keeps the directory it
    always had, so its games resume."""
    if not is_bot and name.casefold() == login_name().casefold():
        return default_data_dir()
    # Percent-encoded, dots too: every name its own folder, none of them "." or "..".
    safe = urllib.parse.quote(name, safe="").replace(".", "%2E")
    return default_data_dir() / "players" / current().folders.entry(safe)


def login_name() -> str:
    """The login name as a player name: what --name means when it is not given."""
    try:
        return getpass.getuser()[:32] or "Player"
    except (OSError, KeyError):
        return "Player"


def peer_from(text: str | None) -> tuple[str, int] | None:
    """The host's address given by ``--peer HOST:PORT``, if any."""
    if text is None:
        return None
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"--peer takes HOST:PORT, not {text!r}")
    return host, int(port)
