"""A player's whole session: host or join a table (or resume one), then play it to the end.

This is what the ``hearts`` commands call. It owns the sockets: the TCP listener (lobby, then
mesh), the announcer, the mesh, and the files under the data directory.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import secrets
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import trio

from ..discovery import Announcer, DiscoveryConfig, TableState, announce, open_browser
from ..discovery.directory import TableInfo
from ..engine import GameResult
from ..frontend import FrontEnd, Notice, shows_plays
from ..game import Abort, GameProtocol, Genesis, GenesisError, Player, Status, pass_public_key
from ..identity import Identity, IdentityError
from ..log import GameLog
from ..netif import Interface
from ..rules import Rules
from ..system import current
from ..text import clean, quoted
from ..transport import Member, open_mesh
from .herald import Herald
from .lobby import (
    HostLink,
    LobbyError,
    Seat,
    SeatChange,
    Welcome,
    host_lobby,
    join_lobby,
    start_players,
)
from .runner import GameRunner, RunnerConfig
from .store import DataDir, DataDirBusy, ResumeState
from .watch import FedLog, WatchService, serving_watchers

__all__ = ["BotSpec", "Outcome", "PeerOptions", "SessionError", "host_game", "join_game"]

log = logging.getLogger(__name__)


class SessionError(Exception):
    """The session could not start (no table found, lobby refused, port busy, …)."""


@dataclass
class PeerOptions:
    data_dir: Path
    name: str
    interfaces: Sequence[Interface]
    discovery: DiscoveryConfig = field(default_factory=DiscoveryConfig)
    port: int = 0
    absent_timeout: float = 120.0
    table_clock: bool = False  # a joiner takes the timeout the host announces
    is_bot: bool = False
    timings: Path | None = None  # benchmarks: when each play was sent and verified

    @property
    def address(self) -> str:
        """Where this peer listens: the first chosen interface, never every interface."""
        return self.interfaces[0].address


@dataclass(frozen=True)
class Outcome:
    status: Status
    log_path: Path
    final_hash: str
    result: GameResult | None
    abort: Abort | None


# How long the host waits for its bot peers to end by themselves, after a game played to the end
# (they write their last entries too), and after one it left (they leave at once when no person
# is left; bots playing on with people are stopped, since their player's program is gone), and
# how long a SIGTERMed bot has to sign its quit: the leaving stays within 2 s. Bots still in the
# lobby have nothing to finish, and are stopped at once.
BOTS_FINISH, BOTS_LEAVE, BOT_QUIT = 10.0, 1.0, 0.5


@dataclass(frozen=True)
class BotSpec:
    count: int
    strategy: str = "heuristic"
    seed: int | None = None
    delay: float = 0.0  # seconds a bot waits before each play, so a person can follow the trick


async def host_game(
    opts: PeerOptions,
    rules: Rules,
    table_name: str,
    front: FrontEnd,
    bots: BotSpec | None = None,
    on_listening: Callable[[str, int], None] | None = None,
    *,
    task_status: trio.TaskStatus[GameRunner] = trio.TASK_STATUS_IGNORED,
) -> Outcome:
    """Open a table, wait for it to fill (spawning bot peers if asked), and play.

    Started with ``nursery.start``, it hands back the game's runner once the game runs.
    """
    store = _locked(opts)
    identity = await _identity(store, opts, front)
    resume = store.unfinished("host")
    if resume is not None:
        return await _resume_host(store, identity, resume, opts, front, task_status)
    listener = await _listen(opts.address, opts.port)
    port = listener.socket.getsockname()[1]
    table = _NewTable(secrets.token_bytes(16), table_name, rules, port, secrets.token_bytes(32))
    store.game(table.game_id).secrets.save({"secret": table.secret, "choices": {}})
    if on_listening is not None:
        on_listening(opts.address, port)
    procs: list[trio.Process] = []
    grace = 0.0  # the table is still forming: nothing for the bots to finish
    try:
        async with trio.open_nursery() as nursery:
            announcer = await nursery.start(_announce, identity, opts, table)
            if bots is not None and bots.count:
                procs = await _spawn_bots(opts, bots, port)
            joined, conns = await _fill_table(
                listener, identity, opts, table, announcer, front, nursery
            )
            proto, roster = _open_game(store, opts, identity, table, joined, bots, front)
            grace = BOTS_LEAVE
            await start_players(conns, list(roster), 2.0)
            outcome = await _play(
                store, "host", identity, proto, roster, listener, opts, front,
                on_watchers=lambda n: announcer.update(watchers=n),
                on_open=lambda seats: announcer.update(open_seats=seats), task_status=task_status,
            )  # fmt: skip
            if outcome.status is Status.FINISHED:
                grace = BOTS_FINISH
            nursery.cancel_scope.cancel()
    finally:
        with trio.CancelScope(shield=True):  # the player left before the start, say
            await _reap(procs, grace)
    return outcome


@dataclass(frozen=True)
class _NewTable:
    """A table this peer hosts, until its game starts."""

    game_id: bytes
    name: str
    rules: Rules
    port: int
    secret: bytes  # this player's game secret: every key it uses derives from it


async def _resume_host(
    store: DataDir,
    identity: Identity,
    state: ResumeState,
    opts: PeerOptions,
    front: FrontEnd,
    task_status: trio.TaskStatus[GameRunner],
) -> Outcome:
    """Resume the hosted game, and the bot peers it started (each resumes its own)."""
    respawned: list[trio.Process] = []
    finished = False
    try:
        if state.bots:
            spec = BotSpec(**state.bots)
            respawned = await _spawn_bots(opts, spec, state.port, resuming=state.game_id)
        outcome = await _resume(store, "host", identity, state, opts, front, task_status)
        finished = outcome.status is Status.FINISHED
        return outcome
    finally:
        with trio.CancelScope(shield=True):
            await _reap(respawned, BOTS_FINISH if finished else BOTS_LEAVE)


async def _fill_table(
    listener: trio.SocketListener,
    identity: Identity,
    opts: PeerOptions,
    table: _NewTable,
    announcer: Announcer,
    front: FrontEnd,
    nursery: trio.Nursery,
) -> tuple[list[Seat], list[HostLink]]:
    """Seat joiners until the table is full, saying who joins and keeping the announcement's
    seat count current."""
    rules = table.rules
    await front.notify(Notice(f"Table {quoted(table.name)} open on {opts.address}:{table.port}; "
                              f"waiting for {rules.players - 1} player(s); "
                              f"{clock_text(opts.absent_timeout)}"))  # fmt: skip

    def changed(seats: list[Seat], seat: Seat, change: SeatChange) -> None:
        announcer.update(seats_taken=1 + len(seats), bots=bot_labels(seats))
        who = seat.who
        nursery.start_soon(front.notify, Notice(f"{who.name} {change.value} ({who.fingerprint})"))

    joined, conns = await host_lobby(
        listener, identity, table.game_id, table.name, rules.to_dict(), rules.players - 1, changed,
        clock=round(opts.absent_timeout),
    )  # fmt: skip
    announcer.update(state=TableState.PLAYING, seats_taken=rules.players)
    return joined, conns


def bot_labels(seats: Sequence[Seat]) -> list[str]:
    """What the announcement says of each seated bot: the level its name carries
    (``Bot 1 [hard]``), else just ``bot``."""
    labels = []
    for s in seats:
        if s.bot:
            tag = re.search(r" \[([a-z0-9-]{1,16})\]$", s.who.name)
            labels.append(tag.group(1) if tag else "bot")
    return labels


def _open_game(
    store: DataDir,
    opts: PeerOptions,
    identity: Identity,
    table: _NewTable,
    joined: Sequence[Seat],
    bots: BotSpec | None,
    front: FrontEnd,
) -> tuple[GameProtocol, tuple[Member, ...]]:
    """Propose the genesis (the host first, then the joiners in the order they came) and save
    it, and how to resume the game, before anyone can see it."""
    roster = (
        Member(identity.public_key, (opts.address, table.port)),
        *(Member(s.who.public_key, s.address) for s in joined),
    )
    proto = GameProtocol(
        table.game_id, identity.public_key, identity, table.secret, views=shows_plays(front)
    )
    players = (
        Player(opts.name, identity.public_key, proto.dh_public, opts.is_bot),
        *(Player(s.who.name, s.who.public_key, s.dh, s.bot) for s in joined),
    )
    try:
        genesis = Genesis(table.game_id, table.name, table.rules, players, int(time.time()))
    except GenesisError as e:  # a joiner that copied another's keys, say
        raise SessionError(f"cannot start the game: {e}") from None
    proto.propose(genesis)
    _write_entries(store.game(table.game_id).log, proto)
    saved_bots = dataclasses.asdict(bots) if bots is not None and bots.count else None
    state = ResumeState(table.game_id, identity.public_key, opts.name, table.port, roster,
                        saved_bots, opts.absent_timeout)  # fmt: skip
    store.save_unfinished("host", state)
    return proto, roster


async def _announce(
    identity: Identity,
    opts: PeerOptions,
    table: _NewTable,
    task_status: trio.TaskStatus[Announcer] = trio.TASK_STATUS_IGNORED,
) -> None:
    await announce(
        identity,
        opts.interfaces,
        table_id=table.game_id,
        host_name=opts.name,
        table_name=table.name,
        rules=table.rules.to_dict(),
        seats_total=table.rules.players,
        addresses=[opts.address],
        port=table.port,
        seats_taken=1,
        clock=round(opts.absent_timeout),
        config=opts.discovery,
        task_status=task_status,
    )


async def join_game(
    opts: PeerOptions,
    front: FrontEnd,
    table: str | None = None,
    peer: tuple[str, int] | None = None,
    find_timeout: float = 10.0,
    *,
    task_status: trio.TaskStatus[GameRunner] = trio.TASK_STATUS_IGNORED,
) -> Outcome:
    """Find a table (by name or id through discovery, or at ``peer``), take a seat, and play.

    Started with ``nursery.start``, it hands back the game's runner once the game runs.
    """
    store = _locked(opts)
    identity = await _identity(store, opts, front)
    resume = store.unfinished("join")
    if resume is not None:
        return await _resume(store, "join", identity, resume, opts, front, task_status)
    host_key, peer_given = None, peer is not None
    if peer is None:
        info = await _find(opts, table, find_timeout)
        peer, host_key = (info.address, info.announcement.port), info.announcement.host_key
        if opts.table_clock and info.announcement.clock:
            opts = replace(opts, absent_timeout=float(info.announcement.clock))
        await front.notify(Notice(_found(info)))
    listener = await _listen(opts.address, opts.port)
    port = listener.socket.getsockname()[1]
    secret = secrets.token_bytes(32)

    async def seated(w: Welcome) -> None:
        clock = f"; {clock_text(w.clock)}" if w.clock and peer_given else ""
        await front.notify(
            Notice(f"Seated at {quoted(w.table_name)}; waiting for the table to fill{clock}")
        )

    try:
        dh = pass_public_key(secret)
        at = (opts.address, port)
        welcome = await join_lobby(
            peer[0], peer[1], identity, opts.name, dh, opts.is_bot, at, host_key, seated
        )
    except LobbyError as e:
        raise SessionError(str(e)) from None
    opts = await _table_clock(opts, welcome, front)
    proto = GameProtocol(
        welcome.game_id, welcome.host_key, identity, secret, views=shows_plays(front)
    )
    files = store.game(welcome.game_id)
    files.secrets.save({"secret": secret, "choices": {}})
    roster = welcome.roster
    store.save_unfinished(
        "join",
        ResumeState(welcome.game_id, welcome.host_key, opts.name, port, roster,
                    timeout=opts.absent_timeout),
    )  # fmt: skip
    return await _play(
        store, "join", identity, proto, roster, listener, opts, front, task_status=task_status
    )


async def _table_clock(opts: PeerOptions, welcome: Welcome, front: FrontEnd) -> PeerOptions:
    """Follow the clock the host's welcome says, however this joiner found the table: with
    another, it would wait for its person while the table takes its seat over as stalled. A
    ``--timeout`` given is kept, and said to differ."""
    if welcome.clock is None or float(welcome.clock) == opts.absent_timeout:
        return opts
    if opts.table_clock:
        return replace(opts, absent_timeout=float(welcome.clock))
    await front.notify(Notice(f"your --timeout {opts.absent_timeout:g} is not the table's "
                              f"{welcome.clock} s: you may be taken over before you are asked "
                              "to play, or wait longer than the others"))  # fmt: skip
    return opts


def _found(info: TableInfo) -> str:
    ad = info.announcement
    clock = f"; {clock_text(ad.clock)}" if ad.clock else ""
    return (
        f"Found {quoted(ad.table_name)} hosted by {clean(ad.host_name)} ({info.host_fingerprint})"
        f"{clock}"
    )


def clock_text(timeout: float) -> str:
    """The table's clocks, as the lobby says them."""
    return (
        f"a move is played for you after {timeout * 0.75:.0f} s, "
        f"a silent seat is taken over after {timeout:.0f} s"
    )


