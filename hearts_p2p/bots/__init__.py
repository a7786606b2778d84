"""Bots that play from a seat's view only: ``random``, ``heuristic``, ``montecarlo`` and the
baseline ``montecarlo-v1``.

``make_bot(name, seed)`` gives a ``Bot`` whose ``choose(view)`` returns one of ``view.legal``.
"""

from . import heuristic, montecarlo, montecarlo_v1, random
from .base import STRATEGIES, Bot, BotError, make_bot
from .heuristic import HeuristicBot
from .montecarlo import MonteCarloBot
from .montecarlo_v1 import MonteCarloV1Bot
from .random import RandomBot

__all__ = [
    "STRATEGIES",
    "Bot",
    "BotError",
    "HeuristicBot",
    "MonteCarloBot",
    "MonteCarloV1Bot",
    "RandomBot",
    "heuristic",
    "make_bot",
    "montecarlo",
    "montecarlo_v1",
    "random",
]
