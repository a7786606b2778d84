"""A node's side of watching: every log entry, as it is written, to the watchers of its table.

Every player's node serves watchers; they come to the one that announces the table (the host,
then, once the table plays the host's seat, the next node: ``herald.py``). A watcher is a key
outside the roster that reaches the node's table port (the mesh hands it over once the
handshake proves it), says who it is in one signed hello, and from then on only
listens: it gets the log from its first entry, then each entry as the node logs it. The log is
what anyone may audit (pass keys travel sealed, deck keys are revealed only when a hand ends),
so a watcher sees no hidden card, and sending it needs nothing from the game task.

No watcher can disturb the game. Publishing an entry is a list append: each watcher has a
writer of its own that reads the shared list at its own pace (a cursor, not a queue, so memory
does not grow with a slow reader). A watcher that does not take a frame within
``send_timeout``, that falls ``max_lag`` entries behind once caught up, or that sends anything
after its hello, is dropped; beyond ``max_watchers`` a new one is refused.

A newcomer taking an open seat (SPEC 6.15) watches first, then sends one frame: its signed
``sit``. The service hands it to the game (``on_sit``), which checks it as every peer does, and
answers with the seats' addresses (a ``peers`` frame), which the newcomer dials as a mesh peer.
The addresses are no secret and no trust: each connection proves the key it reaches.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import trio

from ..control import Watching, encode
from ..frontend import FrontEnd, Notice
from ..identity import PUBLIC_KEY_BYTES, SIGNATURE_BYTES, Identity, fingerprint, verify
from ..log import GameLog
from ..text import clean
from ..transport import Connection, Mesh, TransportError
from ..wire import WireError, pack, unpack

__all__ = [
    "WATCH_VERSION",
    "FedLog",
    "MemorySpool",
    "Spool",
    "WatchConfig",
    "WatchService",
    "hello_frame",
    "live_frame",
    "parse_hello",
    "parse_live",
    "parse_peers",
    "peers_frame",
    "serving_watchers",
    "watching_line",
]

log = logging.getLogger(__name__)
WATCH_VERSION = 1
MAX_WATCH_NAME = 32
MAX_PEERS = 16  # addresses in a peers frame: one per seat at most
MAX_SITS = 6  # a newcomer's sits: one the table passed the boundary of is followed by the next
_HELLO_TAG = b"hearts-p2p watch hello\0"


@dataclass(frozen=True)
class WatchConfig:
    max_watchers: int = 8
    max_greeting: int = 16  # connections yet to send their hello; more are closed at once
    hello_timeout: float = 5.0  # to send the hello after the handshake
    send_timeout: float = 5.0  # to take one frame
    max_lag: int = 512  # entries a caught-up watcher may fall behind
    drain: float = 2.0  # after the game, how long the watchers may take no entry before they go
    drain_limit: float = 30.0  # after the game, how long the watchers may take entries at most


def hello_frame(identity: Identity, transcript: bytes, name: str, sit: bool = False) -> bytes:
    """The watcher's one frame: its name, signed over this connection's handshake; ``sit``:
    a newcomer, which is told once it has the log so far (a ``live`` frame)."""
    hello: dict[str, Any] = {"t": "watch", "v": WATCH_VERSION, "name": name[:MAX_WATCH_NAME]}
    body = pack({**hello, "sit": True} if sit else hello)
    return body + identity.sign(_HELLO_TAG + transcript + body)


def live_frame(entries: int) -> bytes:
    """What a newcomer is told once the feed has given it every entry logged so far."""
    return pack({"t": "live", "entries": entries})


def parse_live(frame: bytes) -> bool:
    try:
        msg: Any = unpack(frame)
    except WireError:
        return False
    return isinstance(msg, dict) and msg.get("t") == "live"


def parse_hello(frame: bytes, key: bytes, transcript: bytes) -> tuple[str, bool] | None:
    """The watcher's name and whether it is a newcomer, or None when ``frame`` is not its
    signed hello of this version."""
    body, signature = frame[:-SIGNATURE_BYTES], frame[-SIGNATURE_BYTES:]
    if len(frame) <= SIGNATURE_BYTES or not verify(key, signature, _HELLO_TAG + transcript + body):
        return None
    try:
        msg: Any = unpack(body)
    except WireError:
        return None
    if not isinstance(msg, dict) or msg.get("t") != "watch" or msg.get("v") != WATCH_VERSION:
        return None
    name = msg.get("name")
    if not isinstance(name, str) or not 0 < len(name) <= MAX_WATCH_NAME:
        return None
    return clean(name, MAX_WATCH_NAME) or "?", msg.get("sit") is True


Addresses = list[tuple[bytes, tuple[str, int]]]


def peers_frame(addresses: Sequence[tuple[bytes, tuple[str, int]]], taken: bool) -> bytes:
    """The answer to a newcomer's sit: whether the game took it (else it was for a boundary
    passed, say) and where each seat's node listens, by identity key."""
    peers = [[k, host, port] for k, (host, port) in addresses] if taken else []
    return pack({"t": "peers", "taken": taken, "peers": peers})


