"""A hand whose deck was checked ahead: the same public checks, done once, elsewhere.

The offline audit checks each hand's deck in a worker process first (``check_hand``: every
message as a ``PublicHand`` checks it, then the end-of-hand audit, or, for a hand the log cuts
short, such as the next hand's deck shuffled ahead when the game ends, only the messages). The
replay through the game protocol then feeds a ``PresumedHand``, which takes each message without
repeating the cryptography while the messages are exactly those checked, in the same order, and
gives the audit's result without recomputing it. Anything else (another message, another order,
an audit of a hand checked unfinished) rebuilds a plain ``PublicHand`` from what was fed and
checks from there, so every verdict is the one a plain ``PublicHand`` gives.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .errors import DeckError
from .messages import Message
from .params import HandParams
from .public import AuditResult, PublicHand

__all__ = ["CheckedHand", "PresumedHand", "check_hand"]


@dataclass(frozen=True)
class CheckedHand:
    """A hand's deck messages, in the order checked, and the audit they pass (None: the
    messages stop before every reveal is in, and each passed its checks on receipt)."""

    params: HandParams
    messages: tuple[Message, ...]
    result: AuditResult | None


def check_hand(params: HandParams, messages: Sequence[Message]) -> CheckedHand | None:
    """Check a hand as a ``PublicHand`` does; None unless every check passes, nothing looked
    wrong (no alarm, no anomaly) and, once every reveal is in, the audit finds no fault. A hand
    whose messages stop before its reveals, each taken in its turn (none left waiting), is
    checked as far as they go, with no audit."""
    public = PublicHand(params)
    try:
        applied = sum(len(public.receive(msg)) for msg in messages)
        if public.anomaly is not None or public.stopped_by is not None:
            return None
        if len(public.reveals) < public.n:
            whole = applied == len(messages)
            return CheckedHand(params, tuple(messages), None) if whole else None
        if public.owed():
            return None
        result = public.audit()
    except DeckError:
        return None
    if not result.ok or public.anomaly is not None:
        return None
    return CheckedHand(params, tuple(messages), result)


class PresumedHand(PublicHand):
    """A ``PublicHand`` that trusts the messages ``checked`` holds while they come as checked."""

    def __init__(self, checked: CheckedHand) -> None:
        super().__init__(checked.params)
        self._checked = checked
        self._fed: list[Message] = []
        self._presumed = True

    @property
    def presumed(self) -> bool:
        """Whether every message so far was one checked ahead, in its place."""
        return self._presumed

    def receive(self, msg: Message, *, trusted: bool = False) -> list[Message]:
        if self._presumed:
            at = len(self._fed)
            expected = self._checked.messages
            if at < len(expected) and expected[at] == msg:
                self._fed.append(msg)
                return super().receive(msg, trusted=True)
            self._rebuild()
        return super().receive(msg, trusted=trusted)

    def audit(self, *, own: int | None = None) -> AuditResult:
        result = self._checked.result
        if self._presumed and len(self._fed) == len(self._checked.messages) and result is not None:
            self.result = result
            return result
        if self._presumed:
            self._rebuild()
        return super().audit(own=own)

    def _rebuild(self) -> None:
        """Become a plain ``PublicHand`` that has checked everything fed so far."""
        fed, self._fed = self._fed, []
        self._presumed = False
        PublicHand.__init__(self, self.params)
        for m in fed:
            PublicHand.receive(self, m)
