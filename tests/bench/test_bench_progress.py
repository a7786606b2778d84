"""The progress line of ``hearts bench game``: on a terminal only, never with --quiet, and the
hand it names read from the host's timing records."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from hearts_p2p.benchmarks.game import hand_now
from hearts_p2p.benchmarks.progress import Progress
from hearts_p2p.cli.main import main


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_shows_on_a_terminal_and_replaces_its_line() -> None:
    screen = Terminal()
    p = Progress(quiet=False, stream=screen)
    p.show("game: hand 12 over loopback, 30 s")
    p.show("game: hand 3, 31 s")
    p.close()
    assert screen.getvalue() == (
        "\rgame: hand 12 over loopback, 30 s\rgame: hand 3, 31 s" + " " * 15 + "\n"
    )


def test_no_progress_when_quiet_or_not_a_terminal() -> None:
    for stream, quiet in ((Terminal(), True), (io.StringIO(), False)):
        p = Progress(quiet=quiet, stream=stream)
        p.show("game: hand 1")
        p.close()
        assert stream.getvalue() == ""


def test_the_hand_comes_from_the_last_timing_record(tmp_path: Path) -> None:
    timings = tmp_path / "t0"
    assert hand_now(timings) == 0  # not written yet
    records = [{"step": "1:deal", "sent": 1.0}, {"step": "7:play.3", "seen": 2.0}]
    timings.write_text("".join(json.dumps(r) + "\n" for r in records) + '{"step": "8:pl')
    assert hand_now(timings) == 7  # a record being written is skipped


def test_the_engine_and_deck_benches_show_their_runs_on_a_terminal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``hearts bench engine`` and ``deck`` say how far they are, on stderr, when it is a
    terminal; with --quiet, nothing."""
    screen = Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    assert main(["bench", "engine", "--hands", "600", "--json"]) == 0
    assert "\rengine: 500/600 hands" in screen.getvalue()
    json.loads(capsys.readouterr().out)  # stdout stays the JSON alone
    assert main(["bench", "deck", "--hands", "1", "--players", "3", "--json"]) == 0
    assert "\rdeck: 3 seats, hand 1 of 1" in screen.getvalue()
    json.loads(capsys.readouterr().out)
    quiet = Terminal()
    monkeypatch.setattr(sys, "stderr", quiet)
    assert main(["bench", "engine", "--hands", "600", "--json", "--quiet"]) == 0
    assert quiet.getvalue() == ""
