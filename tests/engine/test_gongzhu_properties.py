"""Properties over random legal Gong Zhu games with every option."""

from __future__ import annotations

import random

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from hearts_p2p.cards import cards_of
from hearts_p2p.engine import (
    Action,
    Game,
    HandPhase,
    HandState,
    SeatView,
    deal_hands,
    gongzhu_points,
    gongzhu_results,
)
from hearts_p2p.rules import Rules, RulesError

from .engine_helpers import Record, replay

OPTIONS = st.fixed_dictionaries(
    {
        "players": st.sampled_from([4, 5]),
        "limit": st.sampled_from([0, 300]),
        "expose_all": st.booleans(),
        "expose_all_but_sheep": st.booleans(),
        "hearts_by_rank": st.booleans(),
        "force_fourth": st.booleans(),
        "same_colour_discard": st.booleans(),
        "partners": st.booleans(),
    }
)
SEEDS = st.integers(0, 2**32)
PROPERTY = settings(max_examples=30, derandomize=True, deadline=None)
MAX_HANDS = 6


def rules_of(options: dict[str, object]) -> Rules:
    try:
        return Rules(game="gongzhu", **options)  # type: ignore[arg-type]
    except RulesError:
        assume(False)
        raise


def random_game(rules: Rules, seed: int, max_hands: int) -> Record:
    """A whole game of random legal actions (any seat owing one may act first)."""
    rng = random.Random(seed)
    game = Game(rules)
    deals: list[list[int]] = []
    actions: list[tuple[int, Action]] = []
    while not game.over and game.number < max_hands:
        deal = deal_hands(rules, game.number + 1, rng)
        deals.append(deal)
        h = game.start_hand(list(deal))
        while h.phase is not HandPhase.SCORED:
            seat = rng.choice(game.to_act())
            action = rng.choice(game.legal_actions(seat))
            game.apply(seat, action)
            actions.append((seat, action))
    return deals, actions


def hands_of(rules: Rules, record: Record) -> tuple[Game, list[HandState]]:
    deals, actions = record
    game = Game(rules)
    hands = []
    it = iter(actions)
    for deal in deals:
        h = game.start_hand(list(deal))
        while h.phase is not HandPhase.SCORED:
            game.apply(*next(it))
        hands.append(h)
    return game, hands


@given(OPTIONS, SEEDS)
@PROPERTY
def test_every_card_once_results_sum_to_zero_and_the_end(
    options: dict[str, object], seed: int
) -> None:
    rules = rules_of(options)
    game, hands = hands_of(rules, random_game(rules, seed, MAX_HANDS))
    running = [0] * rules.players
    for h, result in zip(hands, game.results, strict=True):
        played = [c for t in h.tricks for c in t.cards]
        if h.claimed is None:
            assert sorted(played) == cards_of(rules.deck_mask)
        else:  # 摊牌: the claimer took the cards never played
            assert len(set(played)) == len(played) and h.played == rules.deck_mask
            assert h.taken[h.claimed] & rules.deck_mask & ~sum(1 << c for c in played)
        assert sum(h.taken) == rules.deck_mask
        assert result.points == tuple(gongzhu_points(rules, t, h.exposed) for t in h.taken)
        assert sum(result.results) == 0
        assert result.results == gongzhu_results(rules, result.points)
        if rules.expose_all:
            assert h.exposed.bit_count() == 4
        if rules.force_fourth:
            assert h.exposed.bit_count() != 3
        running = [a + b for a, b in zip(running, result.points, strict=True)]
        # Not over before the last hand: the game stops at the first total on the limit.
        if h is not hands[-1]:
            assert min(running) > -rules.limit
    assert game.totals == running
    if game.over:
        assert game.result is not None and min(running) <= -rules.limit
        assert game.result.results == tuple(
            sum(r.results[s] for r in game.results) for s in range(rules.players)
        )
    else:
        assert game.number == MAX_HANDS


@given(OPTIONS, SEEDS)
@PROPERTY
def test_replay_is_deterministic(options: dict[str, object], seed: int) -> None:
    rules = rules_of(options)
    record = random_game(rules, seed, 3)
    a, b = replay(rules, *record), replay(rules, *record)
    assert a.totals == b.totals and a.results == b.results and a.result == b.result
    ha, hb = a.hand, b.hand
    assert ha is not None and hb is not None
    assert [(t.leader, t.cards, t.winner) for t in ha.tricks] == [
        (t.leader, t.cards, t.winner) for t in hb.tricks
    ]
    assert (ha.taken, ha.exposures) == (hb.taken, hb.exposures)


def partial_replay(rules: Rules, record: Record, seat: int) -> Game:
    """Replay ``record`` as ``seat``'s peer: only its own cards (exposures are public)."""
    deals, actions = record
    game = Game(rules)
    it = iter(actions)
    for deal in deals:
        h = game.start_hand([m if s == seat else None for s, m in enumerate(deal)])
        while h.phase is not HandPhase.SCORED:
            game.apply(*next(it))
    return game


@given(OPTIONS, SEEDS, st.integers(0, 4))
@PROPERTY
def test_partial_knowledge_accepts_every_legal_game(
    options: dict[str, object], seed: int, k: int
) -> None:
    rules = rules_of(options)
    record = random_game(rules, seed, 3)
    seat = k % rules.players
    full = replay(rules, *record)
    mine = partial_replay(rules, record, seat)
    assert mine.totals == full.totals and mine.results == full.results
    assert mine.result == full.result
    assert mine.hand is not None and full.hand is not None
    assert mine.hand.exposures == full.hand.exposures


@given(OPTIONS, SEEDS)
@settings(max_examples=15, derandomize=True, deadline=None)
def test_a_seat_view_never_holds_another_seats_card(options: dict[str, object], seed: int) -> None:
    rules = rules_of(options)
    deals, actions = random_game(rules, seed, 1)
    game = Game(rules)
    it = iter(actions)
    h = game.start_hand(list(deals[0]))
    while True:
        for s in range(rules.players):
            view = SeatView.of(game, s)
            mine = h.hands[s]
            others = sum(m for t, m in enumerate(h.hands) if t != s)
            assert sum(1 << c for c in view.hand) == mine
            # What is shown of other seats is what they exposed, and nothing else.
            shown = [c for t, e in enumerate(view.exposed) if t != s for c in e]
            assert all(h.exposed >> c & 1 for c in shown)
            assert not any(others >> c & 1 for c in view.hand)
            for a in view.legal:
                held = getattr(a, "cards", None) or [getattr(a, "card", None)]
                assert all(c is None or mine >> c & 1 for c in held)
            if h.phase is HandPhase.PLAYING and view.my_turn:
                for c in cards_of(mine & ~h.legal_play_mask(s)):
                    assert view.why_illegal(c) == h.why_illegal(s, c)
        if h.phase is HandPhase.SCORED:
            break
        game.apply(*next(it))


@given(OPTIONS, SEEDS)
@PROPERTY
def test_may_act_says_whether_there_is_a_legal_action_while_exposing_and_playing(
    options: dict[str, object], seed: int
) -> None:
    rules = rules_of(options)
    deals, actions = random_game(rules, seed, 2)
    game = Game(rules)
    it = iter(actions)
    for deal in deals:
        h = game.start_hand(list(deal))
        while True:
            for s in range(rules.players):
                assert game.may_act(s) == bool(game.legal_actions(s)), (s, h.phase)
            if h.phase is HandPhase.SCORED:
                break
            game.apply(*next(it))
