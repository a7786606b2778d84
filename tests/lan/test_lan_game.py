"""A whole game on a private LAN: four peers in four namespaces find the table and play it.

Peer 0 hosts (a bot plays its seat); peers 1-3 are `hearts bot` processes that find the table
by discovery (multicast, or broadcast only), join, and play to the end. Every peer must end
with the same log, and the audit must accept it — also with 10 % of packets lost.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from hearts_p2p.audit import audit_log

from .lan_netns import PEER_INTERFACE, Lan, private_lan, require_netns

pytestmark = [pytest.mark.netns, pytest.mark.slow]


def play(lan: Lan, tmp: Path, mode: list[str], target: str) -> None:
    common = ["--interface", PEER_INTERFACE, "--discovery-port", "47299", "--timeout", "60", *mode]
    host = subprocess.Popen(
        lan.command(
            0,
            "-m",
            "hearts_p2p.cli.main",
            "host",
            "--headless",
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
                "--name",
                f"bot{i}",
                "--seed",
                str(i),
                "--data-dir",
                str(tmp / f"p{i}"),
                *common,
            ),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for i in (1, 2, 3)
    ]
    procs = [host, *bots]
    try:
        outputs = [p.communicate(timeout=400)[0] for p in procs]
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
    require_netns()
    with private_lan(4) as lan:
        play(lan, tmp_path, ["--broadcast"] if broadcast else [], "30")


def test_lan_game_under_loss(tmp_path: Path) -> None:
    require_netns("tc")
    with private_lan(4, loss_percent=10) as lan:
        play(lan, tmp_path, [], "15")
