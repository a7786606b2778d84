"""The rules engine: Hearts as a pure, deterministic state machine (no I/O, no randomness).

Every peer, every bot and the offline audit run this same code.
"""

from .actions import Action, ChooseMoon, IllegalActionError, PassCards, PlayCard
from .game import Game, GameResult, deal_hands, position_owner
from .hand import DealError, HandPhase, HandState, Trick
from .scoring import HandResult, penalty_points, score_hand
from .view import SeatView

__all__ = [
    "Action",
    "ChooseMoon",
    "DealError",
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
    "penalty_points",
    "position_owner",
    "score_hand",
]
