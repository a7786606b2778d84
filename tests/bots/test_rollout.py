"""The fast playouts play and score exactly as the engine driven by the heuristic policy does."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from hearts_p2p.bots.policy import choose_card
from hearts_p2p.bots.rollout import Position, play_out, score, table_of
from hearts_p2p.cards import iter_bits
from hearts_p2p.engine import HandPhase, HandState, deal_hands, score_hand
from hearts_p2p.rules import Moon, Rules

RULES = st.builds(
    Rules,
    players=st.sampled_from([3, 4, 5, 6]),
    passing=st.just(False),
    moon=st.sampled_from(list(Moon)),
    jack_of_diamonds=st.booleans(),
    spot_hearts=st.booleans(),
    queen_breaks_hearts=st.booleans(),
)
CHECKS_PER_HAND = 8


def _engine_play_out(
    h: HandState, seat: int, card: int, adds: list[bool]
) -> tuple[tuple[int, ...], list[int]]:
    """The reference: the engine plays ``card``, then the policy for every seat; points, taken."""
    h = h.clone()
    h.play(seat, card)
    while h.phase is HandPhase.PLAYING:
        s = h.turn
        assert s is not None
        h.play(s, choose_card(h, s))
    assert h.result is not None
    if h.phase is HandPhase.MOON_CHOICE and h.result.moon is not None:
        return score_hand(h.rules, h.taken, add_to_others=adds[h.result.moon]).points, h.taken
    return h.result.points, h.taken


@given(RULES, st.integers(0, 2**32))
@settings(max_examples=100, derandomize=True, deadline=None)
def test_play_out_matches_the_engine(rules: Rules, seed: int) -> None:
    """From positions reached by random legal plays, every legal card plays out the same."""
    rng = random.Random(seed)
    n = rules.players
    h = HandState.deal(rules, 1 + seed % n, deal_hands(rules, 1, rng))
    adds = [rng.random() < 0.5 for _ in range(n)]
    t = table_of(rules)
    checks = set(rng.sample(range(rules.cards_each * n), CHECKS_PER_HAND))
    step = 0
    while h.phase is HandPhase.PLAYING:
        seat = h.turn
        assert seat is not None
        legal = h.legal_play_mask(seat)
        if step in checks:
            pos = Position.of(h, seat)
            for c in iter_bits(legal):
                taken = play_out(pos, h.hands[:], c)
                points, reference = _engine_play_out(h, seat, c, adds)
                assert score(t, taken, adds) == list(points)
                # The same cards that score taken by the same seats (the playout stops once
                # nothing that scores is left to play).
                assert [x & t.scoring for x in taken] == [x & t.scoring for x in reference]
        # Half the plays the policy's own, so that positions it steers into (moons) come up.
        h.play(
            seat, choose_card(h, seat) if rng.random() < 0.5 else rng.choice(list(iter_bits(legal)))
        )
        step += 1


def test_score_matches_the_engine_for_every_moon_mode() -> None:
    rng = random.Random(4)
    for moon in Moon:
        for spot in (False, True):
            rules = Rules(moon=moon, spot_hearts=spot, jack_of_diamonds=True)
            t = table_of(rules)
            deal = deal_hands(rules, 1, rng)
            shot = [deal[0] | deal[1], deal[2], deal[3], 0]  # seat 0 may hold every point card
            for taken in (deal, shot, [deal[0] | deal[1] | deal[2] | deal[3], 0, 0, 0]):
                for add in (False, True):
                    expected = score_hand(rules, list(taken))
                    if expected.moon is not None and moon is Moon.CHOICE:
                        expected = score_hand(rules, list(taken), add_to_others=add)
                    assert score(t, list(taken), [add] * 4) == list(expected.points)
