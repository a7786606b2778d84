"""Watching a table from no seat: find it, take the host's feed of its log, verify it live.

The watcher's key is made for the occasion and is in no roster, so the host's mesh hands its
connection to the watch service. After its hello it sends nothing: it only reads the log, entry
by entry, and passes each through the same observer the offline audit runs (a
:class:`GameProtocol` with no identity). What the observer takes is written to a log file of the
watcher's own, which the audit checks once the feed ends: the verdict a watcher prints is the
one ``hearts audit`` would give.

Every player's node serves watchers, and the table is announced by one of them: the host, then,
once the table plays the host's seat, the next node in seat order (``herald.py``). So when the
feed ends before the game does, the watcher looks for the table's announcement by another
player of the genesis it has verified and goes on from there, for a bounded time: the new feed
starts again from entry 0, and what the observer holds already is skipped. A server's own leave
is its word in its own log, not the table's end: it is held back while another feed is sought.

The host is trusted with nothing but delivery. A frame that no player at the table signed is
the feed's fault (damage, or a host rewriting it): it is reported and dropped, and it proves
nothing against any player. A message a player did sign is judged like any peer would judge it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from ..audit import AuditReport, HandSummary, TrickSummary, audit_log, hand_summary, trick_summary
from ..discovery import Browser, DiscoveryConfig, TableState, open_browser
from ..discovery.directory import TableInfo
from ..engine.hand import HandState
from ..game import GameProtocol, HandRecord, SeatedRoster, SeatTaken, Status
from ..identity import Identity, fingerprint
from ..log import GameLog
from ..netif import Interface
from ..text import clean, quoted
from ..transport import (
    Connection,
    ConnectionClosed,
    HandshakeError,
    TransportError,
    open_connection,
)
from ..wire import SignedMessage, WireError, decode_frame, unpack
from .watch import hello_frame

__all__ = [
    "FeedLost",
    "FeedProblem",
    "Found",
    "HandBegun",
    "HandDone",
    "LiveAudit",
    "TrickDone",
    "WatchError",
    "WatchEvent",
    "WatchOptions",
    "WatchResult",
    "follow_feed",
    "watch_table",
]

CONNECT_PATIENCE = 20.0  # the host opens its table port a moment after the table fills
HANDSHAKE_TIMEOUT = 10.0
UNSAID_CLOCK = 120.0  # a table's timeout when its announcement does not say it (the default)
FAILOVER_SLACK = 30.0  # beyond the table's timeout, for its next node to announce the table


class WatchError(Exception):
    """The table could not be watched: not found, not reachable, refused."""


@dataclass(frozen=True)
class WatchOptions:
    name: str
    interfaces: Sequence[Interface]
    log_dir: Path  # where the watcher keeps its copy of the log
    discovery: DiscoveryConfig = field(default_factory=DiscoveryConfig)
    find_timeout: float = 10.0
    start_timeout: float = 900.0  # a forming table may take a while to fill
    idle_timeout: float = 300.0  # the feed says nothing this long: the host is gone
    failover_timeout: float | None = None  # for another node's feed; None: the table's clock
    # (its seat is taken over after that) and FAILOVER_SLACK


@dataclass(frozen=True)
class Found:
    info: TableInfo
    playing: bool


@dataclass(frozen=True)
class HandBegun:
    number: int
    dealer: int
    pass_direction: str


@dataclass(frozen=True)
class TrickDone:
    hand: int
    number: int  # 1-based, in the hand
    trick: TrickSummary


@dataclass(frozen=True)
class HandDone:
    summary: HandSummary  # as the end-of-hand audit established it, passes included


@dataclass(frozen=True)
class FeedProblem:
    text: str


@dataclass(frozen=True)
class FeedLost:
    """The feed ended before the game did; another player's node is sought for ``patience``."""

    server: str  # whose feed it was, as the table names that player
    patience: float


WatchEvent = (
    Found | SeatedRoster | SeatTaken | HandBegun | TrickDone | HandDone | FeedProblem | FeedLost
)
Show = Callable[[WatchEvent], Awaitable[None]]


@dataclass(frozen=True)
class WatchResult:
    report: AuditReport  # the audit of what the watcher took, as ``hearts audit`` reports it
    log_path: Path
    feed_problems: int  # frames of the feed that no player signed
    complete: bool  # the feed carried the game to its end (finished or aborted)


