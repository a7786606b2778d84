"""Frames over in-memory streams: sizes, limits, and streams that end badly."""

from __future__ import annotations

import struct

import pytest
import trio
import trio.testing

from hearts_p2p.transport import (
    ConnectionClosed,
    FramedStream,
    FrameStalled,
    FrameTooLarge,
    TruncatedFrame,
)


def pair(max_frame: int = 1024) -> tuple[FramedStream, FramedStream, trio.abc.Stream]:
    a, b = trio.testing.memory_stream_pair()
    return FramedStream(a, max_frame), FramedStream(b, max_frame), a


async def test_round_trip_of_many_sizes() -> None:
    sender, receiver, _ = pair()
    payloads = [b"", b"x", bytes(range(256)) * 4, b"y" * 1023]
    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            for p in payloads:
                nursery.start_soon(sender.send_frame, p)
                assert await receiver.receive_frame() == p


async def test_frames_split_across_reads() -> None:
    _, receiver, raw = pair()
    wire = struct.pack(">I", 5) + b"hello" + struct.pack(">I", 3) + b"abc"
    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:

            async def dribble() -> None:
                for i in range(len(wire)):
                    await raw.send_all(wire[i : i + 1])

            nursery.start_soon(dribble)
            assert await receiver.receive_frame() == b"hello"
            assert await receiver.receive_frame() == b"abc"


async def test_oversized_frame_is_refused_before_reading_it() -> None:
    _, receiver, raw = pair(max_frame=100)
    with trio.fail_after(5):
        await raw.send_all(struct.pack(">I", 101))
        with pytest.raises(FrameTooLarge) as info:
            await receiver.receive_frame()
    assert (info.value.size, info.value.limit) == (101, 100)


async def test_oversized_send_is_refused() -> None:
    sender, _, _ = pair(max_frame=100)
    with pytest.raises(FrameTooLarge):
        await sender.send_frame(bytes(101))


async def test_per_call_limit() -> None:
    sender, receiver, _ = pair()
    with trio.fail_after(5):
        await sender.send_frame(bytes(50))
        with pytest.raises(FrameTooLarge):
            await receiver.receive_frame(limit=49)


async def test_clean_end_versus_truncation() -> None:
    _, receiver, raw = pair()
    with trio.fail_after(5):
        await raw.send_all(struct.pack(">I", 10) + b"abc")
        await raw.aclose()
        with pytest.raises(TruncatedFrame):
            await receiver.receive_frame()

    _, receiver, raw = pair()
    with trio.fail_after(5):
        await raw.send_all(struct.pack(">I", 1) + b"z")
        await raw.aclose()
        assert await receiver.receive_frame() == b"z"
        with pytest.raises(ConnectionClosed) as closed:
            await receiver.receive_frame()
        assert not isinstance(closed.value, TruncatedFrame)


async def test_send_on_closed_stream() -> None:
    sender, receiver, _ = pair()
    await receiver.aclose()
    with pytest.raises(ConnectionClosed):
        await sender.send_frame(b"x")
        await sender.send_frame(b"x")


def test_max_frame_fits_the_length_field() -> None:
    a, _ = trio.testing.memory_stream_pair()
    with pytest.raises(ValueError):
        FramedStream(a, 2**32)


async def test_a_frame_cut_off_mid_way_ends_at_its_deadline(autojump_clock: trio.abc.Clock) -> None:
    """A sender that stops inside a frame, its connection still open, costs the reader at most
    ``frame_timeout``: a 1 MiB frame cut in half, and a header cut after two bytes."""
    for wire in (struct.pack(">I", 1 << 20) + bytes(1 << 19), struct.pack(">I", 10)[:2]):
        a, b = trio.testing.memory_stream_pair()
        receiver = FramedStream(b, 1 << 20, frame_timeout=5.0)
        with trio.fail_after(60):
            await a.send_all(wire)
            start = trio.current_time()
            with pytest.raises(FrameStalled):
                await receiver.receive_frame()
        assert trio.current_time() - start == pytest.approx(5.0)


async def test_waiting_for_a_frame_to_start_has_no_deadline(
    autojump_clock: trio.abc.Clock,
) -> None:
    sender, receiver, _ = pair()
    receiver.frame_timeout = 1.0
    with trio.fail_after(1000):
        async with trio.open_nursery() as nursery:

            async def later() -> None:
                await trio.sleep(100)
                await sender.send_frame(b"at last")

            nursery.start_soon(later)
            assert await receiver.receive_frame() == b"at last"
