"""The bot interface and the registry of strategies by name.

A bot answers a ``SeatView`` with one of ``view.legal``: the same thing a player at the terminal
sees and may do, so a bot can never peek at hidden cards, and the node can seat a bot or a human
through one code path (a headless peer just feeds views to ``choose``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from ..engine import Action, HandPhase, SeatView

__all__ = [
    "GONGZHU_STRATEGIES",
    "GONGZHU_VARIANTS",
    "STRATEGIES",
    "Bot",
    "BotError",
    "GameSwitch",
    "make_bot",
    "register",
]


class BotError(ValueError):
    """An unknown strategy, or a view that gives this seat nothing to do."""


@runtime_checkable
class Bot(Protocol):
    """A strategy: deterministic for a given seed and sequence of views."""

    name: str

    def choose(self, view: SeatView) -> Action:
        """One action out of ``view.legal``."""
        ...


BotFactory = Callable[..., Bot]
STRATEGIES: dict[str, BotFactory] = {}
# Strategies for Gong Zhu only, kept apart so that nothing offers them to a Hearts table (the
# names of STRATEGIES play both games through ``make_bot``).
GONGZHU_STRATEGIES: dict[str, BotFactory] = {}


def register(name: str, *, gongzhu: bool = False) -> Callable[[BotFactory], BotFactory]:
    """Class decorator: make a strategy available to ``make_bot`` under ``name``."""

    def add(factory: BotFactory) -> BotFactory:
        (GONGZHU_STRATEGIES if gongzhu else STRATEGIES)[name] = factory
        return factory

    return add


# The Gong Zhu strategy that plays for a Hearts one when the table plays Gong Zhu.
GONGZHU_VARIANTS = {
    "heuristic": "gongzhu-heuristic",
    "montecarlo": "gongzhu-montecarlo",
    "hard": "gongzhu-montecarlo",
}


class GameSwitch:
    """One strategy name for both games: each view goes to the bot of the game it shows."""

    def __init__(self, name: str, hearts: Bot, gongzhu: Bot) -> None:
        self.name = name
        self.hearts = hearts
        self.gongzhu = gongzhu

    def choose(self, view: SeatView) -> Action:
        return (self.gongzhu if view.rules.is_gongzhu else self.hearts).choose(view)


def make_bot(name: str, seed: int = 0, **options: Any) -> Bot:
    """A new bot of strategy ``name`` (``random``, ``heuristic``, ``montecarlo``, ...).

    ``options`` go to the strategy (the Monte-Carlo bots take ``budget_ms`` and ``samples``).
    ``heuristic`` and ``montecarlo`` play both games, choosing by the rules of each view;
    ``random`` plays anything; the ``gongzhu-*`` strategies only Gong Zhu.
    """
    factory = STRATEGIES.get(name) or GONGZHU_STRATEGIES.get(name)
    if factory is None:
        known = ", ".join(sorted(STRATEGIES | GONGZHU_STRATEGIES))
        raise BotError(f"no bot strategy {name!r} (known: {known})")
    variant = GONGZHU_STRATEGIES.get(GONGZHU_VARIANTS.get(name, ""))
    if variant is None:
        return factory(seed, **options)
    return GameSwitch(name, factory(seed, **options), variant(seed, **options))


def check_turn(view: SeatView) -> None:
    """Refuse a view that offers this seat nothing to do, rather than guess."""
    if not view.legal:
        phase = view.phase.value if isinstance(view.phase, HandPhase) else "no hand"
        raise BotError(f"seat {view.seat} has no legal action ({phase})")