class LiveAudit:
    """The audit's observer, fed one frame at a time; it says what happened as it goes."""

    def __init__(self, game_id: bytes, host_key: bytes, log_path: Path) -> None:
        self.game_id = game_id
        self.host_key = host_key
        log_path.unlink(missing_ok=True)  # the watcher's own copy: a new watch starts it anew
        self.log = GameLog.open(log_path)
        self.proto = self._observer()
        self.frames = 0  # of the current server's feed
        self.problems = 0
        self.server = host_key  # whose node the feed comes from
        self.before: bytes | None = None  # whose node fed it before, after a failover
        self._held: SignedMessage | None = None  # the server's own leave, its word alone
        self._hand: HandState | None = None
        self._tricks = 0

    def serving(self, key: bytes) -> None:
        """A new feed, from ``key``'s node: it starts from entry 0 again."""
        self.before, self.server, self.frames, self._held = self.server, key, 0, None

    @property
    def can_go_on(self) -> bool:
        """Whether the table may play on without the server: the game runs, the seats are
        drawn (a seat can be taken over, 6.12), and a person other than the server's player
        still has a seat the table does not play (bots leave with the last person)."""
        p, genesis = self.proto, self.proto.genesis
        if p.status is not Status.RUNNING or not p.seat_of or genesis is None:
            return False
        return any(
            not player.bot and player.key != self.server and i not in p.table_seats
            for i, player in enumerate(genesis.players)
        )

    def finish(self) -> list[WatchEvent]:
        """No other feed: the last server's own leave ends the game, as its log says."""
        held, self._held = self._held, None
        if held is None:
            return []
        self.proto.receive(held)
        return self._progress()

    @property
    def over(self) -> bool:
        return self.proto.status is Status.FINISHED

    @property
    def ended(self) -> bool:
        return self.proto.status in (Status.FINISHED, Status.ABORTED)

    def take(self, frame: bytes) -> list[WatchEvent]:
        """One frame of the feed: what it shows."""
        self.frames += 1
        if self.proto.has_frame(frame):
            return []  # a new feed's entries this watcher holds already
        if self._its_own_word_alone(self.frames - 1):
            self._back_to(self.frames - 1)
        try:
            msg = decode_frame(frame)
        except WireError as e:
            return [self._problem(f"is not a logged message ({e})")]
        if not self._signed_by_a_player(msg):
            env = msg.envelope
            return [self._problem(f"holds a {clean(env.kind, 20)} message no player signed")]
        if self._own_leave(msg):
            self._held = msg
            return []
        self.proto.receive(msg)
        return self._progress()

    def _its_own_word_alone(self, at: int) -> bool:
        """Whether the new feed parts from this watcher's log at entry ``at`` where every entry
        from there on is the previous server's own message: what its node logged, and fed,
        before it could send it, and then went. No peer took it, so the table went on without
        it (the seat taken over, SPEC 6.12): it is that player's word alone, as its own leave is.
        """
        genesis = self.proto.genesis
        if self.before is None or genesis is None or not at < len(self.log):
            return False
        for raw in self.log.read(at, len(self.log)):
            sender = decode_frame(raw).envelope.sender
            if not 0 <= sender < len(genesis.players):
                return False
            if genesis.players[sender].key != self.before:
                return False
        return True

    def _back_to(self, at: int) -> None:
        """The watcher's log and observer cut back to the first ``at`` entries, which the new
        feed gave alike; what they showed was shown already."""
        kept = self.log.read(0, at)
        self.log.truncate(at)
        proto = self._observer()
        for raw in kept:
            proto.receive(decode_frame(raw))
        proto.take_entries()  # in the log already
        proto.drain()  # shown already
        self.proto = proto
        game = proto.game
        self._hand = game.hand if game is not None else None
        self._tricks = len(self._hand.tricks) if self._hand is not None else 0

    def _observer(self) -> GameProtocol:
        """The audit's observer, reading its history back from the watcher's log."""
        proto = GameProtocol(self.game_id, self.host_key)
        proto.keep_history(self.log.read)
        return proto

    def _own_leave(self, msg: SignedMessage) -> bool:
        """Whether ``msg`` is the server's signed leave, once the table can play on without it."""
        env, genesis = msg.envelope, self.proto.genesis
        if env.kind != "abort" or genesis is None or not self.can_go_on:
            return False
        if not 0 <= env.sender < len(genesis.players) or env.body.get("culprit") != env.sender:
            return False
        return genesis.players[env.sender].key == self.server and env.body.get("ending") == "left"

    def _problem(self, what: str) -> FeedProblem:
        self.problems += 1
        return FeedProblem(
            f"frame {self.frames} of the host's feed {what}: dropped; the feed is damaged or "
            "forged, and this proves nothing against any player"
        )

    def _signed_by_a_player(self, msg: SignedMessage) -> bool:
        """Signed by a player of the genesis, or by a newcomer the key schedule names."""
        p = self.proto
        keys = [q.key for q in p.genesis.players] if p.genesis is not None else [self.host_key]
        keys += [q.key for q in p.holders.values()]
        signer = p.key_for(msg.envelope) if p.genesis is not None else None
        return any(msg.verify(k) for k in (*keys, *([signer] if signer else [])))

    def _progress(self) -> list[WatchEvent]:
        p = self.proto
        kept = p.log_kept
        entries = p.take_entries()
        if kept < len(self.log):
            self.log.truncate(kept)  # a verdict cut the log back to its evidence, as peers do
        for e in entries:
            self.log.append(e)
        _, _, events = p.drain()
        shown: list[WatchEvent] = self._new_tricks()
        genesis = p.genesis
        for ev in events:
            if isinstance(ev, SeatedRoster | SeatTaken):
                shown.append(ev)  # the seats, and who took which from which hand (6.15)
            elif isinstance(ev, HandRecord) and genesis is not None:
                shown.append(HandDone(hand_summary(ev, genesis)))
        game = p.game
        if game is not None and game.hand is not None and game.hand is not self._hand:
            self._hand, self._tricks = game.hand, 0
            rules = game.rules
            number = game.hand.number
            shown.append(HandBegun(number, game.hand.dealer, rules.pass_direction(number).value))
            shown += self._new_tricks()
        return shown

    def _new_tricks(self) -> list[WatchEvent]:
        hand, game = self._hand, self.proto.game
        if hand is None or game is None:
            return []
        new = hand.tricks[self._tricks :]
        self._tricks = len(hand.tricks)
        start = self._tricks - len(new)
        return [
            TrickDone(hand.number, start + i + 1, trick_summary(t, game.rules, hand.exposed))
            for i, t in enumerate(new)
        ]

    def close(self) -> None:
        self.log.close()