def _locked(opts: PeerOptions) -> DataDir:
    store = DataDir(opts.data_dir)
    try:
        store.lock()
    except (DataDirBusy, OSError) as e:
        raise SessionError(str(e)) from None
    return store


async def _identity(store: DataDir, opts: PeerOptions, front: FrontEnd) -> Identity:
    """Load this player's key, making it on first run, and say which it is."""
    path = store.identity_path
    new = not path.exists()
    try:
        identity = store.identity()
    except (IdentityError, OSError) as e:
        raise SessionError(f"cannot use the identity key {path}: {e}") from None
    made = f" (a new key, kept in {path})" if new else ""
    await front.notify(Notice(f"You are {opts.name}, key {identity.fingerprint}{made}"))
    return identity


async def _find(opts: PeerOptions, table: str | None, timeout: float) -> TableInfo:
    def wanted(t: TableInfo) -> bool:
        a = t.announcement
        if a.state is not TableState.OPEN or a.seats_taken >= a.seats_total:
            return False
        return (
            table is None
            or table in (a.table_name, a.table_id.hex())
            or (len(table) >= 4 and a.table_id.hex().startswith(table.lower()))
        )

    async with open_browser(opts.interfaces, config=opts.discovery) as browser:
        with trio.move_on_after(timeout):
            return await browser.wait_for(wanted)
    what = f"table {quoted(table)}" if table else "open table"
    names = ", ".join(i.name for i in opts.interfaces)
    raise SessionError(f"found no {what} on {names} within {timeout:g} s (see hearts list)")


