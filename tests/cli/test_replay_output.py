"""``hearts replay`` and ``hearts audit`` name the players in every score line, and ``replay
--json`` gives the game as data, through the real ``hearts`` program on the protocol's vectors."""

from __future__ import annotations

import json
from pathlib import Path

from .test_command_errors import hearts

VECTORS = Path(__file__).parents[2] / "protocol" / "vectors" / "log"


def test_scores_are_listed_by_name_and_one_point_is_singular() -> None:
    run = hearts("replay", str(VECTORS / "valid.log"))
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert "  points: bob +0, ann +0, dan +9, cat +17" in lines
    assert "  totals: bob 0, ann 0, dan 9, cat 17" in lines
    assert "Totals: bob 0, ann 0, dan 9, cat 17" in lines
    five = hearts("replay", str(VECTORS / "5_players.log")).stdout
    assert "(1 point)" in five and "pts)" not in five
    audit = hearts("audit", str(VECTORS / "valid.log")).stdout
    assert "  totals: bob 0, ann 0, dan 9, cat 17" in audit.splitlines()


def test_replay_json_is_the_game_as_data() -> None:
    run = hearts("replay", "--json", str(VECTORS / "valid.log"))
    assert run.returncode == 0, run.stderr
    game = json.loads(run.stdout)
    assert game["status"] == "finished" and game["valid"] is True
    assert [(s["name"], s["total"]) for s in game["scores"]] == [
        ("bob", 0), ("ann", 0), ("dan", 9), ("cat", 17)
    ]  # fmt: skip
    assert game["winner_names"] == ["bob", "ann"]
    assert len(game["hands"][0]["tricks"]) == 13
    assert game["final_hash"]
    assert json.loads(hearts("audit", "--json", str(VECTORS / "valid.log")).stdout) == game


def test_a_voided_hand_is_shown_by_audit_and_replay() -> None:
    """Two players gone together: the hand they left is voided, said in one line, and absent
    from the scored hands."""
    line = (
        "hand 1 voided: bob and cat left together; re-dealt as hand 2 (their seats are dealt "
        "open from now on)"
    )
    for command in ("audit", "replay"):
        run = hearts(command, str(VECTORS / "voided.log"))
        assert run.returncode == 0, run.stderr
        assert line in run.stdout.splitlines()
    game = json.loads(hearts("replay", "--json", str(VECTORS / "voided.log")).stdout)
    assert game["voids"] == [{"hand": 1, "seats": [0, 3], "names": ["bob", "cat"], "redeal": 2}]
    assert 1 not in [h["number"] for h in game["hands"]]


def test_a_clean_hands_passes_are_shown_private_and_a_claimed_hands_with_their_cards() -> None:
    """Through the real program: the clean remixed hand of ``valid.log`` says each pass is
    private, in text and JSON; a claimed hand is not clean, reveals every key, and shows them."""
    run = hearts("replay", str(VECTORS / "valid.log"))
    assert run.returncode == 0, run.stderr
    passes = [line for line in run.stdout.splitlines() if " passed " in line]
    assert passes == [
        "  seat 0 (bob) passed to seat 1 (ann): private",
        "  seat 1 (ann) passed to seat 2 (dan): private",
        "  seat 2 (dan) passed to seat 3 (cat): private",
        "  seat 3 (cat) passed to seat 0 (bob): private",
    ]
    game = json.loads(hearts("replay", "--json", str(VECTORS / "valid.log")).stdout)
    assert [p["cards"] for p in game["hands"][0]["passes"]] == [None] * 4
    claimed = hearts("replay", str(VECTORS / "hearts_claim.log")).stdout.splitlines()
    assert "  seat 0 (dan) passed 3♣ 6♣ 9♣ to seat 1 (ann)" in claimed
