"""Full meshes on loopback: one connection per pair, strays refused, peers coming back."""

from __future__ import annotations

import contextlib
import itertools
import logging
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass

import pytest
import trio
import trio.testing

from hearts_p2p.identity import Identity
from hearts_p2p.transport import (
    HandshakeError,
    Member,
    Mesh,
    MeshConfig,
    PeerUnavailable,
    accept_connection,
    dial_handshake,
    open_connection,
    open_mesh,
)
from hearts_p2p.transport.framing import FramedStream
from hearts_p2p.transport.handshake import transcript

TABLE = b"m" * 16
FAST = MeshConfig(retry_initial=0.02, retry_max=0.1, handshake_timeout=2.0)


@dataclass
class Peer:
    identity: Identity
    listener: trio.SocketListener

    @property
    def key(self) -> bytes:
        return self.identity.public_key

    @property
    def port(self) -> int:
        port: int = self.listener.socket.getsockname()[1]
        return port


def identities(n: int) -> list[Identity]:
    """Sorted by key, so index order is the dialing order."""
    ids = [Identity.from_seed(bytes([i + 1]) * 32) for i in range(n)]
    return sorted(ids, key=lambda i: i.public_key)


@contextlib.asynccontextmanager
async def open_peers(n: int) -> AsyncIterator[list[Peer]]:
    async with contextlib.AsyncExitStack() as stack:
        peers = []
        for identity in identities(n):
            (listener,) = await trio.open_tcp_listeners(0, host="127.0.0.1")
            stack.push_async_callback(listener.aclose)
            peers.append(Peer(identity, listener))
        yield peers


def roster(peers: Sequence[Peer]) -> list[Member]:
    return [Member(p.key, ("127.0.0.1", p.port)) for p in peers]


def mesh_of(
    peer: Peer, peers: Sequence[Peer], config: MeshConfig = FAST
) -> contextlib.AbstractAsyncContextManager[Mesh]:
    return open_mesh(peer.identity, TABLE, roster(peers), listeners=[peer.listener], config=config)


async def drain(stream: trio.SocketStream) -> None:
    """Read until the other side hangs up."""
    with contextlib.suppress(trio.BrokenResourceError):
        while await stream.receive_some():
            pass
    await stream.aclose()


@contextlib.asynccontextmanager
async def open_meshes(peers: Sequence[Peer]) -> AsyncIterator[list[Mesh]]:
    async with contextlib.AsyncExitStack() as stack:
        meshes = [await stack.enter_async_context(mesh_of(p, peers)) for p in peers]
        yield meshes


@pytest.mark.parametrize("n", [4, 6])
async def test_full_mesh(n: int) -> None:
    with trio.fail_after(15):
        async with open_peers(n) as peers, open_meshes(peers) as meshes:
            for m in meshes:
                await m.wait_connected()
            for (i, a), (j, b) in itertools.permutations(enumerate(meshes), 2):
                # Exactly one TCP connection per pair: both ends of the same socket.
                ca, cb = a.connection(peers[j].key), b.connection(peers[i].key)
                assert ca is not None and cb is not None
                assert ca.local == cb.remote
                await a.send(peers[j].key, f"{i}->{j}".encode())
            for (i, _), (j, b) in itertools.permutations(enumerate(meshes), 2):
                assert await b.inbox(peers[i].key).receive() == f"{i}->{j}".encode()
            for i, m in enumerate(meshes):
                assert await m.broadcast(f"all from {i}".encode()) == frozenset()
            for (i, _), (_, b) in itertools.permutations(enumerate(meshes), 2):
                assert await b.inbox(peers[i].key).receive() == f"all from {i}".encode()
            assert all(not m.drops for m in meshes)


