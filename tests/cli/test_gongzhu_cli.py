"""Gong Zhu at the terminal without a network: the rules flags, typed exposures, the prompt and
the lines that show exposures and results."""

from __future__ import annotations

import io
import random

import pytest

from hearts_p2p.cards import Card, mask_of, parse_cards
from hearts_p2p.cli.args import rules_from
from hearts_p2p.cli.commands import InputError, parse_line
from hearts_p2p.cli.main import build_parser
from hearts_p2p.cli.render import Screen, Style
from hearts_p2p.engine import Claim, Expose, HandPhase, PlayCard, SeatView
from hearts_p2p.engine.game import Game, deal_hands
from hearts_p2p.frontend import CardsExposed, HandClaimed
from hearts_p2p.rules import GameKind, Rules, RulesError

GZ = Rules(game=GameKind.GONGZHU)
SUITS = (
    "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC",
    "2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD",
    "2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS",
    "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH",
)
EXPOSABLE = [Card.parse(c) for c in ("QS", "JD", "TC", "AH")]


def rules_of(*argv: str) -> Rules:
    return rules_from(build_parser().parse_args(["host", *argv]))


def test_the_game_and_its_options_come_from_the_flags() -> None:
    rules = rules_of("--game", "gongzhu", "--players", "5", "--limit", "500", "--force-fourth")
    assert rules == Rules(game=GameKind.GONGZHU, players=5, limit=500, force_fourth=True)
    assert rules_of("--game", "gongzhu") == GZ
    assert rules_of() == Rules()


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--game", "gongzhu", "--moon", "off"], "--moon: Hearts rules, not for --game gongzhu"),
        (["--game", "gongzhu", "--players", "3"], "players must be 4 or 5 for Gong Zhu"),
        (["--game", "gongzhu", "--limit", "0"], "--limit must be from 1 to 10000"),
        (["--partners"], "--partners: Gong Zhu rules, for --game gongzhu"),
        (["--game", "gongzhu", "--expose-all", "--force-fourth"], "force_fourth cannot go"),
    ],
)
def test_rules_that_do_not_go_together_are_refused(argv: list[str], said: str) -> None:
    with pytest.raises(RulesError, match=said):
        rules_of(*argv)


def exposing_view(rules: Rules = GZ) -> SeatView:
    """The view of the first seat, in a seeded deal, that holds two or more exposable cards."""
    for seed in range(100):
        game = Game(rules)
        game.start_hand(deal_hands(rules, 1, random.Random(seed)))
        for seat in range(rules.players):
            view = SeatView.of(game, seat)
            if sum(c in view.hand for c in EXPOSABLE) >= 2:
                return view
    raise AssertionError("no deal gave a seat two exposable cards")


def test_typed_exposures_are_checked_against_the_rules() -> None:
    view = exposing_view()
    assert view.phase is HandPhase.EXPOSE
    mine = [c for c in EXPOSABLE if c in view.hand]
    assert parse_line(" ".join(str(c) for c in mine), view) == Expose(tuple(mine))
    assert parse_line(f"expose {mine[0]}", view) == Expose((mine[0],))
    assert parse_line("none", view) == Expose(())
    assert parse_line("", view) == Expose(())  # Enter: expose nothing
    other = next(c for c in EXPOSABLE if c not in view.hand)
    with pytest.raises(InputError, match=f"you do not hold {other}"):
        parse_line(str(other), view)
    plain = next(c for c in view.hand if c not in EXPOSABLE)
    with pytest.raises(InputError, match=f"{plain} may not be exposed now; you may expose "):
        parse_line(str(plain), view)


def test_a_forced_exposure_is_said_and_enter_makes_it() -> None:
    view = exposing_view(Rules(game=GameKind.GONGZHU, expose_all=True))
    mine = tuple(sorted(c for c in EXPOSABLE if c in view.hand))
    screen = Screen(io.StringIO(), Style(unicode=False, color=False))
    assert screen.style.text(screen.prompt_for(view)).startswith("you must expose ")
    assert parse_line("", view) == Expose(tuple(sorted(mine)))
    with pytest.raises(InputError, match="you must expose"):
        parse_line("none", view)


