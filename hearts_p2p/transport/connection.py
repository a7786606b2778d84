"""An authenticated, framed connection to one peer, and the two ways to get one."""

from __future__ import annotations

import contextlib
from collections.abc import Collection

import trio

from hearts_p2p.identity import Identity
from hearts_p2p.system import current

from .framing import DEFAULT_FRAME_TIMEOUT, DEFAULT_MAX_FRAME, FramedStream
from .handshake import Authenticated, accept_handshake, dial_handshake

__all__ = ["KEEPALIVE", "Connection", "accept_connection", "keep_alive", "open_connection"]

# A peer whose cable is pulled (Wi-Fi gone, a machine frozen) sends no reset: without these the
# kernel holds an idle connection up for hours and unsent data for a quarter of an hour, so the
# node would never see the peer go. Idle, a probe after 5 s, then each second, 3 unanswered:
# about 8 s; data unacknowledged for 10 s (the mesh's send timeout) ends it as well.
KEEPALIVE = {"idle": 5, "interval": 1, "count": 3, "user_timeout_ms": 10_000}


def keep_alive(stream: trio.abc.Stream) -> None:
    """Have the kernel close ``stream``'s socket once its peer stops answering, with the
    options of this OS (``hearts_p2p.system.keepalive``); one an OS version lacks is skipped."""
    if not isinstance(stream, trio.SocketStream):
        return
    sock = stream.socket
    options = current().keepalive.options(
        KEEPALIVE["idle"], KEEPALIVE["interval"], KEEPALIVE["count"], KEEPALIVE["user_timeout_ms"]
    )
    for level, option, value in options:
        with contextlib.suppress(OSError):  # else the mesh's own timeouts are what is left
            sock.setsockopt(level, option, value)


class Connection(trio.abc.AsyncResource):
    """Frames to and from one authenticated peer.

    Sends are serialized by a :class:`trio.StrictFIFOLock`, so any number of tasks may send and
    frames never interleave; exactly one task should receive.
    """

    def __init__(self, frames: FramedStream, peer: Authenticated) -> None:
        self._frames = frames
        self._send_lock = trio.StrictFIFOLock()
        self.peer_key = peer.peer_key
        self.transcript = peer.transcript  # what both sides signed: lobby messages bind to it

    @property
    def local(self) -> tuple[str, int] | None:
        return _address(self._frames.stream, remote=False)

    @property
    def remote(self) -> tuple[str, int] | None:
        """The peer's (host, port), when the stream is a socket."""
        return _address(self._frames.stream, remote=True)

    async def send(self, payload: bytes) -> None:
        """Send one frame; :class:`ConnectionClosed` if the stream is gone."""
        async with self._send_lock:
            await self._frames.send_frame(payload)

    async def send_many(self, payloads: list[bytes]) -> None:
        """Send frames in order, in one write; :class:`ConnectionClosed` if the stream is gone."""
        async with self._send_lock:
            await self._frames.send_frames(payloads)

    async def receive(self) -> bytes:
        """The next frame; :class:`ConnectionClosed` at the end, :class:`FrameTooLarge`."""
        return await self._frames.receive_frame()

    async def aclose(self) -> None:
        await self._frames.aclose()


def _address(stream: trio.abc.Stream, *, remote: bool) -> tuple[str, int] | None:
    if not isinstance(stream, trio.SocketStream):
        return None
    try:
        name = stream.socket.getpeername() if remote else stream.socket.getsockname()
    except OSError:
        return None
    return (str(name[0]), int(name[1]))


async def accept_connection(
    stream: trio.abc.Stream,
    identity: Identity,
    table_id: bytes,
    *,
    expected: Collection[bytes] | None = None,
    max_frame: int = DEFAULT_MAX_FRAME,
    frame_timeout: float = DEFAULT_FRAME_TIMEOUT,
) -> Connection:
    """Authenticate an inbound ``stream``. The caller closes it if this raises."""
    keep_alive(stream)
    frames = FramedStream(stream, max_frame, frame_timeout)
    return Connection(frames, await accept_handshake(frames, identity, table_id, expected))


async def open_connection(
    host: str,
    port: int,
    identity: Identity,
    table_id: bytes,
    *,
    expected: bytes | None = None,
    max_frame: int = DEFAULT_MAX_FRAME,
    frame_timeout: float = DEFAULT_FRAME_TIMEOUT,
) -> Connection:
    """Dial ``host:port`` and authenticate; ``expected`` is the key we mean to reach.

    Raises :class:`OSError` if the connection fails and :class:`HandshakeError` if the peer
    does not prove the expected key. Callers bound the time with a cancel scope.
    """
    stream = await trio.open_tcp_stream(host, port)
    keep_alive(stream)
    try:
        frames = FramedStream(stream, max_frame, frame_timeout)
        peer = await dial_handshake(frames, identity, table_id, expected)
    except BaseException:
        await trio.aclose_forcefully(stream)
        raise
    return Connection(frames, peer)
