"""A seat's view of each play is made only for a front end that shows plays: not for bots."""

from __future__ import annotations

from unittest import mock

import pytest

from hearts_p2p.bots import make_bot
from hearts_p2p.bots.botseat import BotSeat
from hearts_p2p.cli.headless import ReportingSeat
from hearts_p2p.frontend import shows_plays
from hearts_p2p.game import GameProtocol, Status
from hearts_p2p.rules import Rules

from .table import Table


def _play(views: bool) -> Table:
    table = Table(Rules(target=10), views=views)
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


def test_a_front_end_says_whether_it_shows_plays() -> None:
    """The session asks it as it makes the game's protocol: a bot and a headless peer show
    none, so their protocols make no view per play."""
    assert shows_plays(BotSeat(make_bot("heuristic", 0))) is False
    assert shows_plays(ReportingSeat(BotSeat(make_bot("random", 0)), "", None)) is False
    assert shows_plays(Screen()) is True


def test_the_shell_writes_nothing_into_the_core() -> None:
    """Every property of the game core reads; the shell sets what it wants at construction."""
    setters = [
        name
        for name, value in vars(GameProtocol).items()
        if isinstance(value, property) and value.fset is not None
    ]
    assert setters == []
    assert GameProtocol(b"g" * 16, b"k" * 32, views=False).views is False