def test_the_prompt_lists_what_may_be_exposed() -> None:
    view = exposing_view()
    screen = Screen(io.StringIO(), Style(unicode=True, color=False))
    prompt = screen.prompt_for(view)
    mine = [c for c in EXPOSABLE if c in view.hand]
    assert prompt.startswith("expose " + " ".join(str(c) for c in sorted(mine)))
    assert prompt.endswith(", some or none (Enter: none)> ")


def test_an_exposure_is_shown_with_its_owner_and_on_the_trick_line() -> None:
    view = exposing_view()
    mine = tuple(sorted(c for c in EXPOSABLE if c in view.hand))
    out = io.StringIO()
    screen = Screen(out, Style(unicode=True, color=False))
    screen.you = (view.seat + 1) % 4
    screen.names = {s: f"P{s}" for s in range(4)}
    screen.event(CardsExposed(view.seat, mine, view))
    cards = " ".join(str(c) for c in mine)
    assert f"P{view.seat} (right) exposes {cards} (their scores doubled)" in out.getvalue()
    seed = next(s for s in range(100) if SeatView.of(_dealt(s), view.seat).hand == view.hand)
    game = _dealt(seed)
    for seat in range(4):
        game.apply(seat, Expose(mine if seat == view.seat else ()))
    line = screen.situation(SeatView.of(game, screen.you))
    assert line.startswith("Trick 1 · ")
    assert line.endswith(f" · exposed: P{view.seat} {cards}")
    assert "hearts" not in line  # no hearts broken or not in Gong Zhu


def _dealt(seed: int) -> Game:
    game = Game(GZ)
    game.start_hand(deal_hands(GZ, 1, random.Random(seed)))
    return game


def test_claims_are_a_hearts_flag_and_always_gong_zhu_s() -> None:
    assert rules_of("--claims") == Rules(claims=True)
    with pytest.raises(RulesError, match="--claims: Hearts rules, not for --game gongzhu"):
        rules_of("--game", "gongzhu", "--claims")


def claiming_view() -> SeatView:
    """Seat 0, holding every club, on lead after the first trick: a claim that holds."""
    game = Game(GZ)
    game.start_hand([mask_of(parse_cards(s)) for s in SUITS])
    for seat in range(4):
        game.apply(seat, Expose(()))
    for seat, c in enumerate(("2C", "2D", "2S", "2H")):
        game.apply(seat, PlayCard(Card.parse(c)))
    return SeatView.of(game, 0)


def test_claim_typed_when_it_holds_and_refused_with_a_reason_when_not() -> None:
    view = claiming_view()
    assert parse_line("claim", view) == Claim(view.hand)
    out = io.StringIO()
    screen = Screen(out, Style(unicode=True, color=False))
    assert "(every card of yours wins: type claim to take the rest)" in screen.turn_lines(view)
    no = exposing_view()
    with pytest.raises(InputError, match="you may claim only on lead, from the second trick on"):
        parse_line("claim", no)
    game = Game(Rules())
    game.start_hand([mask_of(parse_cards(s)) for s in SUITS])
    while game.hand is not None and game.hand.phase is HandPhase.PASSING:
        seat = game.to_act()[0]
        game.apply(seat, SeatView.of(game, seat).legal[0])
    h = game.hand
    assert h is not None
    while len(h.tricks) < 1:
        seat = game.to_act()[0]
        game.apply(seat, SeatView.of(game, seat).legal[0])
    lead = game.to_act()[0]
    with pytest.raises(InputError, match="this table plays without claims"):
        parse_line("claim", SeatView.of(game, lead))


def test_a_claim_is_shown_with_what_it_showed_and_how_it_went() -> None:
    view = claiming_view()
    out = io.StringIO()
    screen = Screen(out, Style(unicode=True, color=False))
    screen.you = 2
    screen.names = {s: f"P{s}" for s in range(4)}
    screen.event(HandClaimed(0, view.hand, "3♦ does not win every trick: A♦ is still out", view))
    screen.event(HandClaimed(0, view.hand, None, view))
    text = out.getvalue()
    assert "P0 (across) claims the rest, showing 3♣ 4♣" in text
    assert "  (refused: 3♦ does not win every trick: A♦ is still out; play goes on)\n" in text
    assert "  (granted: every card still out goes to the claimer · " in text
