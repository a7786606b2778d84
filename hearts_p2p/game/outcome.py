"""How a game ends, as data: a ``Termination`` and, for a game stopped early, an ``Abort``.

Front ends and the audit read these fields; the ``reason`` text is for people and nothing
parses it. A cheat caught by a check is a ``CheatError`` inside the core, raised where the check
fails and turned into an ``Abort`` in one place.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from ..wire import SignedMessage

__all__ = ["Abort", "CheatError", "Termination"]


class Termination(Enum):
    """Why a game ended. Only a proven cheat blames anyone; the others name a player on the
    word of one peer (its own departure, or its claim that another has gone)."""

    FINISHED = "finished"  # played to the target
    CHEAT_PROVEN = "cheat proven"  # the culprit's own signed messages prove it, to every peer
    LEFT = "left"  # a player signed that it leaves the table
    GONE = "gone"  # a peer's word: a player was disconnected longer than the timeout
    STALLED = "stalled"  # a peer's word: a player held up a step its software answers itself


@dataclass(frozen=True, slots=True)
class Abort:
    """A game stopped early: why, the player blamed (if any), who stopped it, and the signed
    evidence; ``reason`` says it in words for people."""

    termination: Termination
    culprit: int | None  # the player the ending is about
    reporter: int | None  # the player whose word ended the game (None: a verdict's, anyone's)
    evidence: tuple[bytes, ...] = ()
    reason: str = ""

    @property
    def blamed(self) -> int | None:
        """The player proven to have cheated; a departure or a claim blames no one."""
        return self.culprit if self.termination is Termination.CHEAT_PROVEN else None


class CheatError(Exception):
    """A player broke the protocol or the rules: ``culprit`` (a player, in genesis order),
    ``reason`` in words, and the signed messages that show it."""

    def __init__(self, culprit: int, reason: str, evidence: tuple[SignedMessage, ...]) -> None:
        super().__init__(reason)
        self.culprit = culprit
        self.reason = reason
        self.evidence = evidence
