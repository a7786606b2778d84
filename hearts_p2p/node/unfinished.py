"""The games a player left unfinished, and whether each can still go on.

A program stopped mid-game (a crash, a kill, a power cut) leaves a pointer to its game, so the
same command run again resumes it. A game resumed into a table that has gone on, or gone, would
wait for players who will never answer; so a game is resumed only if it can go on, which is
tested in a bounded time: a running peer's node answers at once, so one of the game's other
players answering within ``PROBE_WINDOW`` means the table is still there. The question is asked
as a stranger (a throwaway key): the peer's node proves its own key for this game, as it does
to any watcher, and the other players see nothing of it. The host's own bot peers that left
the game unfinished too count as able to go on: the host starts them again, and they resume.
"""

from __future__ import annotations

import contextlib
import math
import os
import signal
import time
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

import trio

from ..game import GameProtocol, Genesis, GenesisError, ProtocolError, Status
from ..identity import Identity, IdentityError
from ..log import GameLog, LogCorrupt, read_log
from ..rules import Rules
from ..transport import TransportError, open_connection
from ..wire import WireError, decode_frame
from .session import bot_resumes
from .store import DataDir, ResumeState

__all__ = [
    "PROBE_WINDOW",
    "Liveness",
    "Role",
    "Unfinished",
    "ago",
    "forget",
    "leave",
    "probe",
    "restartable",
    "unfinished",
]

PROBE_WINDOW = 5.0  # seconds to hear from one of the other players: a running node answers in
# milliseconds; one restarting at the same moment listens again within a second or two
_RETRY = 0.5  # seconds between two tries at one player that did not answer
_ATTEMPT = 2.0  # seconds one try (connect and prove the key) may take
BOTS_GONE = 3.0  # seconds a forgotten game's bots have to leave it


class Role(StrEnum):
    """Which pointer a game was left under: a table this player hosted, or one it joined."""

    HOST = "host"
    JOIN = "join"


@dataclass(frozen=True)
class Unfinished:
    """One unfinished game, as its pointer, its saved state and the start of its log say."""

    role: Role
    state: ResumeState
    log: Path
    genesis: Genesis | None  # None: the log cannot be read (the game cannot be resumed either)
    last_played: float | None  # the log's last write, seconds since the epoch

    @property
    def id(self) -> str:
        """The short id the screen shows, and ``hearts games forget`` takes."""
        return self.state.game_id.hex()[:8]

    @property
    def table(self) -> str | None:
        return self.genesis.table_name if self.genesis is not None else None

    @property
    def rules(self) -> Rules | None:
        return self.genesis.rules if self.genesis is not None else None

    @property
    def started(self) -> int | None:
        return self.genesis.created if self.genesis is not None else None

    def named(self, text: str) -> bool:
        """Whether ``text`` names this game's table: its name, its id, or 4+ hex of the id."""
        hexid = self.state.game_id.hex()
        return text in (self.table, hexid) or (len(text) >= 4 and hexid.startswith(text.lower()))


def unfinished(store: DataDir) -> list[Unfinished]:
    """The games left unfinished in ``store``, one per role at most, readable or not."""
    found = []
    for role in Role:
        state = store.unfinished(role.value)
        if state is not None:
            log = store.game(state.game_id).log
            found.append(Unfinished(role, state, log, _genesis(log), _mtime(log)))
    return found


def leave(store: DataDir, game: Unfinished) -> bool:
    """End the game's log with this player's own signed leave, as a quit would have: the game
    it will not go back to then audits VALID, "left", instead of stopping mid-step. Whether the
    log now ends the game (a log already ended, or a seat the table plays, is left as it is)."""
    files = store.game(game.state.game_id)
    try:
        saved = files.secrets.load()
        secret = saved.get("secret")
        if not isinstance(secret, bytes):
            return False
        choices = saved.get("choices") if isinstance(saved.get("choices"), dict) else {}
        if not store.identity_path.exists():
            return False
        identity = store.identity()
        proto = GameProtocol(game.state.game_id, game.state.host_key, identity, secret, choices)
        log = GameLog.open(files.log)
        try:
            proto.resume(log.entries)
            me, genesis = proto.me, proto.genesis
            if genesis is not None and me is not None and proto.status is Status.RUNNING:
                proto.quit(genesis.players[me].name)
            kept = proto.log_kept
            _, entries, _ = proto.drain()
            log.truncate(min(kept, len(log)))
            for entry in entries:
                log.append(entry)
            log.sync()
        finally:
            log.close()
        return proto.status is not Status.RUNNING
    except (OSError, ValueError, LogCorrupt, IdentityError, ProtocolError):
        return False  # left as it stopped: the audit says where


