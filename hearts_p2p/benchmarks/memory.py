"""What grows, hand after hand, in a game's peers: ``hearts bench game --memory-sites``.

A whole table in one process (``LocalTable`` with its players' logs kept apart, as a node keeps
its file), traced by ``tracemalloc``: the allocation sites that grew most between the start of
hand 2 and the start of the last hand, per hand, and what each protocol holds (``held``) at
both. The table's logs stand in for the players' files, so the signed frames they keep show as
growth there (``wire.py``), as big as the log itself: that is the disk's share, not a peer's.
"""

from __future__ import annotations

import argparse
import random
import tracemalloc
from typing import Any

from ..bots import make_bot
from ..game import GameProtocol, LocalTable
from ..identity import Identity
from ..rules import Rules

FIRST = 2  # the first hand's imports and caches are warm by its end
TOP = 12


def trace(args: argparse.Namespace) -> dict[str, Any]:
    rules = Rules(target=args.target)
    n = rules.players
    rng = random.Random(args.seed)  # one game for one seed: what grows is found again
    ids = [Identity.from_seed(rng.randbytes(32)) for _ in range(n)]
    bots = [make_bot(args.strategy, args.seed + i) for i in range(n)]
    secrets = [rng.randbytes(32) for _ in range(n)]
    table = LocalTable(rules, ids, secrets, rng.randbytes(16), bots, seed=args.seed, logs=True)
    for proto in table.protos:
        proto.views = False  # as a bot's node asks: no view per play
    shots: dict[str, Any] = {}

    def look(i: int, p: GameProtocol) -> bool:
        number = p.game.number if p.game is not None else 0
        if i == 0 and number >= FIRST and shots.get("hand") != number:
            shots["hand"] = number
            shots["last"] = (number, tracemalloc.take_snapshot(), [q.held() for q in table.protos])
            shots.setdefault("first", shots["last"])
        return False

    table.choose = look
    tracemalloc.start(args.frames)
    try:
        table.run()
    finally:
        tracemalloc.stop()
    if "first" not in shots or shots["first"][0] == shots["last"][0]:
        raise SystemExit("hearts bench game --memory-sites: too few hands; raise --target")
    (h0, first, held0), (h1, last, held1) = shots["first"], shots["last"]
    hands = h1 - h0
    sites = [
        {
            "mb_per_hand": round(st.size_diff / hands / 1e6, 4),
            "blocks_per_hand": round(st.count_diff / hands, 1),
            "where": [f"{_short(f.filename)}:{f.lineno}" for f in st.traceback][-args.frames :],
        }
        for st in _own(last).compare_to(_own(first), "traceback")[:TOP]
    ]
    log_bytes = sum(len(e) for e in table.logs[0])
    return {
        "benchmark": "game-memory",
        "target": args.target,
        "players": n,
        "from_hand": h0,
        "to_hand": h1,
        "sites": sites,
        "held_from": held0,
        "held_to": held1,
        "log_mb_per_hand": round(log_bytes / max(1, h1) / 1e6, 4),
    }


def _own(snapshot: tracemalloc.Snapshot) -> tracemalloc.Snapshot:
    """The game's allocations, not the tracing's (its snapshots are taken while it traces)."""
    return snapshot.filter_traces(
        [tracemalloc.Filter(False, tracemalloc.__file__), tracemalloc.Filter(False, __file__)]
    )


def _short(path: str) -> str:
    """A file's path from the package (or the library) on."""
    for mark in ("hearts_p2p/", "site-packages/", "python3."):
        if mark in path:
            return path[path.index(mark) :]
    return path


def render(r: dict[str, Any]) -> str:
    lines = [
        f"game memory: {r['players']} seats in one process, to {r['target']}; what grew from "
        f"hand {r['from_hand']} to hand {r['to_hand']}, per hand, all seats together",
        f"  (each player's log, kept by the table as a node keeps its file, grows "
        f"{r['log_mb_per_hand']} MB per hand: its frames show as wire.py)",
    ]
    for site in r["sites"]:
        lines.append(f"  {site['mb_per_hand']:+.4f} MB {site['blocks_per_hand']:+.1f} blocks")
        lines += [f"      {where}" for where in site["where"]]
    lines.append("  held by each protocol, at the first and at the last hand:")
    for kind in r["held_from"][0]:
        was = [h[kind] for h in r["held_from"]]
        now = [h[kind] for h in r["held_to"]]
        lines.append(f"    {kind}: {was} -> {now}")
    return "\n".join(lines)
