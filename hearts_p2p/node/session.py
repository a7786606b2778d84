"""A player's whole session: host or join a table (or resume one), then play it to the end.

This is what the ``hearts`` commands call. It owns the sockets: the TCP listener (lobby, then
mesh), the announcer, the mesh, and the files under the data directory.
"""

from __future__ import annotations

import dataclasses
import logging
import secrets
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import trio

from ..discovery import DiscoveryConfig, TableState, announce, open_browser
from ..discovery.directory import TableInfo
from ..engine import GameResult
from ..frontend import Event, FrontEnd, HandStarted, Notice, SeatedRoster
from ..identity import Identity, IdentityError
from ..log import GameLog
from ..netif import Interface
from ..rules import Rules
from ..transport import Member, open_mesh
from ..wire import WireError, decode_frame
from .genesis import Genesis, GenesisError, Player
from .keys import pass_public_key
from .lobby import LobbyError, Seat, SeatChange, Welcome, host_lobby, join_lobby, start_players
from .protocol import Abort, GameProtocol, Status
from .runner import GameRunner, RunnerConfig
from .store import DataDir, DataDirBusy, ResumeState

__all__ = ["Outcome", "PeerOptions", "SessionError", "host_game", "join_game"]

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
    is_bot: bool = False
    on_runner: Callable[[GameRunner], None] | None = None  # a front end's handle on the game
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
) -> Outcome:
    """Open a table, wait for it to fill (spawning bot peers if asked), and play."""
    store = _locked(opts)
    identity = await _identity(store, opts, front)
    resume = store.unfinished("host")
    if resume is not None:
        respawned: list[trio.Process] = []
        if resume.bots:
            spec = BotSpec(**resume.bots)
            respawned = await _spawn_bots(opts, spec, resume.port, resuming=True)
        try:
            return await _resume(store, "host", identity, resume, opts, front)
        finally:
            await _reap(respawned)
    listener = await _listen(opts.address, opts.port)
    port = listener.socket.getsockname()[1]
    game_id = secrets.token_bytes(16)
    secret = secrets.token_bytes(32)
    proto = GameProtocol(game_id, identity.public_key, identity, secret)
    files = store.game(game_id)
    files.secrets.save({"secret": secret, "choices": {}})
    if on_listening is not None:
        on_listening(opts.address, port)
    procs: list[trio.Process] = []
    async with trio.open_nursery() as nursery:
        announcer = await nursery.start(_announce, identity, opts, game_id, table_name, rules, port)
        if bots is not None and bots.count:
            procs = await _spawn_bots(opts, bots, port)
        await front.notify(Notice(f"Table {table_name!r} open on {opts.address}:{port}; "
                                  f"waiting for {rules.players - 1} player(s)"))  # fmt: skip

        def changed(seats: list[Seat], seat: Seat, change: SeatChange) -> None:
            announcer.update(seats_taken=1 + len(seats))
            who = seat.who
            nursery.start_soon(
                front.notify, Notice(f"{who.name} {change.value} ({who.fingerprint})")
            )

        joined, conns = await host_lobby(
            listener, identity, game_id, table_name, rules.to_dict(), rules.players - 1, changed
        )
        announcer.update(state=TableState.PLAYING, seats_taken=rules.players)
        players = (
            Player(opts.name, identity.public_key, proto.dh_public, opts.is_bot),
            *(Player(s.who.name, s.who.public_key, s.dh, s.bot) for s in joined),
        )
        roster = (
            Member(identity.public_key, (opts.address, port)),
            *(Member(s.who.public_key, s.address) for s in joined),
        )
        try:
            genesis = Genesis(game_id, table_name, rules, players, int(time.time()))
        except GenesisError as e:  # a joiner that copied another's keys, say
            raise SessionError(f"cannot start the game: {e}") from None
        proto.propose(genesis)
        _write_entries(files.log, proto)  # on disk before anyone can see it: resumable
        saved_bots = dataclasses.asdict(bots) if bots is not None and bots.count else None
        state = ResumeState(game_id, identity.public_key, opts.name, port, roster, saved_bots)
        store.save_unfinished("host", state)
        await start_players(conns, list(roster), 2.0)
        outcome = await _play(store, "host", identity, proto, roster, listener, opts, front)
        nursery.cancel_scope.cancel()
    await _reap(procs)
    return outcome


