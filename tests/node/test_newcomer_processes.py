"""A newcomer takes an open seat of a running table, between OS processes on loopback.

Four peers as ``four_peers`` starts them, the host's rules letting anyone take an open seat;
P2 is killed for good and taken over, and a fifth ``hearts bot``, another identity, finds the
open seat announced and takes it with ``hearts bot T --seat N``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hearts_p2p.game import GameProtocol, Genesis
from hearts_p2p.log import read_log
from hearts_p2p.wire import decode_frame

from .procs import game_log, hearts
from .test_hostile_processes import BOUND, ODD, Table, start
from .test_processes import first_difference

pytestmark = pytest.mark.slow

TIMEOUT = "8"  # the table waits this long for the newcomer's escrow: it catches up first


def discovery_port(cmd: list[str]) -> str:
    return cmd[cmd.index("--discovery-port") + 1]


def seat_of(entries: list[bytes], name: str) -> int:
    """The seat the player called ``name`` was drawn to, as the log says it (the genesis
    lists the joiners in the order they came)."""
    first = decode_frame(entries[0])
    genesis = Genesis.from_wire(first.envelope.game_id, first.envelope.body)
    proto = GameProtocol(genesis.game_id, genesis.players[0].key)
    for raw in entries:
        proto.receive(decode_frame(raw))
    (player,) = [i for i, p in enumerate(genesis.players) if p.name == name]
    return proto.seat_of[player]


def test_a_new_bot_takes_the_open_seat_of_a_killed_peer_and_plays_to_the_end(
    tmp_path: Path,
) -> None:
    """P2 killed for good mid-hand is taken over, and its seat announced open; a new bot with
    its own key joins with ``--seat``, audits the log, sits from the next hand and plays to the
    end: the four logs end identical, audit valid, and list the sit (after at most two
    boundaries its escrow came too late for: a peer whose clock ran out on it before it came
    is listed as keeping it off, which at an ``anyone`` table is all ``refused_by`` can mean)."""
    t = Table(tmp_path, timeout=float(TIMEOUT))
    host = t.cmds[0]
    # To 100: four hands at the least (26 points a hand at most), and no fewer than six in 2,000
    # simulated games of these bots; the newcomer, asking once the seat is open in hand 1, sits
    # from hand 2 or 3, and by hand 5 should its escrow come too late for two boundaries.
    host[host.index("--target") + 1] = "100"
    host += ["--open-seats", "anyone"]
    with t:
        t.wait_entries(40)
        t.procs[ODD].kill()
        t.procs[ODD].wait()
        port = discovery_port(t.cmds[0])
        seat = seat_of(t.logs((0,))[0], "P2")
        kim_dir, kim_out = tmp_path / "kim", tmp_path / "kim.out"
        kim = hearts("bot", "T", "--seat", str(seat), "--name", "Kim", "--seed", "9",
                     "--strategy", "heuristic",
                     "--data-dir", str(kim_dir), "--discovery-port", port, "--wait", "60",
                     "--timeout", TIMEOUT, "--verbose")  # fmt: skip
        t.procs.append(start(kim, kim_out))
        codes = [t.procs[i].wait(timeout=BOUND) for i in (0, 1, 3, 4)]
        assert codes == [0, 0, 0, 0], t.detail() + kim_out.read_text()[-3000:]
        logs = [*t.logs(), read_log(game_log(kim_dir)).entries]
        assert all(log == logs[0] for log in logs), first_difference(logs)
        report = t.audit(0)
    assert report["status"] == "finished" and report["abort"] is None, report["abort"]
    *late, sit = report["sits"]  # a loaded machine: its escrow may come late, then it re-asks
    assert (sit["seat"], sit["was"], sit["taken"]) == (seat, "P2", True), sit
    assert sit["name"].startswith("Kim"), sit
    assert len(late) < 3 and all(not s["taken"] for s in late), late
