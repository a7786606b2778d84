"""A seat's view: its own cards and public information only, never another seat's cards.

Bots and the terminal get only this, so no front end can cheat by peeking, even by accident.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..cards import CARDS, Card, cards_of
from ..rules import PassDirection, Rules
from .actions import Action
from .game import Game
from .hand import HandPhase, check_seat
from .scoring import HandResult, gongzhu_points, penalty_points

__all__ = ["SeatView", "TrickView"]


@dataclass(frozen=True, slots=True)
class TrickView:
    """A trick as every seat saw it: (seat, card) in play order, and who took it."""

    plays: tuple[tuple[int, Card], ...]
    winner: int | None

    @property
    def leader(self) -> int:
        return self.plays[0][0]

    @property
    def led_suit(self) -> int:
        return self.plays[0][1] // 13


@dataclass(frozen=True, slots=True)
class SeatView:
    """Everything ``seat`` may know at this moment."""

    seat: int
    rules: Rules
    hand_number: int
    dealer: int
    phase: HandPhase | None
    hand: tuple[Card, ...]
    legal: tuple[Action, ...]
    to_act: tuple[int, ...]
    pass_direction: PassDirection
    pass_target: int | None
    passed: tuple[Card, ...]
    received: tuple[Card, ...]
    tricks: tuple[TrickView, ...]
    trick: TrickView | None
    hearts_broken: bool
    points_taken: tuple[int, ...]
    totals: tuple[int, ...]
    results: tuple[HandResult, ...]
    game_over: bool
    winners: tuple[int, ...]
    refusals: tuple[tuple[Card, str], ...] = ()  # held cards not playable now, and the rule why
    exposed: tuple[tuple[Card, ...], ...] = ()  # Gong Zhu: each seat's exposed cards, by seat

    @property
    def my_turn(self) -> bool:
        return self.seat in self.to_act

    @property
    def players(self) -> int:
        return self.rules.players

    def why_illegal(self, card: Card) -> str:
        """Why this seat may not play ``card`` now: ``you must follow ♦`` and the like."""
        if self.phase is not HandPhase.PLAYING:
            return "no cards are played now"
        if not self.my_turn:
            return "not your turn"
        if card not in self.hand:
            return f"you do not hold {card}"
        return dict(self.refusals).get(card, f"{card} may be played")

    @classmethod
    def of(cls, game: Game, seat: int) -> SeatView:
        check_seat(seat, game.rules.players)
        h = game.hand
        rules = game.rules
        if h is None:
            return cls(
                seat, rules, 0, rules.dealer(1), None, (), (), (), rules.pass_direction(1),
                rules.pass_target(seat, 1), (), (), (), None, False, (0,) * rules.players,
                tuple(game.totals), tuple(game.results), game.over, _winners(game),
            )  # fmt: skip
        n = h.n
        tricks = tuple(
            TrickView(tuple((t.seat_of(i, n), CARDS[c]) for i, c in enumerate(t.cards)), t.winner)
            for t in h.tricks
        )
        current = None
        if h.trick and h.trick_leader is not None:
            lead = h.trick_leader
            plays = tuple(((lead + i) % n, CARDS[c]) for i, c in enumerate(h.trick))
            current = TrickView(plays, None)
        mine = h.passed[seat]
        refusals: tuple[tuple[Card, str], ...] = ()
        if h.phase is HandPhase.PLAYING and h.turn == seat:
            refused = h.hands[seat] & ~h.legal_play_mask(seat)
            refusals = tuple((c, h.why_illegal(seat, c)) for c in cards_of(refused))
        return cls(
            seat=seat,
            rules=rules,
            hand_number=h.number,
            dealer=h.dealer,
            phase=h.phase,
            hand=tuple(cards_of(h.hands[seat])),
            legal=tuple(game.legal_actions(seat)),
            to_act=tuple(game.to_act()),
            pass_direction=rules.pass_direction(h.number),
            pass_target=rules.pass_target(seat, h.number),
            passed=tuple(cards_of(mine or 0)),
            received=tuple(cards_of(h.received[seat])) if h.phase is not HandPhase.PASSING else (),
            tricks=tricks,
            trick=current,
            hearts_broken=h.hearts_broken,
            points_taken=tuple(
                gongzhu_points(rules, t, h.exposed) if h.gongzhu else penalty_points(rules, t)
                for t in h.taken
            ),
            totals=tuple(game.totals),
            results=tuple(game.results),
            game_over=game.over,
            winners=_winners(game),
            refusals=refusals,
            exposed=tuple(tuple(cards_of(e or 0)) for e in h.exposures),
        )


def _winners(game: Game) -> tuple[int, ...]:
    return game.result.winners if game.result else ()
