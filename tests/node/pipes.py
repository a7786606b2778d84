"""In-memory byte streams with bounded buffers, and meshes built on them, for the virtual clock.

Unlike ``trio.testing.memory_stream_pair`` a writer waits when the buffer is full, as on a TCP
socket: a peer that stops reading makes the other side's writes block.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence

import trio

from hearts_p2p.identity import Identity
from hearts_p2p.transport import Connection, FramedStream, Member, Mesh, open_mesh
from hearts_p2p.transport.handshake import accept_handshake, dial_handshake

from .table import GAME_ID


class _Buffer:
    """One direction: at most ``capacity`` bytes written and not yet read."""

    def __init__(self, capacity: int) -> None:
        self.data = bytearray()
        self.capacity = capacity
        self.closed = False
        self._lot = trio.lowlevel.ParkingLot()

    async def put(self, data: bytes | bytearray | memoryview) -> None:
        view = memoryview(bytes(data))
        await trio.lowlevel.checkpoint()
        while view:
            while len(self.data) >= self.capacity and not self.closed:
                await self._lot.park()
            if self.closed:
                raise trio.BrokenResourceError("the other end is closed")
            room = self.capacity - len(self.data)
            self.data += view[:room]
            view = view[room:]
            self._lot.unpark_all()

    async def get(self, max_bytes: int) -> bytes:
        await trio.lowlevel.checkpoint()
        while not self.data and not self.closed:
            await self._lot.park()
        chunk = bytes(self.data[:max_bytes])
        del self.data[: len(chunk)]
        self._lot.unpark_all()
        return chunk

    def close(self) -> None:
        self.closed = True
        self._lot.unpark_all()


class PipeEnd(trio.abc.Stream):
    def __init__(self, outgoing: _Buffer, incoming: _Buffer) -> None:
        self._out = outgoing
        self._in = incoming

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        if self._out.closed:
            raise trio.ClosedResourceError
        await self._out.put(data)

    async def wait_send_all_might_not_block(self) -> None:
        await trio.lowlevel.checkpoint()

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        return await self._in.get(max_bytes or 1 << 16)

    async def aclose(self) -> None:
        self._out.close()
        self._in.close()
        await trio.lowlevel.checkpoint()


def pipe(capacity: int = 1 << 16, back: int | None = None) -> tuple[PipeEnd, PipeEnd]:
    """Two connected ends; ``capacity`` bytes may wait from the first to the second, ``back``
    (default the same) the other way."""
    there, here = _Buffer(capacity), _Buffer(capacity if back is None else back)
    return PipeEnd(there, here), PipeEnd(here, there)


async def connect(
    a: Identity, b: Identity, capacity: int = 1 << 16, back: int | None = None
) -> tuple[Connection, Connection]:
    """Authenticated connections at ``a`` (the dialer) and ``b``, over a new pipe."""
    ends = pipe(capacity, back)
    frames = FramedStream(ends[0]), FramedStream(ends[1])
    found: dict[int, Connection] = {}

    async def dial() -> None:
        found[0] = Connection(frames[0], await dial_handshake(frames[0], a, GAME_ID, b.public_key))

    async def accept() -> None:
        found[1] = Connection(frames[1], await accept_handshake(frames[1], b, GAME_ID))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(dial)
        nursery.start_soon(accept)
    return found[0], found[1]


@contextlib.asynccontextmanager
async def open_meshes(
    ids: Sequence[Identity], extra: Sequence[Identity] = ()
) -> AsyncIterator[list[Mesh]]:
    """Meshes for ``ids``, fully connected over pipes; ``extra`` are members without a mesh of
    their own, whose connections the test makes.

    Each mesh adopts its connections before its dialers first run, so none dials the roster's
    (unused) addresses while the connections last.
    """
    roster = [Member(i.public_key, ("127.0.0.1", 9)) for i in [*ids, *extra]]
    ends: list[list[Connection]] = [[] for _ in ids]
    for x, a in enumerate(ids):
        for y in range(x + 1, len(ids)):
            ca, cb = await connect(a, ids[y])
            ends[x].append(ca)
            ends[y].append(cb)
    async with contextlib.AsyncExitStack() as stack:
        meshes = []
        for identity, conns in zip(ids, ends, strict=True):
            mesh = await stack.enter_async_context(open_mesh(identity, GAME_ID, roster))
            for conn in conns:
                mesh.adopt(conn)
            meshes.append(mesh)
        yield meshes