async def watch_table(opts: WatchOptions, table: str | None, show: Show) -> WatchResult:
    """Find the table (waiting for a forming one to start), watch it to the end, audit it."""
    info = await _find(opts, table, show)
    ad = info.announcement
    identity = Identity.generate()  # a key for this watch alone, seated nowhere
    path = opts.log_dir / f"{ad.table_id.hex()}.log"
    patience = opts.failover_timeout
    if patience is None:
        patience = (ad.clock or UNSAID_CLOCK) + FAILOVER_SLACK
    live = LiveAudit(ad.table_id, ad.host_key, path)
    done: set[bytes] = set()  # the nodes whose feeds ended
    try:
        conn = await _reach(info.address, ad.port, identity, ad.table_id, ad.host_key)
        while True:
            server = conn.peer_key
            async with conn:
                try:
                    await conn.send(hello_frame(identity, conn.transcript, opts.name))
                except TransportError as e:
                    raise WatchError(f"the host closed the connection: {e}") from None
                live.serving(server)
                await _follow(conn, live, opts.idle_timeout, show)
            done.add(server)
            found = await _another_feed(opts, live, identity, done, patience, show)
            if found is None:
                break
            conn = found
        for event in live.finish():
            await show(event)
    finally:
        live.close()
    return WatchResult(audit_log(path), path, live.problems, live.ended)


async def follow_feed(
    conn: Connection, game_id: bytes, host_key: bytes, log_path: Path, idle: float, show: Show
) -> WatchResult:
    """Read the feed on ``conn`` until the game ends or the feed does; the audit's verdict."""
    live = LiveAudit(game_id, host_key, log_path)
    try:
        await _follow(conn, live, idle, show)
        for event in live.finish():
            await show(event)
    finally:
        live.close()
    return WatchResult(audit_log(log_path), log_path, live.problems, live.ended)


async def _follow(conn: Connection, live: LiveAudit, idle: float, show: Show) -> None:
    while not live.over:
        with trio.move_on_after(idle):
            frame = await _next_frame(conn)
        if frame is None:
            return
        if live.frames == 0 and (reason := _refusal(frame)) is not None:
            raise WatchError(f"the host refused: {reason}")
        for event in live.take(frame):
            await show(event)