def parse_peers(frame: bytes) -> tuple[Addresses, bool] | None:
    """The addresses a ``peers`` frame gives and whether the sit was taken, or None when
    ``frame`` is not one."""
    try:
        msg: Any = unpack(frame)
    except WireError:
        return None
    if (
        not isinstance(msg, dict)
        or msg.get("t") != "peers"
        or not isinstance(msg.get("peers"), list)
        or not isinstance(msg.get("taken"), bool)
    ):
        return None
    out = []
    for item in msg["peers"][:MAX_PEERS]:
        if not (isinstance(item, list) and len(item) == 3):
            return None
        key, host, port = item
        ok = isinstance(key, bytes) and len(key) == PUBLIC_KEY_BYTES and isinstance(host, str)
        if not ok or not isinstance(port, int) or isinstance(port, bool) or not 0 < port < 65536:
            return None
        out.append((key, (host, port)))
    return out, msg["taken"]


def watching_line(names: tuple[str, ...]) -> str:
    """What a player's screen says when the host tells who watches the table."""
    if not names:
        return "nobody is watching now"
    return f"watching ({len(names)}): " + ", ".join(clean(n, MAX_WATCH_NAME) for n in names)


class FedLog(GameLog):
    """The game log, each entry also handed to ``feed`` as it is written."""

    feed: Callable[[bytes], None] | None = None

    @classmethod
    def open(cls, path: Path) -> FedLog:
        opened = super().open(path)
        assert isinstance(opened, FedLog)
        return opened

    def append(self, entry: bytes) -> None:
        super().append(entry)
        if self.feed is not None:
            self.feed(entry)


class Spool(Protocol):
    """Where the watch service keeps the entries it streams: a file (``GameLog``) in a game,
    so that a long game's memory stays flat."""

    def __len__(self) -> int: ...
    def append(self, entry: bytes) -> None: ...
    def read(self, start: int, stop: int) -> list[bytes]: ...


class MemorySpool:
    """The entries in memory: a service that streams a few (its tests)."""

    def __init__(self) -> None:
        self._entries: list[bytes] = []

    def __len__(self) -> int:
        return len(self._entries)

    def append(self, entry: bytes) -> None:
        self._entries.append(entry)

    def read(self, start: int, stop: int) -> list[bytes]:
        return self._entries[start:stop]


_BATCH = 64  # entries read from the spool at a time


@dataclass(eq=False)
class _Watcher:
    name: str
    key: bytes
    newcomer: bool = False  # told when it has the log so far, and may send its sits
    sits: int = 0  # sent so far
    answer: bytes | None = None  # the peers frame, written before the next entry

    @property
    def label(self) -> str:
        return f"{self.name} ({fingerprint(self.key)})"


class _Lagging(Exception):
    """A watcher that takes frames, but too slowly to keep up with the game."""


