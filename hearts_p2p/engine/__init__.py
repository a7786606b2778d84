"""The rules engine: Hearts and Gong Zhu as a pure, deterministic state machine (no I/O, no
randomness).

Every peer, every bot and the offline audit run this same code.
"""

from .actions import Action, ChooseMoon, Claim, Expose, IllegalActionError, PassCards, PlayCard
from .game import Game, GameResult, deal_hands, position_owner
from .hand import DealError, HandPhase, HandState, Trick
from .scoring import (
    EXPOSABLE_MASK,
    GONGZHU_SCORING_MASK,
    HandResult,
    gongzhu_points,
    gongzhu_results,
    gongzhu_winners,
    penalty_points,
    score_hand,
    trick_points,
)
from .view import SeatView

__all__ = [
    "EXPOSABLE_MASK",
    "GONGZHU_SCORING_MASK",
    "Action",
    "ChooseMoon",
    "Claim",
    "DealError",
    "Expose",
    "Game",
    "GameResult",
    "HandPhase",
    "HandResult",
    "HandState",
    "IllegalActionError",
    "PassCards",
    "PlayCard",
    "SeatView",
    "Trick",
    "deal_hands",
    "gongzhu_points",
    "gongzhu_results",
    "gongzhu_winners",
    "penalty_points",
    "position_owner",
    "score_hand",
    "trick_points",
]
