"""One of two mesh peers for the pulled-cable test: connect, say so, then send nothing and
wait for the link to the other to go; print how long that took.

    python tests/lan/idle_peer.py INDEX ADDRESS ADDRESS
"""

from __future__ import annotations

import json
import sys

import trio
from mesh_peer import PORT, TABLE, identity  # type: ignore[import-not-found]

from hearts_p2p.transport import Member, MeshConfig, open_mesh

BOUND = 120  # far past the keepalive; without it the kernel holds an idle link up for hours


async def main(index: int, addresses: list[str]) -> None:
    me = identity(index)
    roster = [Member(identity(i).public_key, (a, PORT)) for i, a in enumerate(addresses)]
    (other,) = [m.public_key for m in roster if m.public_key != me.public_key]
    listeners = await trio.open_tcp_listeners(PORT, host=addresses[index])
    config = MeshConfig(retry_initial=0.05, retry_max=0.5)
    async with open_mesh(me, TABLE, roster, listeners=listeners, config=config) as mesh:
        with trio.fail_after(30):
            await mesh.wait_connected()
        print(json.dumps({"connected": True}), flush=True)
        await trio.sleep(0.5)  # both ends up: then the cable goes, with nothing in flight
        start = trio.current_time()
        with trio.move_on_after(BOUND):
            while mesh.is_connected(other):
                await mesh.wait_change()
        gone = None if mesh.is_connected(other) else round(trio.current_time() - start, 1)
        print(json.dumps({"gone_after_s": gone}), flush=True)


if __name__ == "__main__":
    trio.run(main, int(sys.argv[1]), sys.argv[2:])
