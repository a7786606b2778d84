"""Ending a game early: a verdict proven by the culprit's own signed messages, or a peer's word.

Only a verdict blames anyone. It needs no signature of this peer's: the log is cut back to
where the step of the earliest evidence message began and the evidence follows, so every honest
peer that judges the same messages writes the same bytes, and the audit, replaying them, reaches
the same verdict. A peer's own word (it leaves; another seat has gone or stalls past the
timeout) is signed and logged as such, and names a player without blaming it. Another peer's
accusation is only its word: its evidence is judged here like any message, what it proves is
this peer's own verdict, and the accusation itself is neither taken nor signed again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..wire import SignedMessage, WireError, decode_frame
from .events import Aborted
from .outcome import Abort, Termination
from .rollcall import NOLEAD
from .state import MAX_REASON, GameState, Status
from .steps import StepKind

__all__ = [
    "ENDINGS",
    "MAX_EVIDENCE",
    "ONE_NUMBER",
    "ONE_STEP",
    "after_abort",
    "end_held",
    "held",
    "no_genesis",
    "pair",
    "receive_abort",
    "resume_stop",
    "sign_abort",
    "upgrade_held",
    "verdict",
]

MAX_EVIDENCE = 8  # messages judged from one report: a reveal from each of up to 6 seats
ONE_NUMBER = "sent two different messages under one number"
ONE_STEP = "sent two different messages for one step"

# A peer's own word, as its abort message says it (the ``ending`` field).
ENDINGS = {Termination.LEFT: "left", Termination.GONE: "gone", Termination.STALLED: "stalled"}
_BY_WORD = {word: t for t, word in ENDINGS.items()}
# The kinds a second message under a number never is (SPEC 6.10 step 5): an abort, a takeover
# round's, a return's, and those outside the numbers (a nolead shares one with a message of its
# step; a sit is a newcomer's, signed by its own key).
_NOT_SECOND = frozenset({"abort", "takeover", "recover", "reclaim", "rejoin", NOLEAD, "sit"})


def sign_abort(s: GameState, termination: Termination, reason: str, about: int | None) -> None:
    """End the game on this peer's own word, signed: it leaves, or says a seat has gone."""
    if s.status not in (Status.RUNNING, Status.AWAITING_GENESIS) or s.me is None:
        return
    if s.identity is None:
        return
    reason = reason[:MAX_REASON]
    body: dict[str, Any] = {
        "reason": reason,
        "culprit": about,
        "ending": ENDINGS[termination],
        "evidence": [],
    }
    msg = s.sign("abort", "abort", body, s.head)
    s.outbox.append(msg)
    s.frames.add(msg.raw)
    _stop(s, Abort(termination, about, s.me, (), reason), (msg,))


def no_genesis(s: GameState, reason: str) -> None:
    """The host has not sent the game's genesis within the timeout: the game never began, and
    ends here with nothing logged and nothing signed (this peer has no seat to sign from)."""
    if s.status is not Status.AWAITING_GENESIS:
        return
    s.status = Status.ABORTED
    s.abort = Abort(Termination.GONE, 0, None, (), reason[:MAX_REASON])
    s.events.append(Aborted(Termination.GONE, s.abort.reason, None, ""))


def verdict(s: GameState, culprit: int, reason: str, evidence: tuple[SignedMessage, ...]) -> None:
    """A cheat proven by ``evidence``, the culprit's own signed messages (in the order every
    peer uses)."""
    if s.status is Status.FINISHED:
        return
    s.relays += evidence  # a forgery in this peer's own name too: the others must see it
    raws = tuple(m.raw for m in evidence)
    _stop(s, Abort(Termination.CHEAT_PROVEN, culprit, s.me, raws, reason[:MAX_REASON]), evidence)


def receive_abort(
    s: GameState, msg: SignedMessage, receive: Callable[[SignedMessage], None]
) -> bool:
    """Another player's abort, signed by it; False when malformed (and so dropped)."""
    env, body = msg.envelope, msg.envelope.body
    reason, about = body.get("reason"), body.get("culprit")
    if not isinstance(reason, str) or isinstance(about, bool):
        return False
    if not (about is None or (isinstance(about, int) and 0 <= about < s.players)):
        return False
    evidence = body.get("evidence")
    for raw in evidence[:MAX_EVIDENCE] if isinstance(evidence, list) else []:
        if s.status is not Status.RUNNING or not isinstance(raw, bytes):
            break
        try:
            frame = decode_frame(raw)
        except WireError:
            continue
        if frame.envelope.kind != "abort":
            receive(frame)
    if s.status is not Status.RUNNING:
        return True
    word = _BY_WORD.get(str(body.get("ending")))
    sender = env.sender
    if about == sender and word is Termination.LEFT:
        s.relays.append(msg)
        name = s.genesis.players[sender].name if s.genesis else "the host"
        _stop(s, Abort(Termination.LEFT, sender, sender, (), f"{name} left the table"), (msg,))
    elif s.identity is None and word in (Termination.GONE, Termination.STALLED):
        # The audit reads a log whose owner ended the game on its own word: that another
        # seat has gone or stalls. Leaving is only ever a player's word about itself.
        _stop(s, Abort(word, about, sender, (), reason[:MAX_REASON]), (msg,))
    return True


