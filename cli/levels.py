"""Bot levels a player understands, ``easy``, ``medium`` and ``hard``, as strategies and budgets.

A level is accepted wherever a strategy is (``--bot-strategy``, ``hearts bot --strategy``), so a
host hands it to the bot peers it starts as it is. A bot playing a level says so in its name
(``Bot 1 [hard]``): every player sees it in the roster, the scores and the game log.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from hearts_p2p.bots import STRATEGIES, Bot, make_bot

__all__ = ["CHOICES", "DEFAULT_BOT", "LEVELS", "Level", "bot_for", "level_name"]


class Level(StrEnum):
    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"


# The strategy and its options per level; the budgets are milliseconds of search per card.
LEVELS: dict[Level, tuple[str, dict[str, Any]]] = {
    Level.EASY: ("heuristic", {}),
    Level.MEDIUM: ("montecarlo-v1", {"budget_ms": 40}),
    Level.HARD: ("hard", {}),
}

# What a bot plays with neither a level nor a strategy given: the strongest, since at its default
# budget a move takes about 200 ms, which a player hardly waits for.
DEFAULT_BOT = Level.HARD.value

# The level names first, then the strategies (``hard`` is both: the level plays the strategy).
CHOICES = list(dict.fromkeys([level.value for level in Level] + sorted(STRATEGIES)))
_LEVEL_NAMES = frozenset(level.value for level in Level)


def bot_for(choice: str, seed: int) -> Bot:
    """The bot of a level or a strategy name."""
    if choice in _LEVEL_NAMES:
        strategy, options = LEVELS[Level(choice)]
        return make_bot(strategy, seed, **options)
    return make_bot(choice, seed)


def level_name(name: str, choice: str) -> str:
    """``Bot 1 [hard]`` for a bot playing a level, cut to the 32 characters a name may hold."""
    if choice not in _LEVEL_NAMES:
        return name
    tag = f" [{choice}]"
    return name[: 32 - len(tag)] + tag
