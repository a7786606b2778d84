"""``hearts games``: the games this player left unfinished, whether each can go on, and
``hearts games forget ID|--all`` so no command resumes one."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import trio

from hearts_p2p.node.store import DataDir
from hearts_p2p.node.unfinished import PROBE_WINDOW, Liveness, Unfinished, forget, probe
from hearts_p2p.node.unfinished import unfinished as unfinished_games
from hearts_p2p.text import json_escaped, quoted

from .args import HelpFormatter, data_dir_for, login_name
from .headless import write
from .overview import COMMANDS
from .resume import describe

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2
FORGET = "forget"


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "games",
        help=COMMANDS["games"],
        description="List the games this player left unfinished (a crash, a kill, a power "
        "cut): which table, when, the log, and whether the game can still go on — one of its "
        "other players answers within a few seconds. `hearts play`, `host`, `join` and `bot` "
        "resume such a game only if it can go on and the command asks for the same game; "
        "`forget` drops one, so that no command resumes it (its log stays).",
        epilog="examples:\n  hearts games\n  hearts games --name Bea\n"
        "  hearts games forget 1a2b3c4d\n  hearts games forget --all\n\n"
        "exit codes:\n  0    listed or forgotten\n  1    error (no such game, the player is "
        "playing now)\n  2    usage",
        formatter_class=HelpFormatter,
    )
    p.add_argument("action", nargs="?", choices=[FORGET], help="forget ID, or --all")
    p.add_argument("id", nargs="?", metavar="ID", help="the game's id as listed (4+ characters)")
    p.add_argument("--all", action="store_true", help="with forget: every unfinished game")
    p.add_argument("--name", help="the player (default: your login name)")
    p.add_argument("--data-dir", type=Path, help="the player's directory, instead of --name's")
    p.add_argument("--json", action="store_true", help="the list as one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        store = DataDir(_root(args))
        if args.action == FORGET:
            return _forget(store, args)
        if args.id is not None or args.all:
            raise ValueError("an ID or --all goes with forget: hearts games forget ID")
    except ValueError as e:
        sys.stderr.write(f"hearts games: {e}\n")
        return EXIT_USAGE
    return _list(store, args.json)


def _root(args: argparse.Namespace) -> Path:
    if args.data_dir is not None:
        return Path(args.data_dir)
    name = args.name or login_name()
    if not 0 < len(name) <= 32 or not name.isprintable():
        raise ValueError("--name must be 1 to 32 printable characters")
    return data_dir_for(name, is_bot=False)


def _list(store: DataDir, as_json: bool) -> int:
    games = unfinished_games(store)
    holder = store.holder()
    lives: list[Liveness | None] = [None] * len(games)
    if holder is None and games:
        lives = trio.run(_probe_all, store, games)
    if as_json:
        write(sys.stdout, _json(store, games, lives, holder))
        return EXIT_OK
    if not games:
        write(sys.stdout, f"no unfinished game in {store.root}\n")
        return EXIT_OK
    lines = []
    for game, live in zip(games, lives, strict=True):
        lines.append(describe(game))
        lines.append(f"  {_can_go_on(game, live, holder)}")
        lines.append(f"  log: {game.log} (check it: hearts audit {game.log})")
    lines.append("hearts games forget ID forgets one, --all every one: no command resumes it")
    write(sys.stdout, "\n".join(lines) + "\n")
    return EXIT_OK


async def _probe_all(store: DataDir, games: list[Unfinished]) -> list[Liveness | None]:
    found: list[Liveness | None] = [None] * len(games)

    async def one(i: int) -> None:
        if games[i].genesis is not None:
            found[i] = await probe(store, games[i])

    async with trio.open_nursery() as nursery:
        for i in range(len(games)):
            nursery.start_soon(one, i)
    return found


def _can_go_on(game: Unfinished, live: Liveness | None, holder: int | None) -> str:
    if holder is not None:
        return f"being played now, by another hearts process (pid {holder})"
    if live is None:
        return "cannot go on: its log cannot be read"
    if live.goes_on:
        return f"can go on: {live.text()}; the command that started it resumes it"
    return f"cannot go on: {live.text()}; the next {game.role.value} command forgets it"


def _json(
    store: DataDir, games: list[Unfinished], lives: list[Liveness | None], holder: int | None
) -> str:
    rows: list[dict[str, Any]] = []
    for game, live in zip(games, lives, strict=True):
        rows.append(
            {
                "id": game.id,
                "game_id": game.state.game_id.hex(),
                "role": game.role.value,
                "table": game.table,
                "rules": game.rules.summary() if game.rules is not None else None,
                "started": game.started,
                "last_played": game.last_played,
                "log": str(game.log),
                "can_go_on": live.goes_on if live is not None else None,
                "why": _can_go_on(game, live, holder),
            }
        )
    document = {
        "data_dir": str(store.root),
        "playing_now": holder is not None,
        "probe_seconds": PROBE_WINDOW,
        "games": rows,
    }
    return json_escaped(json.dumps(document, indent=2, ensure_ascii=False)) + "\n"


def _forget(store: DataDir, args: argparse.Namespace) -> int:
    if (args.id is None) == (not args.all):
        raise ValueError("forget takes one ID, or --all")
    wanted = "" if args.all else args.id.lower()
    if not args.all and len(wanted) < 4:
        raise ValueError(f"an ID is 4 or more characters of a listed id, not {quoted(args.id)}")
    if store.holder() is not None:
        sys.stderr.write(
            f"hearts games: a hearts process is playing from {store.root} now; "
            "leave that game first\n"
        )
        return EXIT_ERROR
    games = [g for g in unfinished_games(store) if g.state.game_id.hex().startswith(wanted)]
    if not args.all and not games:
        sys.stderr.write(f"hearts games: no unfinished game {quoted(args.id)} (see hearts games)\n")
        return EXIT_ERROR
    for game in games:
        forget(store, game)
        write(sys.stdout, f"forgot {describe(game)}\n  its log stays: {game.log}\n")
    if not games:
        write(sys.stdout, f"no unfinished game in {store.root}\n")
    return EXIT_OK
