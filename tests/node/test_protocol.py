"""Whole games between in-memory players: every peer verifies everything and ends identical."""

from __future__ import annotations

from dataclasses import replace

import pytest

from hearts_p2p.game import Status, Termination
from hearts_p2p.rules import Moon, Rules

from .table import Table


@pytest.mark.parametrize(
    "rules",
    [
        Rules(players=3, target=20),
        Rules(players=4, target=26),
        Rules(players=5, target=20, moon=Moon.CHOICE),
        Rules(players=6, target=15, jack_of_diamonds=True),
    ],
    ids=["3p", "4p", "5p", "6p"],
)
def test_whole_game_every_peer_agrees(rules: Rules) -> None:
    table = Table(rules, seed=rules.players)
    table.run()
    protos = table.protos
    assert all(p.status is Status.FINISHED for p in protos), [p.abort for p in protos]
    assert len({p.head for p in protos}) == 1
    assert len({tuple(p.entries) for p in protos}) == 1
    game = protos[0].game
    assert game is not None and game.result is not None
    assert max(game.totals) >= rules.target
    assert all(p.game is not None and p.game.totals == game.totals for p in protos)
    # The seat order is a permutation agreed by all.
    assert len({tuple(p.player_at) for p in protos}) == 1
    assert sorted(protos[0].player_at) == list(range(rules.players))


def test_a_player_the_genesis_lists_with_another_pass_key_leaves_and_no_one_is_blamed() -> None:
    """Only that player knows its pass key, so it cannot prove the host wrong: it leaves at the
    first step, and every peer records the same departure, not a cheat."""
    table = Table(Rules(players=4, target=10), seed=2)
    players = list(table.genesis.players)
    players[2] = replace(players[2], dh=players[3].dh[::-1])
    table.genesis = replace(table.genesis, players=tuple(players))
    table.run()
    for p in table.protos:
        assert p.status is Status.ABORTED and p.abort is not None, p.status
        assert p.abort.termination is Termination.LEFT and p.abort.culprit == 2, p.abort
    assert "another pass key" in table.protos[2].abort.reason  # type: ignore[union-attr]
    assert len({tuple(p.entries) for p in table.protos}) == 1
