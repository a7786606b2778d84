"""Helpers to set up hand-made positions: a full deal from per-seat card lists, then plays."""

from __future__ import annotations

import dataclasses

from hearts_p2p.bots import Bot
from hearts_p2p.cards import mask_of, parse_cards
from hearts_p2p.engine import Action, Expose, Game, HandState, PlayCard, SeatView
from hearts_p2p.rules import Rules


def position(rules: Rules, number: int, hands: list[str], plays: str = "") -> Game:
    """A game in hand ``number`` dealt ``hands`` (one string per seat), after ``plays`` in order.

    ``plays`` names cards only; each is played, checked, by the seat whose turn it is.
    """
    game = Game(rules)
    game.hand = HandState.deal(rules, number, [mask_of(parse_cards(h)) for h in hands])
    for card in parse_cards(plays):
        seat = game.to_act()[0]
        game.apply(seat, PlayCard(card))
    return game


def view_to_act(game: Game) -> SeatView:
    return SeatView.of(game, game.to_act()[0])


def no_pass(rules: Rules) -> Rules:
    return dataclasses.replace(rules, passing=False)


def gongzhu_position(
    rules: Rules, hands: list[str], exposures: dict[int, str] | None = None, plays: str = ""
) -> Game:
    """A Gong Zhu game in hand 1 dealt ``hands``, after ``exposures`` (by seat) and ``plays``.

    With ``exposures`` None the game stays in the exposure phase.
    """
    game = Game(rules)
    game.hand = HandState.deal(rules, 1, [mask_of(parse_cards(h)) for h in hands])
    if exposures is None:
        return game
    for seat in range(rules.players):
        game.apply(seat, Expose(tuple(parse_cards(exposures.get(seat, "")))))
    for card in parse_cards(plays):
        game.apply(game.to_act()[0], PlayCard(card))
    return game


class CheckedBot:
    """Wraps a bot and fails the test on any action outside ``view.legal``."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.name = bot.name

    def choose(self, view: SeatView) -> Action:
        action = self.bot.choose(view)
        assert action in view.legal, (self.name, view.seat, action)
        return action
