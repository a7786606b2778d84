"""A full mesh of authenticated connections between the seats of one table.

Each pair of peers has exactly one connection: the peer with the lower public key dials, the
higher one accepts, and a connection the rule did not call for is refused. A dialer that loses
its connection redials with backoff for as long as the mesh is open; an acceptor takes a new
connection from a known key in place of the old one, which is how a restarted peer comes back
(it must listen at the same roster address). Received frames go to one bounded channel per peer,
so a peer that floods us fills only its own queue and then waits on TCP backpressure.

Sending never waits on a peer: frames go to a bounded outbox per connection, written by a task
of its own. A peer whose outbox is full, or that takes longer than ``send_timeout`` to take one
frame, is not reading: its connection is dropped (it may come back and catch up), so one slow or
dead peer cannot hold up the node or the others.

Anything wrong from outside (a stranger, a failed handshake, an oversized frame) is logged,
counted in :attr:`Mesh.drops`, and costs only that one connection.
"""

from __future__ import annotations

import collections
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import NoReturn

import trio

from hearts_p2p.identity import Identity, fingerprint

from .connection import Connection, accept_connection, open_connection
from .errors import (
    ConnectionClosed,
    FrameStalled,
    FrameTooLarge,
    HandshakeError,
    PeerUnavailable,
    TransportError,
    TruncatedFrame,
)
from .framing import DEFAULT_FRAME_TIMEOUT, DEFAULT_MAX_FRAME
from .outbox import Outbox