def forget(store: DataDir, game: Unfinished) -> None:
    """Drop the pointer, so no command resumes the game; its log and files stay. The host's
    bots forget it too, and those still playing it leave it (a SIGTERM, their quit): they
    would play on for nobody, and hold the directories a new table's bots need. Returns once
    they are gone, or after ``BOTS_GONE`` seconds."""
    store.finished(game.role.value)
    playing = []
    for bot_dir in sorted((store.root / "bots").glob("bot*")):
        if bot_resumes(bot_dir, game.state.game_id):
            bot = DataDir(bot_dir)
            pid = bot.holder()
            if pid:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGTERM)
                playing.append(bot)
            bot.finished(Role.JOIN.value)
    deadline = time.monotonic() + BOTS_GONE
    while any(b.holder() is not None for b in playing) and time.monotonic() < deadline:
        time.sleep(0.05)


@dataclass(frozen=True)
class Liveness:
    """What the test found: the players whose nodes answered for this game, the host's own
    bots that can be started again into it, and how many players were asked."""

    answered: tuple[str, ...]
    restartable: tuple[str, ...]
    asked: int

    @property
    def goes_on(self) -> bool:
        return bool(self.answered or self.restartable)

    def text(self, window: float = PROBE_WINDOW) -> str:
        """``Bot 1 answers`` / ``its bots Bot 2, Bot 3 start again`` / why it cannot go on."""
        if self.answered:
            verb = "answers" if len(self.answered) == 1 else "answer"
            return f"{', '.join(self.answered)} {verb}"
        if self.restartable:
            return f"its bots {', '.join(self.restartable)} start again"
        if not self.asked:
            return "it has no other player to ask"
        return f"none of its {self.asked} other players answered within {window:g} s"


async def probe(store: DataDir, game: Unfinished, window: float = PROBE_WINDOW) -> Liveness:
    """Whether ``game`` can go on, known within ``window`` seconds (at once when one of the
    host's bots can resume it, or a player answers)."""
    bots = restartable(store, game)
    own = _own_key(store)
    names = {p.key: p.name for p in game.genesis.players} if game.genesis is not None else {}
    others = [m for m in game.state.roster if m.public_key != own and m.address is not None]
    if bots or not others:
        return Liveness((), bots, len(others))
    answered: list[str] = []
    async with trio.open_nursery() as nursery:
        nursery.cancel_scope.deadline = trio.current_time() + window

        async def ask(key: bytes, address: tuple[str, int]) -> None:
            if await _answers(key, address, game.state.game_id):
                answered.append(names.get(key, "a player"))
                nursery.cancel_scope.cancel()  # one is enough

        for m in others:
            assert m.address is not None
            nursery.start_soon(ask, m.public_key, m.address)
    return Liveness(tuple(answered), (), len(others))


async def _answers(key: bytes, address: tuple[str, int], game_id: bytes) -> bool:
    """Try, until cancelled, to reach the node of ``key`` playing ``game_id`` at ``address``:
    it must prove that key for that game. A throwaway key asks, so the node takes it for a
    watcher that left before its hello, and nobody at the table is told anything."""
    stranger = Identity.generate()
    while True:
        with contextlib.suppress(OSError, TransportError, trio.TooSlowError):
            with trio.fail_after(_ATTEMPT):
                conn = await open_connection(*address, stranger, game_id, expected=key)
            await trio.aclose_forcefully(conn)
            return True
        await trio.sleep(_RETRY)


def restartable(store: DataDir, game: Unfinished) -> tuple[str, ...]:
    """The host's own bots that stopped with ``game`` unfinished: started again, they resume."""
    bots = game.state.bots if game.role is Role.HOST else None
    if not bots:
        return ()
    count = int(bots.get("count", 0))
    dirs = {i: store.root / "bots" / f"bot{i}" for i in range(1, count + 1)}
    return tuple(
        f"Bot {i}"
        for i, d in dirs.items()
        if bot_resumes(d, game.state.game_id) and DataDir(d).holder() is None
    )  # fmt: skip  (a bot still running answers for itself)


def _own_key(store: DataDir) -> bytes | None:
    if not store.identity_path.exists():
        return None
    try:
        return store.identity().public_key
    except (IdentityError, OSError):
        return None


def _genesis(log: Path) -> Genesis | None:
    """The game's genesis, the log's first entry: its table, rules, players and start."""
    try:
        entries = read_log(log).entries
        if not entries:
            return None
        env = decode_frame(entries[0]).envelope
        return Genesis.from_wire(env.game_id, env.body)
    except (OSError, LogCorrupt, WireError, GenesisError):
        return None


def _mtime(path: Path) -> float | None:
    try:
        seconds = path.stat().st_mtime
    except OSError:
        return None
    return seconds if math.isfinite(seconds) else None


def ago(seconds: float, now: float | None = None) -> str:
    """``3 min ago``, ``2 h ago``, ``4 days ago``: how long since a time, roughly."""
    gone = max(0.0, (time.time() if now is None else now) - seconds)
    if gone < 90:
        return f"{gone:.0f} s ago"
    if gone < 90 * 60:
        return f"{gone / 60:.0f} min ago"
    if gone < 36 * 3600:
        return f"{gone / 3600:.0f} h ago"
    return f"{gone / 86400:.0f} days ago"