async def _listen(address: str, port: int) -> trio.SocketListener:
    try:
        listeners = await trio.open_tcp_listeners(port, host=address)
    except OSError as e:
        raise SessionError(f"cannot listen on {address}:{port}: {e.strerror or e}") from None
    return listeners[0]


async def _resume(
    store: DataDir,
    role: str,
    identity: Identity,
    state: ResumeState,
    opts: PeerOptions,
    front: FrontEnd,
    task_status: trio.TaskStatus[GameRunner],
) -> Outcome:
    """Rejoin the game this role was playing: replay our log, listen where we did, catch up."""
    files = store.game(state.game_id)
    saved = files.secrets.load()
    secret = saved.get("secret")
    if not isinstance(secret, bytes):
        store.finished(role)
        raise SessionError("the unfinished game's secrets are missing; it cannot be resumed")
    choices = saved.get("choices") if isinstance(saved.get("choices"), dict) else {}
    proto = GameProtocol(
        state.game_id, state.host_key, identity, secret, choices, views=shows_plays(front)
    )
    if state.timeout is not None:  # the table's clock, which the others keep too
        opts = replace(opts, absent_timeout=state.timeout)
    await front.notify(Notice(f"Resuming game {state.game_id.hex()[:8]} from {files.log}"))
    listener = await _listen(opts.address, state.port)
    return await _play(
        store, role, identity, proto, state.roster, listener, opts, front,
        resuming=True, task_status=task_status,
    )  # fmt: skip