async def _announce(
    identity: Identity,
    opts: PeerOptions,
    game_id: bytes,
    table_name: str,
    rules: Rules,
    port: int,
    task_status: trio.TaskStatus[object] = trio.TASK_STATUS_IGNORED,
) -> None:
    await announce(
        identity,
        opts.interfaces,
        table_id=game_id,
        host_name=opts.name,
        table_name=table_name,
        rules=rules.to_dict(),
        seats_total=rules.players,
        addresses=[opts.address],
        port=port,
        seats_taken=1,
        config=opts.discovery,
        task_status=task_status,
    )


async def join_game(
    opts: PeerOptions,
    front: FrontEnd,
    table: str | None = None,
    peer: tuple[str, int] | None = None,
    find_timeout: float = 10.0,
) -> Outcome:
    """Find a table (by name or id through discovery, or at ``peer``), take a seat, and play."""
    store = _locked(opts)
    identity = await _identity(store, opts, front)
    resume = store.unfinished("join")
    if resume is not None:
        return await _resume(store, "join", identity, resume, opts, front)
    host_key = None
    if peer is None:
        info = await _find(opts, table, find_timeout)
        peer = (info.address, info.announcement.port)
        host_key = info.announcement.host_key
        ad = info.announcement
        found = f"Found {ad.table_name!r} hosted by {ad.host_name} ({info.host_fingerprint})"
        await front.notify(Notice(found))
    listener = await _listen(opts.address, opts.port)
    port = listener.socket.getsockname()[1]
    secret = secrets.token_bytes(32)

    async def seated(w: Welcome) -> None:
        await front.notify(Notice(f"Seated at {w.table_name!r}; waiting for the table to fill"))

    try:
        dh = pass_public_key(secret)
        at = (opts.address, port)
        welcome = await join_lobby(
            peer[0], peer[1], identity, opts.name, dh, opts.is_bot, at, host_key, seated
        )
    except LobbyError as e:
        raise SessionError(str(e)) from None
    proto = GameProtocol(welcome.game_id, welcome.host_key, identity, secret)
    files = store.game(welcome.game_id)
    files.secrets.save({"secret": secret, "choices": {}})
    roster = welcome.roster
    store.save_unfinished(
        "join", ResumeState(welcome.game_id, welcome.host_key, opts.name, port, roster)
    )
    return await _play(store, "join", identity, proto, roster, listener, opts, front)


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
    what = f"table {table!r}" if table else "an open table"
    names = ", ".join(i.name for i in opts.interfaces)
    raise SessionError(f"found no {what} on {names} within {timeout:.0f} s (see hearts list)")


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
) -> Outcome:
    """Rejoin the game this role was playing: replay our log, listen where we did, catch up."""
    files = store.game(state.game_id)
    saved = files.secrets.load()
    secret = saved.get("secret")
    if not isinstance(secret, bytes):
        store.finished(role)
        raise SessionError("the unfinished game's secrets are missing; it cannot be resumed")
    choices = saved.get("choices") if isinstance(saved.get("choices"), dict) else {}
    proto = GameProtocol(state.game_id, state.host_key, identity, secret, choices)
    await front.notify(Notice(f"Resuming game {state.game_id.hex()[:8]} from {files.log}"))
    listener = await _listen(opts.address, state.port)
    return await _play(
        store, role, identity, proto, state.roster, listener, opts, front, resuming=True
    )