class WatchService:
    """The watchers of one game: admitted from the mesh, fed from the log."""

    def __init__(
        self,
        front: FrontEnd,
        config: WatchConfig = WatchConfig(),
        on_change: Callable[[int], None] | None = None,
        *,
        spool: Spool | None = None,
        peers: Sequence[tuple[bytes, tuple[str, int]]] = (),
    ) -> None:
        """``on_change`` hears the count of watchers; ``spool`` holds every entry ever logged,
        in order (a cut keeps them: in a file for a real game); ``peers`` are the seats'
        addresses, to answer a watcher whose node left."""
        self.front = front
        self.config = config
        self.on_change = on_change
        # A newcomer's sit from a watcher: whether the game took it for checking (SPEC 6.15).
        # The game's runner takes them: it begins after the mesh, which admits watchers here.
        self.on_sit: Callable[[bytes], Awaitable[bool | None]] | None = None
        self.peers = list(peers)
        self.spool: Spool = spool if spool is not None else MemorySpool()
        self.watchers: list[_Watcher] = []
        self.refused = 0
        self._greeting = 0
        self._grown = trio.Event()
        self._none_left = trio.Event()
        self._none_left.set()
        self._roster_changed = trio.Event()
        self._ending = False
        self._sent = 0  # entries written to any watcher: the drain's sign of progress
        self._nursery: trio.Nursery | None = None

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(w.name for w in self.watchers)

    def publish(self, entry: bytes) -> None:
        self.spool.append(entry)
        self._wake()

    def _wake(self) -> None:
        self._grown.set()
        self._grown = trio.Event()

    def admit(self, conn: Connection) -> None:
        """Take a connection the mesh authenticated for a key outside the roster."""
        assert self._nursery is not None, "admit while serving_watchers runs"
        if self._ending or self._greeting >= self.config.max_greeting:
            self.refused += 1
            self._nursery.start_soon(trio.aclose_forcefully, conn)
            return
        self._greeting += 1  # until its hello, counted from here: a burst cannot slip past
        self._nursery.start_soon(self._serve, conn)

    async def _serve(self, conn: Connection) -> None:
        try:
            hello = await self._hello(conn)
            if hello is None:
                self.refused += 1
                return
            name, newcomer = hello
            if len(self.watchers) >= self.config.max_watchers:
                self.refused += 1
                reason = f"the table has {self.config.max_watchers} watchers already"
                with trio.move_on_after(self.config.send_timeout):
                    await conn.send(pack({"t": "refused", "reason": reason}))
                return
            watcher = _Watcher(name, conn.peer_key, newcomer)
            await self._changed(watcher, joined=True)
            try:
                await self._feed(conn, watcher)
            finally:
                with trio.CancelScope(shield=True), trio.move_on_after(1.0):
                    await self._changed(watcher, joined=False)
        except TransportError as e:
            log.info("a watcher went before its hello: %r", e)
        finally:
            await trio.aclose_forcefully(conn)

    async def _hello(self, conn: Connection) -> tuple[str, bool] | None:
        try:
            with trio.move_on_after(self.config.hello_timeout):
                return parse_hello(await conn.receive(), conn.peer_key, conn.transcript)
            return None
        finally:
            self._greeting -= 1

    async def _changed(self, watcher: _Watcher, *, joined: bool) -> None:
        if joined:
            self.watchers.append(watcher)
            self._none_left = trio.Event()
        elif watcher in self.watchers:
            self.watchers.remove(watcher)
            if not self.watchers:
                self._none_left.set()
        count = len(self.watchers)
        what = "is watching" if joined else "stopped watching"
        await self.front.notify(Notice(f"{watcher.label} {what}; {count} watching"))
        if self.on_change is not None:
            self.on_change(count)
        self._roster_changed.set()
        self._roster_changed = trio.Event()

    async def _feed(self, conn: Connection, watcher: _Watcher) -> None:
        """Write the log to ``conn`` until the game's end, dropping a watcher that sends,
        lags or goes: whichever comes first ends both tasks."""
        async with trio.open_nursery() as nursery:

            async def refuse_input() -> None:
                with contextlib.suppress(TransportError):
                    # A newcomer's sits are taken; anything else, or one too many, ends it.
                    taken = True
                    while taken:
                        taken = await self._took_sit(watcher, await conn.receive())
                    log.info("watcher %s sent a frame; dropping it", watcher.label)
                nursery.cancel_scope.cancel()

            async def write() -> None:
                try:
                    await self._write(conn, watcher)
                except (TransportError, trio.TooSlowError, _Lagging) as e:
                    log.info("dropped watcher %s: %r", watcher.label, e)
                nursery.cancel_scope.cancel()

            nursery.start_soon(refuse_input)
            nursery.start_soon(write)

    async def _took_sit(self, watcher: _Watcher, frame: bytes) -> bool:
        """Whether ``frame`` is a newcomer's sit, which the game checks: the answer says if it
        took it, and then gives the seats' addresses."""
        if not watcher.newcomer or watcher.sits >= MAX_SITS or self.on_sit is None:
            return False
        taken = await self.on_sit(frame)
        if taken is None:
            return False
        watcher.sits += 1
        watcher.answer = peers_frame(self.peers, taken)
        self._wake()
        return True

    async def _write(self, conn: Connection, watcher: _Watcher) -> None:
        cursor, caught_up = 0, False
        while True:
            grown = self._grown  # a wake while this sends is not lost: the loop goes round
            while cursor < len(self.spool):
                if caught_up and len(self.spool) - cursor > self.config.max_lag:
                    raise _Lagging(f"{len(self.spool) - cursor} entries behind")
                for entry in self.spool.read(cursor, min(cursor + _BATCH, len(self.spool))):
                    with trio.fail_after(self.config.send_timeout):
                        await conn.send(entry)
                    cursor += 1
                    self._sent += 1
            if watcher.newcomer and not caught_up:
                with trio.fail_after(self.config.send_timeout):
                    await conn.send(live_frame(cursor))
            caught_up = True
            if watcher.answer is not None:
                # After the entries: the game judged the sit on the log as it stood, which the
                # newcomer must hold to sign its next sit for the hand after (SPEC 6.15).
                answer, watcher.answer = watcher.answer, None
                with trio.fail_after(self.config.send_timeout):
                    await conn.send(answer)
            if self._ending:
                return
            await grown.wait()

    def tell(self, mesh: Mesh) -> None:
        """Keep the players told who watches, through ``mesh``, for as long as it serves."""
        assert self._nursery is not None, "tell while serving_watchers runs"
        self._nursery.start_soon(self._keep_told, mesh)

    async def _keep_told(self, mesh: Mesh) -> None:
        """Each change goes to every player, and the list to each one that (re)connects: on a
        new connection, a replaced one too, the player may have heard nothing (what was queued
        on the old one went with it)."""
        told: dict[bytes, tuple[object, tuple[str, ...]]] = {}  # the connection, what it carried
        while True:
            roster_changed = self._roster_changed
            names = self.names
            connected = mesh.connected()
            for peer in connected:
                link = mesh.connection(peer)
                was, said = told.get(peer, (None, ()))
                if (said if was is link else ()) != names:
                    with contextlib.suppress(TransportError):
                        mesh.send_nowait(peer, encode(Watching(names)))
                    told[peer] = (link, names)
            told = {p: n for p, n in told.items() if p in connected}
            async with trio.open_nursery() as nursery:

                async def wake_on(wait: Callable[[], Awaitable[None]]) -> None:
                    await wait()
                    nursery.cancel_scope.cancel()

                nursery.start_soon(wake_on, roster_changed.wait)
                nursery.start_soon(wake_on, mesh.wait_change)

    async def _end(self) -> None:
        """The game is over: the watchers take the last entries for as long as they take them,
        within ``drain_limit``. A watcher that came just before the end reads the whole log
        from its start, and a node starved of CPU writes it slowly; either may need more than
        ``drain``, which only bounds a watcher that takes nothing."""
        self._ending = True
        self._wake()
        with trio.move_on_after(self.config.drain_limit):
            while not self._none_left.is_set():
                sent = self._sent
                with trio.move_on_after(self.config.drain):
                    await self._none_left.wait()
                if self._sent == sent:
                    return


@contextlib.asynccontextmanager
async def serving_watchers(service: WatchService) -> AsyncIterator[WatchService]:
    """Run ``service`` for the block: the game. Leaving, the watchers get the last entries."""
    async with trio.open_nursery() as nursery:
        service._nursery = nursery
        try:
            yield service
            await service._end()
        finally:
            service._ending = True
            nursery.cancel_scope.cancel()
