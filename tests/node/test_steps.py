"""The step machine's names and table: every kind has one rule, wire names round-trip, and the
game core imports nothing that does I/O."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import hearts_p2p.game
from hearts_p2p.game import RULES, StepId, StepKind
from hearts_p2p.game.wirekinds import KINDS as ROWS
from hearts_p2p.game.wirekinds import Machine, Signer, wire_kind
from hearts_p2p.wire import KINDS


def test_every_step_kind_has_one_rule_and_a_wire_kind() -> None:
    assert set(RULES) == set(StepKind)
    outside = {"abort", "takeover", "recover", "nolead", "reclaim", "rejoin", "sit"}
    assert {k.value for k in StepKind} | outside == KINDS


def test_every_wire_kind_has_one_row_and_a_step_s_part_is_numbered() -> None:
    """The routing table names every kind that is not a step's part, once; those are the
    only ones taken out of number order, and every part of a step is numbered."""
    assert set(ROWS) | {k.value for k in StepKind} == KINDS
    assert not set(ROWS) & {k.value for k in StepKind}
    assert all(row.kind == kind and not row.numbered for kind, row in ROWS.items())
    assert all(wire_kind(k.value).numbered for k in StepKind)
    assert wire_kind("no such kind").machine is Machine.STEPS  # judged, so its signer's cheat
    newcomers = {k for k, row in ROWS.items() if row.signer is Signer.NEWCOMER}
    assert newcomers == {"sit"}  # a newcomer's key is its own, carried in its ask
    from_table = {k for k, row in ROWS.items() if row.from_table_seat}
    assert from_table == {"reclaim", "rejoin", "nolead"}


@pytest.mark.parametrize(
    ("name", "step"),
    [
        ("play.16", StepId(StepKind.OPEN, 16)),
        ("shuffle.2", StepId(StepKind.SHUFFLE, 2)),
        ("deal", StepId(StepKind.DEAL)),
        ("echo_lock", StepId(StepKind.ECHO_LOCK)),
    ],
)
def test_a_wire_name_round_trips(name: str, step: StepId) -> None:
    assert StepId.parse(name) == step
    assert str(step) == name


@pytest.mark.parametrize("name", ["play", "deal.1", "play.x", "play.-1", "abort", "nope", ""])
def test_a_name_of_no_step_parses_to_none(name: str) -> None:
    assert StepId.parse(name) is None


def test_an_index_goes_with_the_kinds_that_repeat_only() -> None:
    with pytest.raises(ValueError):
        StepId(StepKind.OPEN)
    with pytest.raises(ValueError):
        StepId(StepKind.DEAL, 0)


FORBIDDEN = {"trio", "socket", "os", "time", "subprocess", "threading", "pathlib", "asyncio"}
RANDOM = {"random", "secrets"}
# The pure layers' only imports of these, each given by its caller, never drawn on its own:
ALLOWED = {
    ("deck/randomness.py", "secrets"),  # SystemRandomness: the source the shell passes in
    ("deck/loopback.py", "time"),  # a whole hand in one process: tests and `hearts bench deck`
    ("engine/game.py", "random"),  # deal_hands takes the caller's random.Random (bots, tests)
    ("game/localtable.py", "random"),  # a table in one process: its order from the caller's seed
}


@pytest.mark.parametrize("layer", ["game", "engine", "deck"])
def test_the_pure_layers_do_no_io_and_draw_no_randomness(layer: str) -> None:
    """No trio, sockets, files, clock or randomness of their own in the core, the rules
    engine or the deck: the shell feeds them, so a seed replays them exactly."""
    root = Path(hearts_p2p.__file__).parent
    for path in sorted((root / layer).glob("*.py")):
        where = f"{layer}/{path.name}"
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id != "open", f"{where} opens a file"
            for name in names:
                top = name.split(".")[0]
                if (where, top) in ALLOWED:
                    continue
                assert top not in FORBIDDEN | RANDOM, f"{where} imports {name}"
