"""A whole game on a private LAN: four peers in four namespaces find the table and play it.

Peer 0 hosts (a bot plays its seat); peers 1-3 are `hearts bot` processes that find the table
by discovery (multicast, or broadcast only), join, and play to the end. Every peer must end
with the same log, and the audit must accept it — also with 10 % of packets lost.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from hearts_p2p.audit import audit_log
from hearts_p2p.log import LogCorrupt, read_log

from .lan_netns import PEER_INTERFACE, Lan, private_lan, require_netns

pytestmark = [pytest.mark.netns, pytest.mark.slow]

# How long the bots look for the table: the host may start slowly on a machine busy with other
# tests, and a lost announcement costs a second more; a bot that hears it sooner joins at once.
FIND_WAIT = "120"


def start(
    lan: Lan, tmp: Path, mode: list[str], target: str, timeout: str = "60"
) -> list[subprocess.Popen[str]]:
    common = ["--interface", PEER_INTERFACE, "--discovery-port", "47299", "--timeout", timeout,
              *mode]  # fmt: skip
    host = subprocess.Popen(
        lan.command(
            0,
            "-m",
            "hearts_p2p.cli.main",
            "host",
            "--headless",
            "--bot-strategy",
            "heuristic",
            "--table",
            "lan game",
            "--target",
            target,
            "--name",
            "host",
            "--data-dir",
            str(tmp / "p0"),
            *common,
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    bots = [
        subprocess.Popen(
            lan.command(
                i,
                "-m",
                "hearts_p2p.cli.main",
                "bot",
                "lan game",
                "--strategy",
                "heuristic",
                "--name",
                f"bot{i}",
                "--seed",
                str(i),
                "--data-dir",
                str(tmp / f"p{i}"),
                "--wait",
                FIND_WAIT,
                *common,
            ),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for i in (1, 2, 3)
    ]
    return [host, *bots]


def finish(
    waited: list[subprocess.Popen[str]], procs: list[subprocess.Popen[str]], timeout: float
) -> list[str]:
    """The output of each of ``waited``, once it exits; if one does not within ``timeout``
    seconds, every one of ``procs`` is killed and the test fails with what each said last."""
    try:
        return [p.communicate(timeout=timeout)[0] for p in waited]
    except subprocess.TimeoutExpired:
        for p in procs:
            if p.poll() is None:
                p.kill()
        said = [f"--- peer {i}\n{p.communicate()[0][-3000:]}" for i, p in enumerate(procs)]
        raise AssertionError(f"a peer did not finish in {timeout} s:\n" + "\n".join(said)) from None


def play(lan: Lan, tmp: Path, mode: list[str], target: str) -> None:
    procs = start(lan, tmp, mode, target)
    try:
        outputs = finish(procs, procs, 400)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    assert [p.returncode for p in procs] == [0, 0, 0, 0], "\n".join(outputs)
    logs = [next((tmp / f"p{i}" / "games").glob("*.log")).read_bytes() for i in range(4)]
    assert all(log == logs[0] for log in logs)
    report = audit_log(next((tmp / "p0" / "games").glob("*.log")))
    assert report.valid and report.status == "finished", report.problems


@pytest.mark.parametrize("broadcast", [False, True], ids=["multicast", "broadcast"])
def test_lan_game(tmp_path: Path, broadcast: bool) -> None:
    """To 1: a whole game of one hand (and the next hand's deck, shuffled during it) across the
    LAN; more hands are more of the same across the same mesh."""
    require_netns()
    with private_lan(4) as lan:
        play(lan, tmp_path, ["--broadcast"] if broadcast else [], "1")


def test_lan_game_under_loss(tmp_path: Path) -> None:
    require_netns("tc")
    with private_lan(4, loss_percent=10) as lan:
        play(lan, tmp_path, [], "15")


def test_lan_link_pulled_for_good_is_taken_over(tmp_path: Path) -> None:
    """Peer 3's cable is pulled out of the switch mid-game, for good (no connection closes, no
    packet comes back): past the timeout the other three take its seat over and finish, with
    one log that the audit accepts, naming the seat taken over and blaming no one. The game is
    to 1: the cable is pulled in its one hand, which the three finish."""
    require_netns()
    with private_lan(4) as lan:
        procs = start(lan, tmp_path, [], "1", timeout="5")
        try:
            deadline = time.monotonic() + 200
            while _entries(tmp_path / "p0") < 60:
                assert time.monotonic() < deadline and all(p.poll() is None for p in procs)
                time.sleep(0.05)
            lan.unplug(3)
            outputs = finish(procs[:3], procs, 300)
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
                    p.wait()
    assert [p.returncode for p in procs[:3]] == [0, 0, 0], "\n".join(outputs)
    logs = [next((tmp_path / f"p{i}" / "games").glob("*.log")).read_bytes() for i in range(3)]
    assert all(log == logs[0] for log in logs)
    report = audit_log(next((tmp_path / "p0" / "games").glob("*.log")))
    assert report.valid and report.status == "finished", report.problems
    assert [t.name for t in report.takeovers] == ["bot3"]
    assert report.abort is None


def _entries(data_dir: Path) -> int:
    logs = list((data_dir / "games").glob("*.log")) if (data_dir / "games").exists() else []
    if not logs:
        return 0
    try:
        return len(read_log(logs[0]).entries)
    except LogCorrupt:
        return 0