async def _play(
    store: DataDir,
    role: str,
    identity: Identity,
    proto: GameProtocol,
    roster: Sequence[Member],
    listener: trio.SocketListener,
    opts: PeerOptions,
    front: FrontEnd,
    *,
    resuming: bool = False,
    on_watchers: Callable[[int], None] | None = None,
    on_open: Callable[[tuple[int, ...]], None] | None = None,
    dial_all: bool = False,
    task_status: trio.TaskStatus[GameRunner],
) -> Outcome:
    """Play the game over the mesh to its end; the runner goes back through ``task_status``.

    Every player's node serves watchers: each entry its log takes goes to them as well. The
    host's session announces the table; once the table plays the host's seat, the node the
    seat order names next announces it instead (``herald.py``).
    """
    files = store.game(proto.game_id)
    game_log = FedLog.open(files.log)
    if resuming:
        _replay_own_log(proto, game_log)
    secret = files.secrets.load().get("secret", b"")
    config = RunnerConfig(
        absent_timeout=opts.absent_timeout, timings=opts.timings, leaves_with_people=opts.is_bot
    )
    seed = secret if isinstance(secret, bytes) else b""
    spool = _watch_spool(files.log, game_log)
    port = listener.socket.getsockname()[1]
    herald = Herald(identity, proto, front, opts.interfaces, opts.discovery, opts.name, port,
                    opts.absent_timeout)  # fmt: skip

    def watched(count: int) -> None:
        herald.watchers(count)
        if on_watchers is not None:
            on_watchers(count)

    addresses = [(m.public_key, m.address) for m in roster if m.address is not None]
    watch = WatchService(front, on_change=watched, spool=spool, peers=addresses)

    def logged(entry: bytes) -> None:
        watch.publish(entry)
        if herald.check() and on_open is not None:
            on_open(herald.open)

    game_log.feed = logged
    try:
        async with (
            serving_watchers(watch),
            open_mesh(
                identity,
                proto.game_id,
                roster,
                listeners=[listener],
                strangers=watch.admit,
                dial_all=dial_all,
            ) as mesh,
            trio.open_nursery() as nursery,
        ):
            watch.tell(mesh)
            nursery.start_soon(herald.run)
            runner = GameRunner(proto, mesh, front, game_log, files.secrets, config, seed, resuming)
            watch.on_sit = runner.take_sit
            status = await runner.run(task_status=task_status)
            nursery.cancel_scope.cancel()
        await listener.aclose()
    finally:
        spool.close()
        spool.path.unlink(missing_ok=True)
    if status in (Status.FINISHED, Status.ABORTED):
        store.finished(role)
    return Outcome(status, files.log, proto.head.hex(), proto.result, proto.abort)


