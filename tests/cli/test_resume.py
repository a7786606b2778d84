"""What a rerun of ``play``, ``host``, ``join`` or ``bot`` says and does with a game left
unfinished: resumed only if asked for and able to go on, otherwise forgotten with its log
shown; a flag the resumed game cannot follow is said to be ignored."""

from __future__ import annotations

import io
import time
from pathlib import Path

from hearts_p2p.cli.resume import Asked, settle
from hearts_p2p.node.session import PeerOptions
from hearts_p2p.node.store import DataDir
from hearts_p2p.node.unfinished import Role
from hearts_p2p.rules import Rules
from tests.node.unfinished_game import left_unfinished
from tests.ports import own_port

NOBODY = [("127.0.0.1", own_port()) for _ in range(3)]
HOST = Asked("Ada's table", Rules(), (3, "heuristic"))


def rerun(root: Path, asked: Asked, role: str = "host") -> tuple[str, bool]:
    """What the rerun says, and whether the game stays to be resumed."""
    out = io.StringIO()
    settle(PeerOptions(root, "Ada", ()), Role(role), asked, out)
    return out.getvalue(), DataDir(root).unfinished(role) is not None


def test_the_same_command_resumes_a_game_that_can_go_on_and_names_the_flags_it_ignores(
    tmp_path: Path,
) -> None:
    left_unfinished(tmp_path, NOBODY, bots=3, timeout=120)
    said, kept = rerun(tmp_path, Asked(HOST.table, HOST.rules, HOST.bots, timeout=30, port=4000))
    assert kept, said
    assert "It can go on (its bots Bot 1, Bot 2, Bot 3 start again): resuming it" in said
    assert "Asking its players" not in said  # nobody is asked: its bots resume it
    assert "--timeout 30 ignored: the game keeps its clock of 120 s" in said
    assert "--port 4000 ignored: the game listens where it did, port 1" in said


def test_a_command_asking_for_another_game_starts_it_and_says_what_became_of_the_old(
    tmp_path: Path,
) -> None:
    state = left_unfinished(tmp_path, NOBODY, bots=3)
    log = DataDir(tmp_path).game(state.game_id).log
    said, kept = rerun(tmp_path, Asked("Friday", Rules(players=3), (2, "heuristic")))
    assert not kept
    assert 'table "Friday" (it is "Ada\'s table")' in said
    assert "rules 3 players, to 100" in said and "(it has 4 players, to 100" in said
    assert "2 bots (heuristic) (it has 3 bots (heuristic))" in said
    assert "Starting the new one as asked; the old one is forgotten" in said
    assert f"Check it with: hearts audit {log}" in said and log.exists()
    assert DataDir(tmp_path / "bots" / "bot1").unfinished("join") is None


def test_a_game_nobody_answers_is_forgotten_in_bounded_time(tmp_path: Path) -> None:
    left_unfinished(tmp_path, NOBODY)
    start = time.monotonic()
    said, kept = rerun(tmp_path, Asked(HOST.table, HOST.rules, (0, "heuristic")))
    assert not kept
    assert "Asking its players whether it can go on (up to 5 s)...\n" in said
    assert "It cannot go on: none of its 3 other players answered within 5 s." in said
    assert "Its log, which ends where it stopped: " in said
    assert time.monotonic() - start < 7.0


def test_a_join_naming_another_table_or_address_does_not_resume(tmp_path: Path) -> None:
    state = left_unfinished(tmp_path, NOBODY)
    DataDir(tmp_path).save_unfinished("join", state)
    said, kept = rerun(tmp_path, Asked("Friday"), "join")
    assert not kept and 'table "Friday" (it is "Ada\'s table")' in said
    DataDir(tmp_path).save_unfinished("join", state)
    said, kept = rerun(tmp_path, Asked(peer=("10.0.0.9", 4000)), "join")
    assert not kept and "--peer 10.0.0.9:4000 (not one of its players)" in said


def test_no_unfinished_game_says_nothing(tmp_path: Path) -> None:
    assert rerun(tmp_path, HOST) == ("", False)


def test_a_game_whose_log_cannot_be_read_is_forgotten_saying_so(tmp_path: Path) -> None:
    state = left_unfinished(tmp_path, NOBODY)
    DataDir(tmp_path).game(state.game_id).log.write_bytes(b"torn")
    said, kept = rerun(tmp_path, HOST)
    assert not kept and "Its log cannot be read, so it cannot be resumed. Starting" in said
