"""Stopping a game early, and judging another peer's report that it stopped.

A peer that stops the game signs an ``abort`` entry naming the culprit, with the signed messages
that show the fault, and appends it to its log after any report that caused it. A report's
evidence is judged by this peer's own checks, so a cheat is named on our own authority and a
false report cannot turn our blame on an honest player.
"""

from __future__ import annotations

from collections.abc import Callable

from ..wire import SignedMessage, WireError, decode_frame
from .events import Aborted
from .outcome import Abort, Termination
from .state import MAX_REASON, GameState, Status

__all__ = ["MAX_EVIDENCE", "judge_report", "stop"]

MAX_EVIDENCE = 8  # messages judged from one report: a reveal from each of up to 6 seats


def stop(
    s: GameState,
    termination: Termination,
    reason: str,
    culprit: int | None,
    evidence: tuple[bytes, ...] = (),
    reported: SignedMessage | None = None,
) -> None:
    """Stop the game. Our own signed abort goes after any peer's report that caused it."""
    if s.status in (Status.ABORTED, Status.FINISHED):
        return
    s.status = Status.ABORTED
    reason = reason[:MAX_REASON]
    if reported is not None:
        s.log(reported.raw)
    s.abort = Abort(termination, culprit, s.me, evidence, reason)
    if s.identity is not None and s.me is not None:
        body = {"reason": reason, "culprit": culprit, "evidence": list(evidence)}
        msg = s.sign("abort", "abort", body, s.head)
        s.outbox.append(msg)
        s.log(msg.raw)
    seat = s.seat_of[culprit] if culprit is not None and s.seat_of else None
    s.events.append(Aborted(termination, reason, seat, ""))


def judge_report(
    s: GameState, msg: SignedMessage, receive: Callable[[SignedMessage], None]
) -> bool:
    """Take a peer's abort; ``receive`` feeds its evidence through our own checks. False when
    the report is malformed (and so dropped)."""
    body = msg.envelope.body
    reason, culprit = body.get("reason"), body.get("culprit")
    if not isinstance(reason, str) or not (culprit is None or isinstance(culprit, int)):
        return False
    if culprit is not None and not 0 <= culprit < s.players:
        culprit = None
    evidence = body.get("evidence")
    _judge_evidence(s, evidence, receive)
    if s.status is not Status.RUNNING:
        return True  # the evidence convinced us: our own abort names the culprit, not hearsay
    sender = msg.envelope.sender
    name = s.genesis.players[sender].name if s.genesis else "the host"
    if evidence and culprit != sender:
        # Evidence that does not convince us blames no one: the accuser may be the cheat.
        why = f"{reason[:MAX_REASON]} (reported by {name}; its evidence does not show it)"
        stop(s, Termination.UNPROVEN_ACCUSATION, why, None, reported=msg)
        return True
    # Taken on its word: a report says nothing more (a player naming itself may have left, or
    # may relay a report that named it).
    why = f"{reason[:MAX_REASON]} (reported by {name})"
    stop(s, Termination.REPORTED, why, culprit, reported=msg)
    return True


def _judge_evidence(
    s: GameState, evidence: object, receive: Callable[[SignedMessage], None]
) -> None:
    if not isinstance(evidence, list):
        return
    for raw in evidence[:MAX_EVIDENCE]:
        if s.status is not Status.RUNNING or not isinstance(raw, bytes):
            return
        try:
            frame = decode_frame(raw)
        except WireError:
            continue
        if frame.envelope.kind != "abort":
            receive(frame)