def _watch_spool(log: Path, game_log: GameLog) -> GameLog:
    """The entries the watch service streams, in a file beside the log: every entry ever
    logged, where the log itself is cut by a verdict. A resumed node starts it from its log."""
    path = log.with_suffix(".watch")
    path.unlink(missing_ok=True)
    spool = GameLog.open(path)
    for i in range(0, len(game_log), 256):
        for entry in game_log.read(i, min(i + 256, len(game_log))):
            spool.append(entry)
    return spool


def _write_entries(path: Path, proto: GameProtocol) -> None:
    game_log = GameLog.open(path)
    for entry in proto.take_entries():
        game_log.append(entry)
    game_log.close()


def _replay_own_log(proto: GameProtocol, game_log: GameLog) -> None:
    """Rebuild the protocol's state from our own log; what it re-derives is already on disk.

    A crash can come while a step's entries are being written: the entries of a step that the
    replay leaves incomplete are cut from the file, to be written again, whole, when the step
    completes (the protocol sends our own message in it again). A step whose one missing entry
    is our own completes in the replay itself: its last entry is written here.
    """
    written = game_log.entries
    proto.resume(written)
    kept = proto.log_kept
    if written[:kept] != proto.entries[:kept]:
        raise SessionError(f"{game_log.path} does not replay: it cannot be resumed")
    game_log.truncate(kept)
    for entry in proto.take_entries():  # the own entry that completed a step, if the crash
        game_log.append(entry)  # left out only that one


async def _spawn_bots(
    opts: PeerOptions, bots: BotSpec, port: int, resuming: bytes | None = None
) -> list[trio.Process]:
    """Start the bot peers, each a ``hearts bot`` process with its own data directory.

    For a resumed game (``resuming``: its id) the bots that stopped with it unfinished resume
    theirs, without asking whether it can go on, as the host has; a bot still running it, or
    whose game ended, is not started. For a new table, a game a bot left unfinished is over.
    Each runs in a session (on Windows, a process group) of its own, so the player's Ctrl-C
    (sent by the terminal to its whole process group) makes only the player leave: the bots are
    peers, not part of the player's program.
    """
    procs = []
    for i in range(bots.count):
        name = f"Bot {i + 1}"
        bot_dir = opts.data_dir / "bots" / f"bot{i + 1}"
        if resuming is None:
            DataDir(bot_dir).finished("join")
        elif not bot_resumes(bot_dir, resuming) or DataDir(bot_dir).holder() is not None:
            continue  # its game ended, or it still plays it
        args = [
            sys.executable, "-m", "hearts_p2p.cli.main", "bot",
            "--peer", f"{opts.address}:{port}",
            "--name", name,
            "--strategy", bots.strategy,
            "--data-dir", str(bot_dir),
            "--interface", opts.interfaces[0].name,
            "--timeout", str(opts.absent_timeout),
            "--quiet",
            *(["--resuming"] if resuming is not None else []),
        ]  # fmt: skip
        if bots.seed is not None:
            args += ["--seed", str(bots.seed + i)]
        if bots.delay:
            args += ["--delay", str(bots.delay)]
        procs.append(await trio.lowlevel.open_process(args, stdin=subprocess.DEVNULL,
                                                       stdout=subprocess.DEVNULL,
                                                       **current().children.options()))  # fmt: skip
    return procs


def bot_resumes(bot_dir: Path, game_id: bytes) -> bool:
    """Whether the bot peer kept in ``bot_dir`` left game ``game_id`` unfinished."""
    state = DataDir(bot_dir).unfinished("join")
    return state is not None and state.game_id == game_id


async def _reap(procs: list[trio.Process], grace: float) -> None:
    """Let the bot peers end within ``grace``, then stop them: a SIGTERM, which a bot takes
    as its quit, then a kill. Bound: ``grace`` + ``BOT_QUIT``."""
    with trio.move_on_after(grace):
        for p in procs:
            await p.wait()
    for p in procs:
        if p.returncode is None:
            p.terminate()
    with trio.move_on_after(BOT_QUIT):
        for p in procs:
            await p.wait()
    for p in procs:
        if p.returncode is None:
            p.kill()
            await p.wait()
