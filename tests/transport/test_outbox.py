"""The outbox's writes: a relay waits a moment for company, and nothing overtakes anything."""

from __future__ import annotations

from typing import cast

import trio
import trio.testing

from hearts_p2p.transport import Connection
from hearts_p2p.transport.outbox import RELAY_HOLD, Outbox


class Recorder:
    """A connection that records each write: the frames it held, and when."""

    def __init__(self) -> None:
        self.writes: list[tuple[float, list[bytes]]] = []

    async def send_many(self, payloads: list[bytes]) -> None:
        self.writes.append((trio.current_time(), list(payloads)))
        await trio.lowlevel.checkpoint()


async def test_held_frames_wait_for_company_and_keep_their_order(
    autojump_clock: trio.abc.Clock,
) -> None:
    """Two relays alone go out together once the first has waited the hold; relays then a
    frame of the peer's own go out at once, in one write, in the order they were put."""
    box, rec = Outbox(100, 1 << 20), Recorder()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(box.write_to, cast(Connection, rec), 10.0)
        start = trio.current_time()
        assert box.put(b"r1", held=True)
        await trio.sleep(RELAY_HOLD / 2)
        assert box.put(b"r2", held=True)
        await box.wait_empty()
        assert rec.writes == [(start + RELAY_HOLD, [b"r1", b"r2"])]
        now = trio.current_time()
        assert box.put(b"r3", held=True) and box.put(b"r4", held=True) and box.put(b"own")
        await box.wait_empty()
        assert rec.writes[1:] == [(now, [b"r3", b"r4", b"own"])]
        assert (box.frames, box.bytes) == (0, 0)
        nursery.cancel_scope.cancel()


async def test_frames_not_held_go_at_once_and_a_closed_outbox_takes_nothing(
    autojump_clock: trio.abc.Clock,
) -> None:
    box, rec = Outbox(2, 1 << 20), Recorder()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(box.write_to, cast(Connection, rec), 10.0)
        await trio.sleep(1)
        now = trio.current_time()
        assert box.put(b"a") and box.put(b"b") and not box.put(b"c")  # two frames at most
        await box.wait_empty()
        assert rec.writes == [(now, [b"a", b"b"])]  # not held: no wait
        box.close()
    assert not box.put(b"d") and box.frames == 0  # write_to returned on close