async def _another_feed(
    opts: WatchOptions,
    live: LiveAudit,
    identity: Identity,
    done: set[bytes],
    patience: float,
    show: Show,
) -> Connection | None:
    """The connection to the node that announces the table now: another player of its
    genesis, found within ``patience``; None when none is, or the table cannot go on."""
    genesis = live.proto.genesis
    if genesis is None or not live.can_go_on:
        return None
    players = {p.key: p.name for p in genesis.players}
    await show(FeedLost(clean(players.get(live.server, "?")), patience))

    def next_node(t: TableInfo) -> bool:
        a = t.announcement
        return (
            t.table_id == genesis.game_id
            and a.host_key in players
            and a.host_key not in done
            and a.state is TableState.PLAYING
        )

    with trio.move_on_after(patience):
        async with open_browser(opts.interfaces, config=opts.discovery) as browser:
            while True:
                info = await browser.wait_for(next_node)
                key = info.announcement.host_key
                try:
                    conn = await _reach(info.address, info.announcement.port, identity,
                                        genesis.game_id, key)  # fmt: skip
                except WatchError:
                    done.add(key)
                    continue
                await show(Found(info, True))
                return conn
    return None


async def _next_frame(conn: Connection) -> bytes | None:
    try:
        return await conn.receive()
    except (ConnectionClosed, TransportError):
        return None


def _refusal(frame: bytes) -> str | None:
    try:
        msg: Any = unpack(frame)
    except WireError:
        return None
    if isinstance(msg, dict) and msg.get("t") == "refused":
        reason = msg.get("reason")
        return clean(reason, 200) if isinstance(reason, str) else "no reason given"
    return None


async def _find(opts: WatchOptions, table: str | None, show: Show) -> TableInfo:
    """The table to watch, once it plays. Why it cannot be had is raised after the browser
    closes: raised inside it, it would leave wrapped in the browser's exception group."""
    async with open_browser(opts.interfaces, config=opts.discovery) as browser:
        found = await _look(browser, opts, table, show)
    if isinstance(found, WatchError):
        raise found
    return found


async def _look(
    browser: Browser, opts: WatchOptions, table: str | None, show: Show
) -> TableInfo | WatchError:
    def named(t: TableInfo) -> bool:
        a = t.announcement
        return (
            table is None
            or table in (a.table_name, a.table_id.hex())
            or (len(table) >= 4 and a.table_id.hex().startswith(table.lower()))
        )

    def live(t: TableInfo) -> bool:
        return named(t) and t.announcement.state in (TableState.OPEN, TableState.PLAYING)

    found: TableInfo | None = None
    with trio.move_on_after(opts.find_timeout):
        found = await browser.wait_for(live)
    if found is None:
        what = f"table {quoted(table)}" if table else "table"
        names = ", ".join(i.name for i in opts.interfaces)
        return WatchError(
            f"found no {what} on {names} within {opts.find_timeout:g} s (see hearts list)"
        )
    playing = found.announcement.state is TableState.PLAYING
    await show(Found(found, playing))
    if playing:
        return found
    started: TableInfo | None = None
    wanted = (found.table_id, found.announcement.host_key)
    with trio.move_on_after(opts.start_timeout):
        started = await browser.wait_for(
            lambda t: (
                (t.table_id, t.announcement.host_key) == wanted
                and t.announcement.state is TableState.PLAYING
            )
        )
    if started is None:
        return WatchError(f"the table did not start within {opts.start_timeout:.0f} s")
    return started


async def _reach(
    host: str, port: int, identity: Identity, game_id: bytes, host_key: bytes
) -> Connection:
    """Connect to the host's table port and prove our key, trying for a while: the table's
    port takes watchers once the game runs, a moment after the announcement says so."""
    error: Exception | None = None
    with trio.move_on_after(CONNECT_PATIENCE):
        while True:
            try:
                with trio.fail_after(HANDSHAKE_TIMEOUT):
                    return await open_connection(host, port, identity, game_id, expected=host_key)
            except (OSError, TransportError, trio.TooSlowError) as e:
                error = e
                if isinstance(e, HandshakeError) and e.reason == "unknown-peer":
                    break  # someone else answers at that address
            await trio.sleep(0.5)
    who = fingerprint(host_key)
    raise WatchError(f"cannot reach the table of {who} at {host}:{port}: {error or 'timed out'}")
