"""What ``play``, ``host``, ``join`` and ``bot`` do with a game this player left unfinished.

Running the same command again resumes the game, if it can still go on (``unfinished.py``). A
command that asks for another game — other rules, another table, other bots — starts what it
asks: a player who types other flags wants them, and a game resumed with its own settings
instead would surprise more than one left behind, which the others play on without it. Either
way the screen says which, and what became of the old game: where its log is, how to check it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TextIO

import trio

from hearts_p2p.node.session import PeerOptions
from hearts_p2p.node.store import DataDir
from hearts_p2p.node.unfinished import (
    PROBE_WINDOW,
    Role,
    Unfinished,
    ago,
    forget,
    leave,
    probe,
    restartable,
    unfinished,
)
from hearts_p2p.rules import Rules
from hearts_p2p.text import quoted

from .headless import write


@dataclass(frozen=True)
class Asked:
    """What a command asks for, held against an unfinished game's own settings. ``None``
    asks nothing of that kind (a ``join`` with no table name takes any)."""

    table: str | None = None
    rules: Rules | None = None
    bots: tuple[int, str] | None = None  # how many bot peers, and their level or strategy
    peer: tuple[str, int] | None = None
    timeout: float | None = None  # --timeout, if given
    port: int = 0  # --port, if given


def settle(opts: PeerOptions, role: Role, asked: Asked, out: TextIO | None) -> None:
    """Leave the unfinished game of ``role`` in place to be resumed only if this command asks
    for that game and it can go on; else forget it, saying why on ``out`` (None: silently).
    Takes at most ``PROBE_WINDOW`` seconds."""
    store = DataDir(opts.data_dir)
    game = next((g for g in unfinished(store) if g.role is role), None)
    if game is None:
        return

    def say(line: str) -> None:
        if out is not None:
            write(out, line + "\n")

    say(f"Unfinished game {describe(game)}.")
    differs = differences(game, asked)
    if game.genesis is None:
        say("Its log cannot be read, so it cannot be resumed. Starting the new game as asked; "
            "the old one is forgotten.")  # fmt: skip
    elif differs:
        say(f"It is not the game this command asks for: {'; '.join(differs)}.")
        say(
            "Starting the new one as asked; the old one is forgotten (if its other players "
            "play on, the table plays your seat)."
        )
    else:
        if not restartable(store, game):
            say(f"Asking its players whether it can go on (up to {PROBE_WINDOW:g} s)...")
        live = trio.run(probe, store, game)
        if live.goes_on:
            say(f"It can go on ({live.text()}): resuming it, with its own settings.")
            for line in ignored(game, asked):
                say(line)
            return
        say(f"It cannot go on: {live.text()}. Starting the new game as asked; the old one is "
            "forgotten.")  # fmt: skip
    if game.genesis is not None and leave(store, game):
        say(f"You left it: its log ends with your leave, as a quit's would: {game.log}")
    else:
        say(f"Its log, which ends where it stopped: {game.log}")
    say(f"Check it with: hearts audit {game.log}")
    forget(store, game)


def describe(game: Unfinished) -> str:
    """``1a2b3c4d: host of "Friday" (4 players, to 100), started 2026-12-07 04:31 UTC, last
    played 3 min ago``."""
    role = "host of" if game.role is Role.HOST else "joined"
    where = quoted(game.table) if game.table is not None else "an unreadable table"
    rules = f" ({game.rules.summary()})" if game.rules is not None else ""
    when = ""
    if game.started is not None:
        when = f", started {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(game.started))}"
    if game.last_played is not None:
        when += f", last played {ago(game.last_played)}"
    return f"{game.id}: {role} {where}{rules}{when}"


def differences(game: Unfinished, asked: Asked) -> list[str]:
    """What ``asked`` wants that ``game`` is not, one phrase each."""
    out = []
    if asked.table is not None and game.table is not None:
        same = asked.table == game.table if game.role is Role.HOST else game.named(asked.table)
        if not same:
            out.append(f"table {quoted(asked.table)} (it is {quoted(game.table)})")
    if asked.rules is not None and game.rules is not None and asked.rules != game.rules:
        out.append(f"rules {asked.rules.summary()} (it has {game.rules.summary()})")
    if asked.bots is not None:
        saved = game.state.bots or {}
        had = (int(saved.get("count", 0)), str(saved.get("strategy", "")))
        if asked.bots[0] != had[0] or (had[0] and asked.bots[1] != had[1]):
            out.append(f"{_bots(*asked.bots)} (it has {_bots(*had)})")
    if asked.peer is not None:
        addresses = {m.address for m in game.state.roster if m.address is not None}
        if asked.peer not in addresses:
            out.append(f"--peer {asked.peer[0]}:{asked.peer[1]} (not one of its players)")
    return out


def ignored(game: Unfinished, asked: Asked) -> list[str]:
    """The flags a resumed game cannot follow, each said with what the game keeps."""
    out = []
    clock = game.state.timeout
    if asked.timeout is not None and clock is not None and asked.timeout != clock:
        out.append(f"--timeout {asked.timeout:g} ignored: the game keeps its clock of {clock:g} s")
    if asked.port and asked.port != game.state.port:
        out.append(f"--port {asked.port} ignored: the game listens where it did, port "
                   f"{game.state.port}")  # fmt: skip
    return out


def _bots(count: int, strategy: str) -> str:
    if not count:
        return "no bots"
    return f"{count} bot{'s' if count > 1 else ''} ({strategy})"
