"""A chess clock for every seat, hand by hand: the bound on how long one seat can make a hand
take.

The stall clock names a seat that holds up one step past the timeout; alone, it lets a seat
take just under the timeout over every step, for ever (a hand of 13 plays at 0.9 × 120 s is
25 minutes). So each seat also has a bank of ``BANK_SHARE`` × timeout per hand, drained while
the seat owes its part of a step (``GameProtocol.owing``). This node's own decisions come out of
its own bank: once the bank is spent the computer plays for its person at once. Another seat
whose bank is spent and one more timeout with it is named as stalled, as the stall clock names
it: the table takes it over. So a seat adds at most (``BANK_SHARE`` + 1) × timeout to a hand
beyond a normal one, and an honest node, which stops at its bank, is a whole timeout short of
being named, however its clock and another's drift. Pure: the shell feeds it the time.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["BANK_SHARE", "TimeBank"]

BANK_SHARE = 2.0  # of the timeout, for each seat and each hand


class TimeBank:
    """Time each player has owed its part in the current hand, as this node measures it."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.bank = BANK_SHARE * timeout
        self._hand = -1
        self._spent: dict[int, float] = {}
        self._named: set[int] = set()
        self._last: float | None = None
        self._owing: tuple[int, ...] = ()

    def tick(self, now: float, hand: int, owing: Iterable[int]) -> list[int]:
        """The time since the last tick goes to the players that owed their part through it;
        ``owing`` now, in ``hand``, owe from here on. The shell ticks whenever the state may
        have changed (each message it takes or sends) and on its clock, so each stretch goes
        to the players that owed through it, not to whoever owes at the next look. Returns the
        players whose bank and a timeout more are spent, each named once a hand."""
        if self._last is not None:
            elapsed = max(0.0, now - self._last)
            for p in self._owing:
                self._spent[p] = self._spent.get(p, 0.0) + elapsed
        if hand != self._hand:
            self._hand, self._spent, self._named = hand, {}, set()
        self._last = now
        self._owing = tuple(owing)
        out = []
        for p in self._owing:
            if self._spent.get(p, 0.0) >= self.bank + self.timeout and p not in self._named:
                self._named.add(p)
                out.append(p)
        return out

    def left(self, player: int, hand: int) -> float:
        """What is left of ``player``'s bank in ``hand``."""
        spent = self._spent.get(player, 0.0) if hand == self._hand else 0.0
        return max(0.0, self.bank - spent)
