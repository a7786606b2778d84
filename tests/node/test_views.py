"""A seat's view of each play is made only for a front end that shows plays: not for bots."""

from __future__ import annotations

from pathlib import Path
from unittest import mock

import pytest

from hearts_p2p.bots import make_bot
from hearts_p2p.bots.botseat import BotSeat
from hearts_p2p.game import Status
from hearts_p2p.log import GameLog, SecretStore
from hearts_p2p.node import GameRunner
from hearts_p2p.rules import Rules

from .table import Table
from .test_runner import mesh


def _play(views: bool) -> Table:
    table = Table(Rules(target=10))
    for p in table.protos:
        p.views = views
    table.run()
    return table


def test_without_views_no_play_event_is_made_and_the_game_is_the_same() -> None:
    with_views = _play(True)
    with mock.patch("hearts_p2p.game.handsteps.CardPlayed", side_effect=AssertionError):
        without = _play(False)
        with pytest.raises(AssertionError):
            _play(True)  # the patch does catch a play's event
    assert all(p.status is Status.FINISHED for p in without.protos)
    assert without.protos[0].entries == with_views.protos[0].entries


class Screen:
    """A front end with no say about plays: it is shown them."""

    async def choose(self, view: object) -> object:
        raise AssertionError("not asked")

    async def notify(self, event: object) -> None:
        pass


def test_the_runner_asks_for_views_only_for_a_front_end_that_shows_plays(tmp_path: Path) -> None:
    table = Table(Rules())
    links = mesh([i.public_key for i in table.ids])
    fronts = [BotSeat(make_bot("heuristic", 0)), Screen()]
    for i, front in enumerate(fronts):
        log = GameLog.open(tmp_path / f"p{i}.log")
        GameRunner(table.protos[i], links[i], front, log, SecretStore(tmp_path / f"p{i}.s"))
        log.close()
    assert [p.views for p in table.protos[:2]] == [False, True]
