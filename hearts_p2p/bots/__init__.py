"""Bots that play from a seat's view only: ``random``, ``heuristic`` and ``montecarlo``.

``make_bot(name, seed)`` gives a ``Bot`` whose ``choose(view)`` returns one of ``view.legal``.
"""

from . import heuristic, montecarlo, random
from .base import STRATEGIES, Bot, BotError, make_bot
from .heuristic import HeuristicBot
from .montecarlo import MonteCarloBot
from .random import RandomBot

__all__ = [
    "STRATEGIES",
    "Bot",
    "BotError",
    "HeuristicBot",
    "MonteCarloBot",
    "RandomBot",
    "heuristic",
    "make_bot",
    "montecarlo",
    "random",
]
