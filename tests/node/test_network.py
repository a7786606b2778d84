"""Whole games between separate nodes over real loopback TCP: lobby, mesh, logs, audit."""

from __future__ import annotations

import socket
from pathlib import Path

import trio

from hearts_p2p.audit import audit_log
from hearts_p2p.bots import make_bot
from hearts_p2p.bots.botseat import BotSeat
from hearts_p2p.discovery import DiscoveryConfig
from hearts_p2p.game import Status
from hearts_p2p.log import read_log
from hearts_p2p.netif import interface
from hearts_p2p.node import Outcome, PeerOptions, host_game, join_game
from hearts_p2p.rules import Rules

from .procs import free_port


def options(tmp: Path, name: str, discovery: DiscoveryConfig) -> PeerOptions:
    return PeerOptions(tmp / name, name, [interface("lo")], discovery, absent_timeout=30.0)


async def play_table(tmp: Path, rules: Rules) -> list[Outcome]:
    outcomes: dict[str, Outcome] = {}
    address: list[tuple[str, int]] = []
    listening = trio.Event()
    discovery = DiscoveryConfig(port=free_port(socket.SOCK_DGRAM))  # the host announces there

    def on_listening(host: str, port: int) -> None:
        address.append((host, port))
        listening.set()

    async def host() -> None:
        seat = BotSeat(make_bot("heuristic", 1))
        outcomes["host"] = await host_game(
            options(tmp, "host", discovery), rules, "loop", seat, on_listening=on_listening
        )

    async def joiner(i: int) -> None:
        await listening.wait()
        seat = BotSeat(make_bot("heuristic", 10 + i))
        outcomes[f"j{i}"] = await join_game(options(tmp, f"j{i}", discovery), seat, peer=address[0])

    with trio.fail_after(240):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(host)
            for i in range(rules.players - 1):
                nursery.start_soon(joiner, i)
    return list(outcomes.values())


async def test_four_nodes_over_loopback_end_with_one_log(tmp_path: Path) -> None:
    outcomes = await play_table(tmp_path, Rules(players=4, target=30))
    assert [o.status for o in outcomes] == [Status.FINISHED] * 4
    logs = {read_log(o.log_path).entries.__repr__() for o in outcomes}
    assert len(logs) == 1, "every peer holds a byte-identical log"
    assert len({o.final_hash for o in outcomes}) == 1
    report = audit_log(outcomes[0].log_path)
    assert report.valid, report.problems
    assert report.status == "finished"
    assert max(report.totals) >= 30


async def test_three_nodes_over_loopback(tmp_path: Path) -> None:
    outcomes = await play_table(tmp_path, Rules(players=3, target=15))
    assert [o.status for o in outcomes] == [Status.FINISHED] * 3
    assert len({o.final_hash for o in outcomes}) == 1