def after_abort(s: GameState, msg: SignedMessage, key: bytes | None) -> None:
    """After a verdict on messages of the culprit's own, another signed message of its under
    the number of one of them makes it proven equivocation under one number: peers that saw
    the messages in any order, or only some of them, end alike (under one number comes first,
    6.11)."""
    a = s.abort
    if a is not None and a.termination is Termination.CHEAT_PROVEN:
        _upgrade(s, a, s.evidence, msg, key)


def upgrade_held(s: GameState, msg: SignedMessage, key: bytes | None) -> None:
    """The same upgrade for a verdict held through the `end` step, so that the peers holding
    it, and those that stopped on it before the step, end on the same pair."""
    a = held(s)
    if a is not None and s.pending is not None:
        _upgrade(s, a, s.pending[1], msg, key)


def _upgrade(
    s: GameState,
    a: Abort,
    evidence: tuple[SignedMessage, ...],
    msg: SignedMessage,
    key: bytes | None,
) -> None:
    env = msg.envelope
    if env.kind in _NOT_SECOND:
        return  # outside the numbers, or judged elsewhere: never a second message (SPEC 6.10)
    mine = [m for m in evidence if m.envelope.sender == a.culprit]  # a forgery is not its own
    if len({m.envelope.seq for m in mine}) < len(mine):
        return  # under one number already
    for first in mine:
        if (env.sender, env.seq, env.game_id) != (first.envelope.sender, first.envelope.seq,
                                                  first.envelope.game_id):  # fmt: skip
            continue
        if key is None or msg.envelope_bytes == first.envelope_bytes or not msg.verify(key):
            return
        s.frames.add(msg.raw)
        verdict(s, env.sender, ONE_NUMBER, pair(first, msg))
        return


def pair(a: SignedMessage, b: SignedMessage) -> tuple[SignedMessage, SignedMessage]:
    """Two conflicting messages in the one order every peer uses, whichever came first."""
    return (a, b) if a.raw <= b.raw else (b, a)


def held(s: GameState) -> Abort | None:
    """The verdict this peer holds through the `end` step (6.11): it ends the game only if the
    step cannot complete."""
    if s.pending is None or s.status is not Status.RUNNING or not s.placed(s.pending[1]):
        return None
    return s.pending[0]


def end_held(s: GameState) -> bool:
    """The `end` step will not complete (the log is over, or this peer gave up waiting on a
    player the verdict does not name): the held verdict is the ending."""
    if held(s) is None:
        return False
    assert s.pending is not None
    _end(s, *s.pending)
    return True


def _stop(s: GameState, abort: Abort, tail: tuple[SignedMessage, ...]) -> None:
    """End the game: cut the log back to where the earliest of ``tail``'s steps began, and
    append ``tail``. A tail for a step this peer has not reached yet waits until it has (see
    ``resume_stop``), so that every honest peer cuts its log at the same place. A verdict
    reached in the `end` step is held: another honest peer may have finished already, and a
    finished game stays finished (6.11)."""
    if s.status is not Status.ABORTED:
        last = s.status is Status.RUNNING and s.step.kind is StepKind.END
        if last and s.placed(tail) and abort.termination is Termination.CHEAT_PROVEN:
            old = held(s)
            if old is None or (abort.reason == ONE_NUMBER and old.reason != ONE_NUMBER):
                s.pending = (abort, tail)  # under one number comes first, as after a stop
            return
        if not s.placed(tail):
            if s.pending is None:
                s.pending = (abort, tail)
            return
    _end(s, abort, tail)


def _end(s: GameState, abort: Abort, tail: tuple[SignedMessage, ...]) -> None:
    s.pending = None
    known = [s.index[m.envelope.prev] for m in tail if m.envelope.prev in s.index]
    s.cut(min([s.count, *known]))
    for m in tail:
        s.log(m)
    upgrade = s.status is Status.ABORTED
    s.status = Status.ABORTED
    s.abort = abort
    s.evidence = tail if abort.termination is Termination.CHEAT_PROVEN else ()
    if not upgrade:
        seat = s.seat_of[abort.culprit] if abort.culprit is not None and s.seat_of else None
        s.events.append(Aborted(abort.termination, abort.reason, seat, ""))


def resume_stop(s: GameState) -> None:
    """An ending that waited for its step: take it once this peer has reached that step."""
    if s.pending is not None and s.status is Status.RUNNING and s.placed(s.pending[1]):
        _stop(s, *s.pending)