async def test_frames_keep_order_under_concurrent_senders() -> None:
    with trio.fail_after(15):
        async with open_peers(2) as peers, open_meshes(peers) as (a, b):
            await a.wait_connected()
            to_b = peers[1].key

            async def sender(tag: int) -> None:
                for k in range(200):
                    await a.send(to_b, bytes([tag]) + k.to_bytes(2, "big") + bytes(1000))

            async with trio.open_nursery() as nursery:
                for tag in range(4):
                    nursery.start_soon(sender, tag)
                seen: dict[int, int] = {t: -1 for t in range(4)}
                for _ in range(800):
                    frame = await b.inbox(peers[0].key).receive()
                    tag, k = frame[0], int.from_bytes(frame[1:3], "big")
                    assert k == seen[tag] + 1 and len(frame) == 1003
                    seen[tag] = k


async def test_a_relay_keeps_its_place_before_what_follows_it() -> None:
    """Relays may wait a moment to share a write, but arrive, and never after a frame queued
    later: the relay rule of the game protocol needs the stream's order (SPEC 10.1)."""
    with trio.fail_after(15):
        async with open_peers(2) as peers, open_meshes(peers) as (a, b):
            await a.wait_connected()
            to_b, inbox = peers[1].key, b.inbox(peers[0].key)
            await a.relay(to_b, b"relayed alone")
            assert await inbox.receive() == b"relayed alone"
            for k in range(50):
                await a.relay(to_b, b"relay %d" % k)
                if k % 7 == 0:
                    await a.send(to_b, b"own %d" % k)
            want = [f for k in range(50) for f in
                    [b"relay %d" % k, *([b"own %d" % k] if k % 7 == 0 else [])]]  # fmt: skip
            assert [await inbox.receive() for _ in want] == want
            frames, writes = a.writes
            assert frames == 1 + len(want) and writes < frames  # relays share writes


async def test_strays_are_refused_and_counted(caplog: pytest.LogCaptureFixture) -> None:
    stranger = Identity.from_seed(b"s" * 32)
    config = MeshConfig(handshake_timeout=0.3)
    with trio.fail_after(15):
        async with open_peers(2) as peers:
            low, high = peers
            async with (
                mesh_of(low, peers) as m_low,
                mesh_of(high, peers, config) as m_high,
            ):
                await m_low.wait_connected()
                address = ("127.0.0.1", high.port)

                async def refused(identity: Identity, table: bytes = TABLE) -> None:
                    with pytest.raises(HandshakeError):
                        await open_connection(*address, identity, table)

                await refused(stranger)  # unknown key
                await refused(low.identity, b"x" * 16)  # another table
                await refused(high.identity)  # our own key
                for junk in (b"GET / HTTP/1.1\r\n\r\n", b"\x00\x00\x00\x30" + bytes(48)):
                    stream = await trio.open_tcp_stream(*address)
                    await stream.send_all(junk)
                    await drain(stream)
                silent = await trio.open_tcp_stream(*address)
                while "handshake:timeout" not in m_high.drops:
                    await trio.sleep(0.05)
                await silent.aclose()
                # The real peer was never disturbed.
                await m_low.send(high.key, b"still here")
                assert await m_high.inbox(low.key).receive() == b"still here"
    drops = m_high.drops
    assert drops["handshake:unknown-peer"] == 1
    assert drops["handshake:signature"] == 1
    assert drops["handshake:self"] == 1
    assert drops["handshake:malformed"] + drops["handshake:protocol"] == 2
    assert drops["handshake:timeout"] == 1
    assert "refused a connection" in caplog.text


