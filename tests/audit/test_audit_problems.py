"""The audit lists every problem it can find in one log, not only the first."""

from __future__ import annotations

from pathlib import Path

from hearts_p2p.audit import audit_log
from hearts_p2p.log import read_log
from hearts_p2p.wire import decode_frame, pack

from .log_vectors import DIR, find, identities, log_bytes, resign


def spoil(raw: bytes) -> bytes:
    """``raw`` with one bit of its signature flipped."""
    msg = decode_frame(raw)
    return pack([msg.envelope_bytes, bytes([msg.signature[0] ^ 1]) + msg.signature[1:]])


def test_every_bad_signature_and_a_torn_tail_are_all_reported(tmp_path: Path) -> None:
    entries = read_log(DIR / "valid.log").entries
    a, b = find(entries, "play.3"), find(entries, "play.40")
    entries[a], entries[b] = spoil(entries[a]), spoil(entries[b])
    path = tmp_path / "two.log"
    path.write_bytes(log_bytes(entries)[:-3])
    report = audit_log(path)
    wheres = [p.where for p in report.problems]
    assert wheres[0] == "file"
    assert wheres[1].startswith(f"entry {a} (hand 1, trick 1)")
    assert wheres[2].startswith(f"entry {b} (hand 1, trick 11)")
    assert "cannot go on without a valid message" in report.problems[3].what
    assert report.status == "incomplete" and not report.valid


def test_a_game_message_after_a_claim_is_reported(tmp_path: Path) -> None:
    entries = read_log(DIR / "claim.log").entries
    last = decode_frame(entries[-1]).envelope
    extra = resign(entries[-2], identities()[1], seq=last.seq + 5, kind="end",
                   step="end", body={"totals": [0, 0, 0, 0]})  # fmt: skip
    path = tmp_path / "after.log"
    path.write_bytes(log_bytes([*entries, extra]))
    report = audit_log(path)
    assert report.status == "aborted" and not report.valid
    assert [p.what for p in report.problems] == ["end from seat 0 (bob) after the game stopped"]


def test_a_log_that_goes_on_past_a_proven_cheat_is_reported(tmp_path: Path) -> None:
    """The evidence of a verdict ends an honest log: a log with more after it is one whose
    owner played on past a cheat, and proves nothing about the rest."""
    entries = read_log(DIR / "renege_caught.log").entries
    extra = resign(entries[-1], identities()[0], seq=999, kind="end", step="end",
                   body={"totals": [0, 0, 0, 0]})  # fmt: skip
    path = tmp_path / "after.log"
    path.write_bytes(log_bytes([*entries, extra]))
    report = audit_log(path)
    assert report.status == "incomplete" and not report.valid
    (problem,) = report.problems
    assert "a renege" in problem.what and "goes on as if nobody saw it" in problem.what
    assert problem.culprit == "seat 3 (cat)"


def test_an_entry_after_the_end_of_a_finished_game_is_reported(tmp_path: Path) -> None:
    entries = read_log(DIR / "valid.log").entries
    path = tmp_path / "extra.log"
    path.write_bytes(log_bytes([*entries, entries[find(entries, "play.7")]]))
    report = audit_log(path)
    assert report.status == "finished" and not report.valid
    assert [p.what for p in report.problems] == [
        "play.7 from seat 0 (bob) after the end of the game"
    ]
