"""Bots that play from a seat's view only: ``random``, ``heuristic``, ``montecarlo``, ``hard``
and the baseline ``montecarlo-v1``; for Gong Zhu ``gongzhu-heuristic`` and ``gongzhu-montecarlo``,
which ``make_bot("heuristic")`` and ``make_bot("montecarlo")`` (and ``"hard"``) also play when the
view is Gong Zhu's.

``make_bot(name, seed)`` gives a ``Bot`` whose ``choose(view)`` returns one of ``view.legal``.
"""

from . import (
    gongzhu_heuristic,
    gongzhu_montecarlo,
    hard,
    heuristic,
    montecarlo,
    montecarlo_v1,
    random,
)
from .base import GONGZHU_STRATEGIES, STRATEGIES, Bot, BotError, GameSwitch, make_bot
from .gongzhu_heuristic import GongZhuHeuristicBot
from .gongzhu_montecarlo import GongZhuMonteCarloBot
from .hard import HardBot
from .heuristic import HeuristicBot
from .montecarlo import MonteCarloBot
from .montecarlo_v1 import MonteCarloV1Bot
from .random import RandomBot

__all__ = [
    "GONGZHU_STRATEGIES",
    "STRATEGIES",
    "Bot",
    "BotError",
    "GameSwitch",
    "GongZhuHeuristicBot",
    "GongZhuMonteCarloBot",
    "HardBot",
    "HeuristicBot",
    "MonteCarloBot",
    "MonteCarloV1Bot",
    "RandomBot",
    "gongzhu_heuristic",
    "gongzhu_montecarlo",
    "hard",
    "heuristic",
    "make_bot",
    "montecarlo",
    "montecarlo_v1",
    "random",
]
