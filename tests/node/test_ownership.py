"""Who writes the game state: each field of ``GameState`` is assigned (the field, or an item of
it) only by the modules this map names, outside ``state.py``'s own methods. A module that starts
writing another's field fails here until the map says so on purpose; the fields with more than
one writer are where the core's concerns still share state."""

from __future__ import annotations

import ast
import dataclasses
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

import hearts_p2p
from hearts_p2p.game.state import GameState, Status

WRITERS: dict[str, list[str]] = {
    "abort": ["game/abort.py"],
    "against": ["game/protocol.py"],
    "ahead": ["game/ahead.py", "game/handsteps.py"],
    "bad_escrow": ["game/seating.py"],
    "choices": ["game/protocol.py", "game/reclaim.py", "game/rekey.py", "game/sitdown.py"],
    "cleared": ["game/protocol.py"],
    "consent": ["game/protocol.py"],
    "dh": ["game/redeal.py", "game/rekey.py"],
    "disputes": ["game/seating.py"],
    "escrow": ["game/rekey.py", "game/seating.py"],
    "events": ["game/protocol.py"],
    "evidence": ["game/abort.py"],
    "flip": ["game/seating.py"],
    "flow": ["game/handsteps.py"],
    "game": ["game/seating.py"],
    "genesis": ["game/seating.py"],
    "hand_actions": ["game/handsteps.py"],
    "hand_msgs": ["game/handsteps.py"],
    "history": ["game/protocol.py"],
    "holders": ["game/sitdown.py"],
    "kept": ["game/protocol.py"],
    "later": ["game/protocol.py"],
    "left": ["game/protocol.py"],
    "me": ["game/seating.py", "game/sitdown.py"],
    "min_proof_rounds": ["game/protocol.py"],
    "mute": ["game/protocol.py"],
    "next_seq": ["game/protocol.py", "game/redeal.py", "game/rekey.py", "game/rollcall.py"],
    "offers": ["game/reclaim.py"],
    "outbox": ["game/protocol.py"],
    "pending": ["game/abort.py"],
    "player_at": ["game/seating.py"],
    "plays": ["game/handsteps.py"],
    "refused": ["game/claims.py"],
    "rekeying": ["game/rekey.py"],
    "relays": ["game/abort.py", "game/protocol.py"],
    "returned": ["game/protocol.py"],
    "returns": ["game/rekey.py"],
    "rolled": ["game/rollcall.py"],
    "rolled_prev": ["game/rollcall.py"],
    "round": ["game/redeal.py", "game/takeover.py", "game/void.py"],
    "seat_of": ["game/seating.py"],
    "secret": ["game/redeal.py", "game/rekey.py"],
    "shares": ["game/rekey.py", "game/seating.py"],
    "sits": ["game/sitdown.py"],
    "steps": ["game/protocol.py"],
    "stopped": ["game/handsteps.py"],
    "table": ["game/redeal.py", "game/takeover.py"],
    "unclaimed": ["game/handsteps.py", "game/rollcall.py"],
    "views": ["game/protocol.py"],
    "window": ["game/protocol.py"],
}


def _writes(tree: ast.AST, fields: set[str]) -> Iterator[ast.Attribute]:
    """Every ``x.field = …``, ``x.field[k] = …``, ``x.field += …`` and ``del x.field[k]``."""
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign | ast.Delete):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        for t in targets:
            for el in t.elts if isinstance(t, ast.Tuple) else [t]:
                while isinstance(el, ast.Subscript):
                    el = el.value
                if isinstance(el, ast.Attribute) and el.attr in fields:
                    yield el


def test_each_field_of_the_game_state_has_the_writers_the_map_names() -> None:
    fields = {f.name for f in dataclasses.fields(GameState)}
    root = Path(hearts_p2p.__file__).parent
    found: dict[str, set[str]] = defaultdict(set)
    for path in sorted(root.rglob("*.py")):
        where = path.relative_to(root).as_posix()
        if where == "game/state.py":
            continue
        for attr in _writes(ast.parse(path.read_text()), fields):
            if ast.unparse(attr.value) in ("s", "self._s", "state"):
                found[attr.attr].add(where)
    assert {k: sorted(v) for k, v in found.items()} == WRITERS
    assert all(w.startswith("game/") for ws in WRITERS.values() for w in ws)  # the shell none


def test_a_game_s_status_moves_only_as_its_table_says() -> None:
    s = GameState(b"g" * 16, b"k" * 32, None, bytes(32), {})
    with pytest.raises(RuntimeError, match="awaiting genesis cannot become finished"):
        s.move_to(Status.FINISHED)
    s.move_to(Status.RUNNING)
    s.move_to(Status.ABORTED)
    s.move_to(Status.ABORTED)  # a verdict replaced by one that ranks before it
    with pytest.raises(RuntimeError):
        s.move_to(Status.RUNNING)
    assert s.status is Status.ABORTED
