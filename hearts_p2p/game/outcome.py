"""How a game ends, as data: a ``Termination`` and, for a game stopped early, an ``Abort``.

Front ends and the audit read these fields; the ``reason`` text is for people and nothing
parses it. A cheat caught by a check is a ``CheatError`` inside the core, raised where the check
fails and turned into an ``Abort`` in one place.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

__all__ = ["Abort", "CheatError", "Termination"]


class Termination(Enum):
    """Why a game ended."""

    FINISHED = "finished"  # played to the target
    CHEAT_PROVEN = "cheat proven"  # this peer's own checks caught the culprit
    LEFT = "left"  # a player quit the table
    GONE = "gone"  # a player was disconnected longer than the timeout
    STALLED = "stalled"  # a connected player held up a step its software answers by itself
    REPORTED = "reported"  # a peer stopped the game, naming a culprit on its own word
    UNPROVEN_ACCUSATION = "unproven accusation"  # a peer's evidence did not show what it claimed


@dataclass(frozen=True, slots=True)
class Abort:
    """A game stopped early: why, the player blamed (if any), who stopped it, and the signed
    evidence; ``reason`` says it in words for people."""

    termination: Termination
    culprit: int | None
    reporter: int | None
    evidence: tuple[bytes, ...] = ()
    reason: str = ""


class CheatError(Exception):
    """A player broke the protocol or the rules: ``culprit`` (a player, in genesis order),
    ``reason`` in words, and the signed messages that show it."""

    def __init__(self, culprit: int, reason: str, evidence: tuple[bytes, ...] = ()) -> None:
        super().__init__(reason)
        self.culprit = culprit
        self.reason = reason
        self.evidence = evidence
