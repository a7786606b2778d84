"""An unfinished game on disk, as a program killed mid-game leaves it: the pointer, the saved
state and a log that starts with a real genesis, for the tests of what a rerun does with it."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from pathlib import Path

from hearts_p2p.game import GameProtocol, Genesis, Player
from hearts_p2p.identity import Identity
from hearts_p2p.log import GameLog
from hearts_p2p.node.store import DataDir, ResumeState
from hearts_p2p.rules import Rules
from hearts_p2p.transport import Member

NAMES = ("Ada", "Bot 1", "Bot 2", "Bot 3")


def left_unfinished(
    root: Path,
    addresses: Sequence[tuple[str, int]],
    *,
    others: Sequence[Identity] = (),
    table: str = "Ada's table",
    rules: Rules | None = None,
    bots: int = 0,
    timeout: float = 120.0,
    game_id: bytes | None = None,
) -> ResumeState:
    """Ada's hosted game in ``root``: the other players at ``addresses`` with keys ``others``
    (fresh ones if not given); ``bots`` of them are Ada's own bot peers (``bots/botN``)."""
    store = DataDir(root)
    me = store.identity()
    keys = [*others] + [Identity.generate() for _ in range(len(addresses) - len(others))]
    game_id = game_id or secrets.token_bytes(16)
    proto = GameProtocol(game_id, me.public_key, me, secrets.token_bytes(32))
    players = [Player(NAMES[0], me.public_key, proto.dh_public, False)]
    players += [
        Player(NAMES[i + 1], k.public_key, secrets.token_bytes(32), i < bots)
        for i, k in enumerate(keys)
    ]
    genesis = Genesis(game_id, table, rules or Rules(), tuple(players), 1_800_000_000)
    proto.propose(genesis)
    log = GameLog.open(store.game(game_id).log)
    for entry in proto.take_entries():
        log.append(entry)
    log.close()
    roster = (
        Member(me.public_key, ("127.0.0.1", 1)),
        *(Member(k.public_key, a) for k, a in zip(keys, addresses, strict=True)),
    )
    spec = {"count": bots, "strategy": "heuristic", "seed": None, "delay": 0.0} if bots else None
    state = ResumeState(game_id, me.public_key, "Ada", 1, roster, spec, timeout)
    store.save_unfinished("host", state)
    for i in range(1, bots + 1):
        DataDir(root / "bots" / f"bot{i}").save_unfinished("join", state)
    return state