async def _play(
    store: DataDir,
    role: str,
    identity: Identity,
    proto: GameProtocol,
    roster: Sequence[Member],
    listener: trio.SocketListener,
    opts: PeerOptions,
    front: FrontEnd,
    resuming: bool = False,
) -> Outcome:
    files = store.game(proto.game_id)
    game_log = GameLog.open(files.log)
    if resuming:
        _replay_own_log(proto, game_log)
    secret = files.secrets.load().get("secret", b"")
    config = RunnerConfig(absent_timeout=opts.absent_timeout, timings=opts.timings)
    seed = secret if isinstance(secret, bytes) else b""
    async with open_mesh(identity, proto.game_id, roster, listeners=[listener]) as mesh:
        runner = GameRunner(proto, mesh, front, game_log, files.secrets, config, seed, resuming)
        if opts.on_runner is not None:
            opts.on_runner(runner)
        status = await runner.run()
    await listener.aclose()
    if status in (Status.FINISHED, Status.ABORTED):
        store.finished(role)
    result = proto.game.result if proto.game is not None else None
    return Outcome(status, files.log, proto.head.hex(), result, proto.abort)


def _write_entries(path: Path, proto: GameProtocol) -> None:
    game_log = GameLog.open(path)
    for entry in proto.new_entries:
        game_log.append(entry)
    proto.new_entries.clear()
    game_log.close()


def _replay_own_log(proto: GameProtocol, game_log: GameLog) -> None:
    """Rebuild the protocol's state from our own log; what it re-derives is already on disk.

    A crash can come while a step's entries are being written: the entries of a step that the
    replay leaves incomplete are cut from the file, to be written again, whole, when the step
    completes. Our message in that step is sent again: the crash may have come before it left.
    """
    for raw in game_log.entries:
        try:
            proto.receive(decode_frame(raw))
        except WireError:
            continue
    if game_log.entries[: len(proto.entries)] != proto.entries:
        raise SessionError(f"{game_log.path} does not replay: it cannot be resumed")
    game_log.truncate(len(proto.entries))
    pending = {m.raw for m in proto.step.got.values()}
    out, _, events = proto.drain()
    proto.outbox = [m for m in out if m.raw in pending]
    shown: list[Event] = []
    # Show where the game stands: who sits where, and this seat's hand now.
    shown += [e for e in events if isinstance(e, SeatedRoster)][-1:]
    view = proto.view()
    if view is not None and view.phase is not None:
        shown.append(HandStarted(view))
    proto.events = shown


async def _spawn_bots(
    opts: PeerOptions, bots: BotSpec, port: int, resuming: bool = False
) -> list[trio.Process]:
    """Start the bot peers, each a ``hearts bot`` process with its own data directory.

    For a resumed game they resume theirs (a bot still running holds its directory, and the
    new one leaves at once); for a new table, a game a bot left unfinished is over. Each runs
    in a session of its own, so the player's Ctrl-C (sent by the terminal to its whole process
    group) makes only the player leave: the bots are peers, not part of the player's program.
    """
    procs = []
    for i in range(bots.count):
        name = f"Bot {i + 1}"
        bot_dir = opts.data_dir / "bots" / f"bot{i + 1}"
        if not resuming:
            DataDir(bot_dir).finished("join")
        args = [
            sys.executable, "-m", "hearts_p2p.cli.main", "bot",
            "--peer", f"{opts.address}:{port}",
            "--name", name,
            "--strategy", bots.strategy,
            "--data-dir", str(bot_dir),
            "--interface", opts.interfaces[0].name,
            "--timeout", str(opts.absent_timeout),
            "--quiet",
        ]  # fmt: skip
        if bots.seed is not None:
            args += ["--seed", str(bots.seed + i)]
        if bots.delay:
            args += ["--delay", str(bots.delay)]
        procs.append(await trio.lowlevel.open_process(args, stdin=subprocess.DEVNULL,
                                                       stdout=subprocess.DEVNULL,
                                                       start_new_session=True))  # fmt: skip
    return procs


async def _reap(procs: list[trio.Process], grace: float = 10.0) -> None:
    with trio.move_on_after(grace):
        for p in procs:
            await p.wait()
    for p in procs:
        if p.returncode is None:
            p.kill()
            await p.wait()