__all__ = ["Member", "Mesh", "MeshConfig", "open_mesh"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Member:
    """One seat's identity key and the address it listens on.

    The address may be ``None`` for the peer that dials everyone (the lowest key) or for this
    node itself; peers that are dialed need one.
    """

    public_key: bytes
    address: tuple[str, int] | None = None


@dataclass(frozen=True)
class MeshConfig:
    """Limits and timeouts; the mesh applies the timeouts with cancel scopes.

    A dial gets ``connect_timeout + handshake_timeout`` for connecting and authenticating
    together; an inbound connection gets ``handshake_timeout`` to authenticate. Redials back
    off from ``retry_initial`` to ``retry_max`` seconds. A started frame must arrive within
    ``frame_timeout``; a peer must take each frame we write within ``send_timeout`` and let no
    more than ``outbox_frames`` frames or ``outbox_bytes`` bytes wait for it. Closing the mesh
    gives the outboxes ``close_timeout`` to empty.
    """

    max_frame: int = DEFAULT_MAX_FRAME
    inbox_size: int = 256
    frame_timeout: float = DEFAULT_FRAME_TIMEOUT
    send_timeout: float = 10.0
    outbox_frames: int = 4096
    outbox_bytes: int = 4 * DEFAULT_MAX_FRAME
    close_timeout: float = 0.25
    connect_timeout: float = 5.0
    handshake_timeout: float = 5.0
    retry_initial: float = 0.05
    retry_max: float = 1.0
    max_pending_handshakes: int = 32


DEFAULT_MESH_CONFIG = MeshConfig()


class Mesh:
    """Connections to every other seat; made by :func:`open_mesh`.

    The node reads each peer's frames from :meth:`inbox` and writes with :meth:`send` or
    :meth:`broadcast`. Connection changes (up, down, replaced) wake :meth:`wait_change`.
    """

    def __init__(
        self,
        identity: Identity,
        table_id: bytes,
        roster: Iterable[Member],
        config: MeshConfig,
        strangers: Callable[[Connection], None] | None = None,
        dial_all: bool = False,
    ) -> None:
        self._identity = identity
        self._strangers = strangers
        self._table_id = table_id
        self._config = config
        me = identity.public_key
        self._members = {m.public_key: m for m in roster if m.public_key != me}
        self.peers: tuple[bytes, ...] = tuple(sorted(self._members))
        self._dials = frozenset(k for k in self.peers if me < k or dial_all)
        self._accepts = frozenset(k for k in self.peers if k < me and not dial_all)
        for key in self._dials:
            if self._members[key].address is None:
                raise ValueError(f"peer {fingerprint(key)} is dialed but has no address")
        inboxes = {k: trio.open_memory_channel[bytes](config.inbox_size) for k in self.peers}
        self._inbox_in = {k: pair[0] for k, pair in inboxes.items()}
        self._inbox_out = {k: pair[1] for k, pair in inboxes.items()}
        self._connections: dict[bytes, Connection] = {}
        self._scopes: dict[Connection, trio.CancelScope] = {}
        self._outboxes: dict[Connection, Outbox] = {}
        self._changed = trio.Event()
        self._pending = 0
        self._nursery: trio.Nursery | None = None
        self.drops: collections.Counter[str] = collections.Counter()
        self._written = [0, 0]  # frames and writes of the connections gone

    @property
    def writes(self) -> tuple[int, int]:
        """Frames written to peers so far, and the writes they took (``outbox.py`` joins the
        frames waiting into one write)."""
        boxes = self._outboxes.values()
        return (self._written[0] + sum(b.written for b in boxes),
                self._written[1] + sum(b.writes for b in boxes))  # fmt: skip

    # -- what the node uses ---------------------------------------------------------------

    def inbox(self, peer: bytes) -> trio.MemoryReceiveChannel[bytes]:
        """Frames received from ``peer``, in order, across reconnections."""
        return self._inbox_out[peer]

    def connection(self, peer: bytes) -> Connection | None:
        """The live connection to ``peer``, if any (for its address, say)."""
        return self._connections.get(peer)

    def is_connected(self, peer: bytes) -> bool:
        return peer in self._connections

    def connected(self) -> frozenset[bytes]:
        return frozenset(self._connections)

    async def wait_change(self) -> None:
        """Return after the next connection comes up, goes down or is replaced."""
        await self._changed.wait()

    async def wait_connected(self, peers: Collection[bytes] | None = None) -> None:
        """Wait until every one of ``peers`` (default: all) is connected."""
        wanted = set(self.peers if peers is None else peers)
        while not wanted <= self._connections.keys():
            await self.wait_change()

    async def send(self, peer: bytes, payload: bytes) -> None:
        """Queue one frame for ``peer`` without waiting for it to be written.

        :class:`PeerUnavailable` if it is not connected, or if its outbox is full: then its
        connection is dropped. :class:`FrameTooLarge` if ``payload`` exceeds the maximum.
        """
        self.send_nowait(peer, payload)
        # No yield: a caller queuing a burst (relays, then its own message) has it written in
        # one write per peer, not one per frame; cancellation is still honoured.
        await trio.lowlevel.checkpoint_if_cancelled()

    async def relay(self, peer: bytes, payload: bytes) -> None:
        """:meth:`send` for a frame ``peer`` most likely has already (another's message passed
        on): it may wait a moment to share a write with what follows (``outbox.RELAY_HOLD``),
        and is never written after a frame queued later."""
        self.send_nowait(peer, payload, held=True)
        await trio.lowlevel.checkpoint_if_cancelled()

    def send_nowait(self, peer: bytes, payload: bytes, *, held: bool = False) -> None:
        """:meth:`send`, for callers that may not wait at all (``held``: as :meth:`relay`)."""
        if len(payload) > self._config.max_frame:
            raise FrameTooLarge(len(payload), self._config.max_frame)
        conn = self._connections.get(peer)
        if conn is None:
            raise PeerUnavailable(f"{fingerprint(peer)} is not connected")
        if not self._outboxes[conn].put(payload, held=held):
            self.drops["backlog"] += 1
            log.warning("%s does not take what we send; dropping its connection", fingerprint(peer))
            self._drop(conn)
            raise PeerUnavailable(f"{fingerprint(peer)} does not read: its outbox is full")

    async def broadcast(self, payload: bytes) -> frozenset[bytes]:
        """Queue one frame for every peer; the peers it will not reach."""
        missed: set[bytes] = set()
        for peer in self.peers:
            try:
                self.send_nowait(peer, payload)
            except PeerUnavailable:
                missed.add(peer)
        await trio.lowlevel.checkpoint_if_cancelled()  # no yield, as in send
        return frozenset(missed)

    async def wait_sent(self) -> None:
        """Return once every frame queued so far is written (or its connection gone)."""
        for outbox in list(self._outboxes.values()):
            await outbox.wait_empty()

    def add_member(self, key: bytes) -> None:
        """Accept ``key`` from now on as a member that dials this node: a newcomer taking an
        open seat, which dials every seat (``dial_all``) since no roster gives its address."""
        if key == self._identity.public_key or key in self._members:
            return
        self._members[key] = Member(key)
        self.peers = tuple(sorted(self._members))
        self._accepts = self._accepts | {key}
        self._inbox_in[key], self._inbox_out[key] = trio.open_memory_channel[bytes](
            self._config.inbox_size
        )
        self._notify()

    def adopt(self, conn: Connection) -> None:
        """Take over a connection authenticated elsewhere (say, the lobby's) for its peer."""
        if conn.peer_key not in self._members:
            raise ValueError(f"{fingerprint(conn.peer_key)} is not in the roster")
        assert self._nursery is not None, "adopt while the mesh is open"
        self._install(conn)

    # -- connections ----------------------------------------------------------------------

    def _notify(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    def _install(self, conn: Connection) -> None:
        assert self._nursery is not None
        old = self._connections.get(conn.peer_key)
        if old is not None:
            self.drops["replaced"] += 1
            log.info("%s reconnected; replacing its old connection", fingerprint(conn.peer_key))
            self._scopes[old].cancel()
        self._connections[conn.peer_key] = conn
        self._scopes[conn] = trio.CancelScope()
        self._outboxes[conn] = Outbox(self._config.outbox_frames, self._config.outbox_bytes)
        self._nursery.start_soon(self._run, conn)
        self._notify()

    def _drop(self, conn: Connection) -> None:
        if self._connections.get(conn.peer_key) is conn:
            del self._connections[conn.peer_key]
            self._notify()
        scope = self._scopes.get(conn)
        if scope is not None:
            scope.cancel()

    async def _run(self, conn: Connection) -> None:
        """Read and write ``conn`` until either side of it fails; then it is dropped."""
        try:
            with self._scopes[conn]:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._write, conn)
                    await self._read(conn)
        finally:
            self._drop(conn)
            del self._scopes[conn]
            box = self._outboxes.pop(conn)
            box.close()
            self._written[0] += box.written
            self._written[1] += box.writes
            await trio.aclose_forcefully(conn)

    async def _read(self, conn: Connection) -> None:
        peer = fingerprint(conn.peer_key)
        inbox = self._inbox_in[conn.peer_key]
        try:
            while True:
                await inbox.send(await conn.receive())
        except FrameTooLarge as e:
            self.drops["oversize"] += 1
            log.warning("closing connection to %s: %s", peer, e)
        except FrameStalled as e:
            self.drops["stalled-frame"] += 1
            log.warning("closing connection to %s: %s", peer, e)
        except TruncatedFrame:
            self.drops["truncated"] += 1
            log.warning("connection to %s ended inside a frame", peer)
        except ConnectionClosed as e:
            log.info("connection to %s closed: %s", peer, e)
        except trio.BrokenResourceError:
            log.warning("inbox of %s closed by its reader; closing the connection", peer)
        self._drop(conn)

    async def _write(self, conn: Connection) -> None:
        peer = fingerprint(conn.peer_key)
        try:
            await self._outboxes[conn].write_to(conn, self._config.send_timeout)
        except trio.TooSlowError:
            self.drops["send-timeout"] += 1
            log.warning("%s took no frame for %s s; dropping its connection", peer,
                        self._config.send_timeout)  # fmt: skip
        except ConnectionClosed as e:
            log.info("connection to %s lost while sending: %s", peer, e)
        self._drop(conn)

    async def _dial(self, key: bytes) -> NoReturn:
        address = self._members[key].address
        assert address is not None
        delay = self._config.retry_initial
        while True:
            if key in self._connections:
                await self.wait_change()
                continue
            try:
                with trio.fail_after(self._config.connect_timeout + self._config.handshake_timeout):
                    conn = await open_connection(
                        *address,
                        self._identity,
                        self._table_id,
                        expected=key,
                        max_frame=self._config.max_frame,
                        frame_timeout=self._config.frame_timeout,
                    )
            except (OSError, trio.TooSlowError, TransportError) as e:
                reason = e.reason if isinstance(e, HandshakeError) else "dial"
                self.drops[f"dial:{reason}"] += 1
                log.debug("dialing %s at %s:%d: %r", fingerprint(key), *address, e)
                await trio.sleep(delay)
                delay = min(delay * 2, self._config.retry_max)
                continue
            delay = self._config.retry_initial
            self._install(conn)

    async def _accept_one(self, stream: trio.SocketStream) -> None:
        if self._pending >= self._config.max_pending_handshakes:
            self.drops["busy"] += 1
            await trio.aclose_forcefully(stream)
            return
        self._pending += 1
        try:
            with trio.fail_after(self._config.handshake_timeout):
                conn = await accept_connection(
                    stream,
                    self._identity,
                    self._table_id,
                    expected=self._accepts if self._strangers is None else None,
                    max_frame=self._config.max_frame,
                    frame_timeout=self._config.frame_timeout,
                )
        except (trio.TooSlowError, HandshakeError) as e:
            reason = e.reason if isinstance(e, HandshakeError) else "timeout"
            self.drops[f"handshake:{reason}"] += 1
            log.warning("refused a connection from %s: %s", _remote(stream), reason)
            await trio.aclose_forcefully(stream)
            return
        finally:
            self._pending -= 1
        if conn.peer_key in self._accepts:
            self._install(conn)
        elif self._strangers is not None and conn.peer_key not in self._members:
            self._strangers(conn)  # a key outside the roster: a watcher, say; it owns the conn
        else:
            self.drops["handshake:unknown-peer"] += 1
            log.warning("refused a connection from %s: unknown-peer", _remote(stream))
            await trio.aclose_forcefully(conn)

    async def _serve(self, listener: trio.SocketListener) -> NoReturn:
        assert self._nursery is not None
        while True:
            try:
                stream = await listener.accept()
            except OSError as e:
                # Out of file descriptors and the like: back off rather than spin.
                log.warning("accept failed: %s", e)
                await trio.sleep(self._config.retry_max)
                continue
            self._nursery.start_soon(self._accept_one, stream)


def _remote(stream: trio.SocketStream) -> str:
    try:
        host, port = stream.socket.getpeername()[:2]
    except OSError:
        return "?"
    return f"{host}:{port}"


@contextlib.asynccontextmanager
async def open_mesh(
    identity: Identity,
    table_id: bytes,
    roster: Iterable[Member],
    *,
    listeners: Sequence[trio.SocketListener] = (),
    config: MeshConfig = DEFAULT_MESH_CONFIG,
    strangers: Callable[[Connection], None] | None = None,
    dial_all: bool = False,
) -> AsyncIterator[Mesh]:
    """Connect to every other member of ``roster`` (which may include this node).

    ``listeners`` are where the higher-keyed side accepts; the caller opened them (it had to
    announce the port) and still owns them. With ``strangers``, a dialer whose key is not in
    the roster is authenticated too (it learns this node's key, as an announcement says it)
    and handed over, connection and all, instead of refused: how the host takes watchers.
    With ``dial_all`` this node dials every member whatever the keys' order: a newcomer, whose
    address no member knows (they accept it once its sit is known: :meth:`Mesh.add_member`).
    The mesh dials at once and keeps redialing; use :meth:`Mesh.wait_connected` under a
    cancel scope to wait for everyone. Leaving, it writes what is still queued for at most
    ``close_timeout``.
    """
    mesh = Mesh(identity, table_id, roster, config, strangers, dial_all)
    async with trio.open_nursery() as nursery:
        mesh._nursery = nursery
        for listener in listeners:
            nursery.start_soon(mesh._serve, listener)
        for key in sorted(mesh._dials):
            nursery.start_soon(mesh._dial, key)
        try:
            yield mesh
            with trio.move_on_after(config.close_timeout):
                await mesh.wait_sent()  # the last frames (a quit, a done) should reach the peers
        finally:
            nursery.cancel_scope.cancel()
            for channel in mesh._inbox_in.values():
                channel.close()
