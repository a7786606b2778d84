"""One mesh peer for the LAN tests: connect to all, exchange a frame with each, then a barrier.

    python tests/lan/mesh_peer.py INDEX ADDRESS [ADDRESS ...]

Peer ``INDEX`` listens at ``ADDRESS[INDEX]``; identities are derived from the index. It prints
one JSON line with how long the mesh took to connect.
"""

from __future__ import annotations

import json
import sys

import trio

from hearts_p2p.identity import Identity
from hearts_p2p.transport import Member, MeshConfig, open_mesh

PORT = 47300
TABLE = b"L" * 16


def identity(i: int) -> Identity:
    return Identity.from_seed(bytes([i + 1]) * 32)


async def main(index: int, addresses: list[str]) -> None:
    me = identity(index)
    roster = [Member(identity(i).public_key, (a, PORT)) for i, a in enumerate(addresses)]
    others = [m.public_key for m in roster if m.public_key != me.public_key]
    listeners = await trio.open_tcp_listeners(PORT, host=addresses[index])
    config = MeshConfig(retry_initial=0.05, retry_max=0.5)
    with trio.fail_after(30):
        start = trio.current_time()
        async with open_mesh(me, TABLE, roster, listeners=listeners, config=config) as mesh:
            await mesh.wait_connected()
            connected = trio.current_time() - start
            for word in (b"hello", b"done"):
                assert not await mesh.broadcast(word + bytes([index]))
                for key in others:
                    frame = await mesh.inbox(key).receive()
                    assert frame[:-1] == word, frame
    print(json.dumps({"index": index, "connected_s": round(connected, 3)}), flush=True)


if __name__ == "__main__":
    trio.run(main, int(sys.argv[1]), sys.argv[2:])
