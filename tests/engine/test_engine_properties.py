"""Properties over random legal games of every variant."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hearts_p2p.cards import HEARTS_MASK, QUEEN_SPADES, cards_of
from hearts_p2p.engine import Game, HandPhase, HandResult, HandState, PassCards, SeatView
from hearts_p2p.rules import Moon, Rules, Ties

from .engine_helpers import Record, random_game, replay

RULES = st.builds(
    Rules,
    players=st.sampled_from([3, 4, 5, 6]),
    passing=st.booleans(),
    moon=st.sampled_from(list(Moon)),
    jack_of_diamonds=st.booleans(),
    spot_hearts=st.booleans(),
    queen_breaks_hearts=st.booleans(),
    target=st.sampled_from([0, 40]),
    ties=st.sampled_from(list(Ties)),
)
SEEDS = st.integers(0, 2**32)
PROPERTY = settings(max_examples=30, derandomize=True, deadline=None)
MOON_MASK = HEARTS_MASK | 1 << QUEEN_SPADES
MAX_HANDS = 8


def hand_total(rules: Rules, result: HandResult) -> int:
    """What a hand's points must add up to in this variant."""
    jack = -10 if rules.jack_of_diamonds else 0  # J♦ is always dealt, so always taken
    total = rules.penalty_total
    if result.moon is None:
        return total + jack
    if result.moon_added_to_others:
        return (rules.players - 1) * total + jack
    return -total + jack


def game_and_hands(rules: Rules, record: Record) -> tuple[Game, list[HandState]]:
    """Replay ``record``, keeping each finished hand's state."""
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


@given(RULES, SEEDS)
@PROPERTY
def test_every_card_once_totals_and_moon_exclusivity(rules: Rules, seed: int) -> None:
    record = random_game(rules, seed, MAX_HANDS)
    game, hands = game_and_hands(rules, record)
    running = [0] * rules.players
    for h, result in zip(hands, game.results, strict=True):
        played = [c for t in h.tricks for c in t.cards]
        assert sorted(played) == cards_of(rules.deck_mask)
        assert sum(h.taken) == rules.deck_mask
        assert sum(result.points) == hand_total(rules, result)
        shooters = [s for s, t in enumerate(h.taken) if t & MOON_MASK == MOON_MASK]
        assert len(shooters) <= 1
        if rules.moon is Moon.OFF or not shooters:
            assert result.moon is None
        else:
            assert result.moon == shooters[0]
            others = {p for s, p in enumerate(result.points) if s != result.moon}
            assert len(others) <= 2  # J♦ may set one apart
        running = [a + b for a, b in zip(running, result.points, strict=True)]
    assert game.totals == running
    if game.over:
        assert game.result is not None
        assert max(game.totals) >= rules.target
        low = min(game.totals)
        assert game.result.winners == tuple(s for s, t in enumerate(game.totals) if t == low)
        if rules.ties is Ties.PLAY_ON:
            assert len(game.result.winners) == 1
    else:
        assert game.number == MAX_HANDS or max(running) < rules.target


@given(RULES, SEEDS)
@PROPERTY
def test_replay_is_deterministic(rules: Rules, seed: int) -> None:
    record = random_game(rules, seed, 4)
    a, b = replay(rules, *record), replay(rules, *record)
    assert a.totals == b.totals and a.results == b.results and a.result == b.result
    ha, hb = a.hand, b.hand
    assert ha is not None and hb is not None
    assert [(t.leader, t.cards, t.winner) for t in ha.tricks] == [
        (t.leader, t.cards, t.winner) for t in hb.tricks
    ]
    assert (ha.taken, ha.hands, ha.received) == (hb.taken, hb.hands, hb.received)


def partial_replay(rules: Rules, record: Record, seat: int) -> Game:
    """Replay ``record`` as ``seat``'s peer: only its own cards, and only the passes it sees."""
    deals, actions = record
    game = Game(rules)
    it = iter(actions)
    for deal in deals:
        h = game.start_hand([m if s == seat else None for s, m in enumerate(deal)])
        while h.phase is not HandPhase.SCORED:
            who, action = next(it)
            if isinstance(action, PassCards) and seat not in (
                who,
                rules.pass_target(who, h.number),
            ):
                action = PassCards(None)
            game.apply(who, action)
    return game


@given(RULES, SEEDS, st.integers(0, 5))
@PROPERTY
def test_partial_knowledge_accepts_every_legal_game(rules: Rules, seed: int, k: int) -> None:
    record = random_game(rules, seed, 4)
    seat = k % rules.players
    full = replay(rules, *record)
    mine = partial_replay(rules, record, seat)
    assert mine.totals == full.totals and mine.results == full.results
    assert mine.result == full.result
    assert mine.hand is not None and full.hand is not None
    assert mine.hand.hands[seat] == full.hand.hands[seat]


@given(RULES, SEEDS)
@settings(max_examples=15, derandomize=True, deadline=None)
def test_a_seat_view_never_holds_another_seats_card(rules: Rules, seed: int) -> None:
    deals, actions = random_game(rules, seed, 2)
    game = Game(rules)
    it = iter(actions)
    for deal in deals:
        h = game.start_hand(list(deal))
        while True:
            for s in range(rules.players):
                view = SeatView.of(game, s)
                others = sum(m for t, m in enumerate(h.hands) if t != s)
                mine = h.hands[s]
                assert sum(1 << c for c in view.hand) == mine
                assert not any(others >> c & 1 for c in view.hand + view.received)
                assert all(deal[s] >> c & 1 for c in view.passed)
                for a in view.legal:
                    held = getattr(a, "cards", None) or [getattr(a, "card", None)]
                    assert all(c is None or mine >> c & 1 for c in held)
                if h.phase is HandPhase.PLAYING and view.my_turn:
                    # The view explains a refusal exactly as the engine does.
                    for c in cards_of(mine & ~h.legal_play_mask(s)):
                        assert view.why_illegal(c) == h.why_illegal(s, c)
            if h.phase is HandPhase.SCORED:
                break
            game.apply(*next(it))


@given(RULES, SEEDS)
@PROPERTY
def test_may_act_says_whether_there_is_a_legal_action_for_every_seat_at_every_point(
    rules: Rules, seed: int
) -> None:
    """A peer asks ``may_act`` after every message instead of building every action."""
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
