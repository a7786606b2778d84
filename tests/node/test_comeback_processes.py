"""Coming back between OS processes on loopback: a `hearts bot` killed for good is taken over
past the timeout; rerun with the same command and data dir, it learns so, follows, and takes
its seat back at the next hand. All four logs end byte for byte the same."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from hearts_p2p.log import read_log
from hearts_p2p.wire import decode_frame

from .procs import entries, game_log
from .test_hostile_processes import BOUND, ODD, Table
from .test_processes import first_difference, four_peers

pytestmark = pytest.mark.slow


def kinds(data_dir: Path) -> list[str]:
    try:
        return [decode_frame(e).envelope.kind for e in read_log(game_log(data_dir)).entries]
    except (ValueError, OSError):
        return []


def test_a_bot_killed_for_good_reruns_and_takes_its_seat_back(tmp_path: Path) -> None:
    t = Table(tmp_path, timeout=3)
    t.cmds = four_peers(t.dirs, "--timeout", "3", "--verbose", target=60)
    with t:
        t.wait_entries(40)
        t.procs[ODD].kill()
        t.procs[ODD].wait()
        deadline = time.monotonic() + BOUND
        while "recover" not in kinds(t.dirs[0]):  # the others took its seat over
            assert time.monotonic() < deadline, t.detail()
            time.sleep(0.05)
        again = t.restart(ODD)
        codes = [p.wait(timeout=max(1.0, deadline - time.monotonic())) for p in t.procs]
        assert codes == [0, 0, 0, 0], t.detail()
        assert again.returncode == 0
    logs = t.logs((0, 1, 2, 3))
    assert all(log == logs[0] for log in logs), first_difference(logs)
    assert entries(t.dirs[ODD]) == len(logs[0])
    report = t.audit(ODD)
    assert report["status"] == "finished" and report["abort"] is None, report["abort"]
    assert [x["name"] for x in report["takeovers"]] == [f"P{ODD}"]
    (back,) = report["returns"]
    assert back["name"] == f"P{ODD}" and back["refused_by"] == [] and back["back"], back
    assert back["hand"] > report["takeovers"][0]["hand"]
    # Every seated player took fresh keys with it: three rekey escrows, and the returner's
    # rejoin carried alike in the three welcomes.
    logged = [decode_frame(e).envelope for e in read_log(game_log(t.dirs[0])).entries]
    rekeys = [e for e in logged if e.kind == "rekey" and e.hand == back["hand"]]
    welcomes = {e.body["rejoin"] for e in logged if e.kind == "welcome" and e.hand == back["hand"]}
    (rejoin,) = welcomes
    assert len(rekeys) == 3 and decode_frame(rejoin).envelope.sender not in {
        e.sender for e in rekeys
    }
    shown = t.outs[ODD].read_text()
    assert "the table has played your seat since" in shown, shown[-2000:]
    assert f"you are back from hand {back['hand']}" in shown, shown[-2000:]
