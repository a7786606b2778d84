"""The audit against protocol/vectors/log/: the valid game, and every tampered copy's verdict."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from hearts_p2p.audit import audit_log
from hearts_p2p.cli.audit import EXIT_INVALID, EXIT_VALID, run_audit

from .log_vectors import DIR, expected, vectors

EXPECTED: dict[str, Any] = json.loads((DIR / "expected.json").read_text())


def test_the_vectors_are_reproduced_byte_for_byte(tmp_path: Path) -> None:
    files = vectors()
    assert sorted(files) == sorted(EXPECTED)
    for name, (_, data) in files.items():
        assert (DIR / name).read_bytes() == data, name
        (tmp_path / name).write_bytes(data)
    assert expected(files, tmp_path) == EXPECTED


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_audit_reports_exactly_what_the_vector_states(name: str) -> None:
    report = audit_log(DIR / name).to_json()
    want = EXPECTED[name]
    got = {key: report[key] for key in ("valid", "status", "abort", "final_hash", "problems")}
    assert got == {key: want[key] for key in got}


def test_only_the_valid_game_and_the_caught_renege_pass() -> None:
    passing = {name for name, v in EXPECTED.items() if v["valid"]}
    assert passing == {"valid.log", "renege_caught.log"}
    assert EXPECTED["valid.log"]["status"] == "finished"
    assert all(v["problems"] for name, v in EXPECTED.items() if name not in passing)


def test_the_cheats_are_pinned_on_the_cheaters() -> None:
    """Not just any problem: the one each vector plants, with the player who planted it."""
    culprit = {name: [p["culprit"] for p in v["problems"]] for name, v in EXPECTED.items()}
    assert culprit["changed_card.log"] == ["seat 0 (bob)"]
    assert culprit["broken_commitment.log"] == ["seat 2 (dan)"]
    assert culprit["forged_sender.log"][0] == "seat 1 (ann)"
    assert culprit["renege.log"] == ["seat 3 (cat)"]
    assert EXPECTED["renege_caught.log"]["abort"]["blamed"] == "seat 3 (cat)"
    assert "a renege" in EXPECTED["renege.log"]["problems"][0]["what"]
    assert "reordered" in EXPECTED["reordered.log"]["problems"][0]["what"]
    assert "torn" in EXPECTED["torn_tail.log"]["problems"][0]["what"]


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("valid.log", EXIT_VALID),
        ("renege_caught.log", EXIT_VALID),
        ("bad_signature.log", EXIT_INVALID),
        ("renege.log", EXIT_INVALID),
    ],
)
def test_hearts_audit_exit_codes(name: str, code: int, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_audit(argparse.Namespace(log=DIR / name, json=True)) == code
    printed = json.loads(capsys.readouterr().out)
    assert printed["valid"] is (code == EXIT_VALID)
    assert run_audit(argparse.Namespace(log=DIR / name, json=False)) == code
    verdict = capsys.readouterr().out.rstrip().splitlines()[-1]
    assert verdict.startswith("VALID" if code == EXIT_VALID else "INVALID")