async def test_a_stranger_hears_nothing_of_the_game_from_a_mesh_listener() -> None:
    """What a mesh listener sends to someone who has not proven a roster key: its protocol tag,
    a fresh nonce, an empty refusal. Neither the game id nor any player's key."""
    stranger = Identity.from_seed(b"s" * 32)
    with trio.fail_after(15):
        async with open_peers(2) as peers:
            low, high = peers
            async with mesh_of(high, peers):
                silent = await raw_exchange(high.port, b"")
                nonce = bytes(32)
                claim = transcript(TABLE, stranger.public_key, high.key, (nonce, nonce))
                proof = stranger.public_key + stranger.sign(b"dialer\0" + claim)
                tried = await raw_exchange(
                    high.port, frame(b"hearts-p2p/tcp/2" + nonce) + frame(proof)
                )
    for heard in (silent, tried):
        assert TABLE not in heard and high.key not in heard and low.key not in heard
        assert heard[:20] == bytes([0, 0, 0, 48]) + b"hearts-p2p/tcp/2"
    assert len(silent) == 4 + 48
    assert tried[4 + 48 :] == frame(b"")  # refused, and nothing else


def frame(payload: bytes) -> bytes:
    return len(payload).to_bytes(4, "big") + payload


async def raw_exchange(port: int, send: bytes) -> bytes:
    """Everything a listener says to a client that sends ``send``, until it hangs up (or for a
    moment, if it waits for more)."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    await stream.send_all(send)
    heard = bytearray()
    with trio.move_on_after(1.0), contextlib.suppress(trio.BrokenResourceError):
        while chunk := await stream.receive_some():
            heard += chunk
    await stream.aclose()
    return bytes(heard)


async def test_wrong_direction_is_refused() -> None:
    """The higher key may not dial the lower one: that would make a second connection."""
    with trio.fail_after(15):
        async with open_peers(2) as peers:
            low, high = peers
            async with mesh_of(low, [low]) as m_low:
                m_low._members[high.key] = Member(high.key)
                stream = await trio.open_tcp_stream("127.0.0.1", low.port)
                with pytest.raises(HandshakeError):
                    await dial_handshake(FramedStream(stream), high.identity, TABLE, low.key)
                await stream.aclose()
                while not m_low.drops:
                    await trio.sleep(0.01)
    assert m_low.drops["handshake:unknown-peer"] == 1


async def test_oversized_frame_costs_only_that_connection() -> None:
    small = MeshConfig(max_frame=1000, retry_initial=0.02, retry_max=0.1)
    with trio.fail_after(15):
        async with open_peers(2) as peers:
            low, high = peers
            async with (
                mesh_of(low, peers) as m_low,
                mesh_of(high, peers, small) as m_high,
            ):
                await m_low.wait_connected()
                first = m_low.connection(high.key)
                await m_low.send(high.key, bytes(2000))
                while m_high.drops["oversize"] == 0:
                    await m_high.wait_change()
                # The dialer notices, redials, and the next frame gets through.
                while m_low.connection(high.key) in (None, first):
                    await m_low.wait_change()
                await m_low.send(high.key, b"small")
                assert await m_high.inbox(low.key).receive() == b"small"


async def test_unavailable_peers() -> None:
    with trio.fail_after(15):
        async with open_peers(3) as peers, mesh_of(peers[0], peers) as m:
            with pytest.raises(PeerUnavailable):
                await m.send(peers[1].key, b"x")
            assert await m.broadcast(b"x") == {peers[1].key, peers[2].key}
            assert m.connected() == frozenset()


@pytest.mark.parametrize("restarted", [0, 2])
async def test_a_peer_comes_back(restarted: int, caplog: pytest.LogCaptureFixture) -> None:
    """Lowest key (it dials everyone) or highest (everyone dials it) restarts at its address."""
    caplog.set_level(logging.INFO)
    with trio.fail_after(15):
        async with open_peers(3) as peers:
            others = [i for i in range(3) if i != restarted]
            back = peers[restarted]
            async with contextlib.AsyncExitStack() as stack:
                meshes = {
                    i: await stack.enter_async_context(mesh_of(peers[i], peers)) for i in others
                }
                async with mesh_of(back, peers) as first:
                    await first.wait_connected()
                    for i in others:
                        await first.send(peers[i].key, b"before")
                async with mesh_of(back, peers) as second:
                    await second.wait_connected()
                    for i in others:
                        await meshes[i].wait_connected()
                        await second.send(peers[i].key, b"after")
                        inbox = meshes[i].inbox(back.key)
                        assert [await inbox.receive(), await inbox.receive()] == [
                            b"before",
                            b"after",
                        ]
                        await meshes[i].send(back.key, b"welcome back")
                        assert await second.inbox(peers[i].key).receive() == b"welcome back"


@contextlib.asynccontextmanager
async def with_a_sink(config: MeshConfig) -> AsyncIterator[tuple[Mesh, Mesh, list[Peer]]]:
    """A mesh of three where the lowest key is a raw client of our own classes: it dials the
    middle peer, completes the handshake, and then reads nothing. Yields the middle peer's
    mesh, the highest peer's, and the peers (sink, middle, highest)."""
    async with open_peers(3) as peers:
        sink, me, other = peers
        async with mesh_of(me, peers, config) as m, mesh_of(other, peers) as m_other:
            conn = await open_connection(
                "127.0.0.1", me.port, sink.identity, TABLE, expected=me.key
            )
            await m.wait_connected([sink.key, other.key])
            try:
                yield m, m_other, peers
            finally:
                await conn.aclose()


async def test_sends_to_a_peer_that_never_reads_never_wait() -> None:
    """What the node sends to a sink only queues; once the sink's outbox is full it is dropped
    (it may come back and catch up), and the other peer hears everything sent to it."""
    with trio.fail_after(15):
        async with with_a_sink(FAST) as (m, m_other, (sink, me, other)):
            chunk = bytes(1 << 16)
            sent = 0
            with pytest.raises(PeerUnavailable):
                while sent < 1 << 30:
                    await m.send(sink.key, chunk)
                    sent += len(chunk)
                    await m.send(other.key, sent.to_bytes(8, "big"))
            assert m.drops["backlog"] == 1 and not m.is_connected(sink.key)
            assert sent <= FAST.outbox_bytes + (8 << 20)  # the outbox, and what the kernel took
            assert await m.broadcast(b"still here") == {sink.key}
            inbox = m_other.inbox(me.key)
            heard = [await inbox.receive() for _ in range(sent // len(chunk))]
            assert heard[-1] == sent.to_bytes(8, "big")
            assert await inbox.receive() == b"still here"


async def test_a_peer_that_takes_no_frame_in_time_is_dropped() -> None:
    config = MeshConfig(send_timeout=0.5, outbox_bytes=1 << 30, outbox_frames=1 << 20)
    with trio.fail_after(15):
        async with with_a_sink(config) as (m, _, (sink, _me, _other)):
            for _ in range(32 << 4):  # 32 MiB: more than the kernel buffers take
                await m.send(sink.key, bytes(1 << 16))
            while m.is_connected(sink.key):
                await m.wait_change()
            assert m.drops["send-timeout"] == 1


async def test_a_frame_cut_off_mid_way_costs_only_that_connection(
    autojump_clock: trio.abc.Clock,
) -> None:
    """A peer sends a frame, then half of a 1 MiB one, and stops, its connection open. After
    ``frame_timeout`` that connection is dropped; the frame before it was delivered."""
    low, me = identities(2)
    roster = [Member(low.public_key), Member(me.public_key)]
    config = MeshConfig(frame_timeout=3.0)
    a, b = trio.testing.memory_stream_pair()
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(dial_handshake, FramedStream(a), low, TABLE, me.public_key)
            theirs = await accept_connection(b, me, TABLE, frame_timeout=config.frame_timeout)
        async with open_mesh(me, TABLE, roster, config=config) as m:
            m.adopt(theirs)
            await a.send_all(frame(b"whole") + (1 << 20).to_bytes(4, "big") + bytes(1 << 19))
            assert await m.inbox(low.public_key).receive() == b"whole"
            start = trio.current_time()
            while m.is_connected(low.public_key):
                await m.wait_change()
            assert trio.current_time() - start == pytest.approx(3.0)
            assert m.drops["stalled-frame"] == 1
