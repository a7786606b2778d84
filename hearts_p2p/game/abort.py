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

from collections.abc import Callable, Iterable, Sequence
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
    "follow_word",
    "held",
    "keep_taken",
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
    s.move_to(Status.ABORTED)
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
    elif word in (Termination.GONE, Termination.STALLED) and about != sender:
        s.ended.setdefault(sender, msg)  # its word alone, changing nothing; it plays no more
    return True


def follow_word(s: GameState, player: int) -> bool:
    """A peer whose seat the table plays has no word on anyone's: when its clock runs out on a
    player that ended the game on its own word, it ends on that word, logged as the audit
    reads a log that ends with a player's claim (6.9), rather than follow a table that has
    stopped."""
    msg = s.ended.get(player)
    if msg is None or s.status is not Status.RUNNING:
        return False
    body = msg.envelope.body
    word = _BY_WORD[str(body.get("ending"))]
    reason = str(body.get("reason"))[:MAX_REASON]
    _stop(s, Abort(word, body.get("culprit"), player, (), reason), (msg,))
    return True


def after_abort(s: GameState, msg: SignedMessage, key: bytes | None) -> None:
    """After a verdict on messages of the culprit's own, another signed message of its under
    the number or for the step of one of them, of one this peer logged, or of one it took
    since, makes it proven equivocation: peers that saw the messages in any order, or only
    some of them, end alike on the pair that ranks first (6.11)."""
    a = s.abort
    if msg.envelope.game_id != s.game_id:
        return  # another game's message, replayed: it proves and replaces nothing here
    if a is not None and a.termination is Termination.CHEAT_PROVEN:
        _upgrade(s, a, s.evidence, msg, key)
    elif a is not None and a.termination is Termination.LEFT and s.count:
        leave = decode_frame(s.read(s.count - 1, s.count)[0])  # the log ends with the leave
        if leave.envelope.kind == "abort" and not _other_leave(s, a, leave, msg, key):
            # Two messages of a player's under one number, or for one step, at or before the
            # leave's cut rank before it, as before a verdict of any other kind (6.11): the
            # peers that took the pair before the leave end on it, so every peer does.
            _upgrade(s, a, (leave,), msg, key)


def _other_leave(
    s: GameState, a: Abort, logged: SignedMessage, msg: SignedMessage, key: bytes | None
) -> bool:
    """A leaver that signed two different leaves for one step, one shown to some peers and
    one to others: each peer relays the one it took, and all keep the one of smaller bytes,
    whichever came first. (A leave is a player's word about itself, not a numbered message,
    so two are no cheat.) ``logged`` is the leave the log ends with; True if ``msg`` took
    its place."""
    env, body = msg.envelope, msg.envelope.body
    if env.kind != "abort" or env.sender != a.culprit:
        return False
    if body.get("ending") != ENDINGS[Termination.LEFT] or body.get("culprit") != env.sender:
        return False
    if not isinstance(body.get("reason"), str) or logged.envelope.prev != env.prev:
        return False
    if msg.raw >= logged.raw or key is None or not msg.verify(key):
        return False
    s.frames.add(msg.raw)
    s.relays.append(msg)
    _end(s, a, (msg,))
    return True


def upgrade_held(s: GameState, msg: SignedMessage, key: bytes | None) -> None:
    """The same upgrade for a verdict held through the `end` step, so that the peers holding
    it, and those that stopped on it before the step, end on the same pair."""
    a = held(s)
    if a is not None and s.pending is not None:
        _upgrade(s, a, s.pending[1], msg, key)


MAX_SINCE_STOP = 64  # messages taken after a stop kept to pair with a later one
_LAST = 1 << 62  # a rank's part that nothing names: after everything else


def _upgrade(
    s: GameState,
    a: Abort,
    evidence: tuple[SignedMessage, ...],
    msg: SignedMessage,
    key: bytes | None,
) -> None:
    """Turn the verdict into an earlier proven equivocation when ``msg`` and another message
    of its signer's (one of the evidence's, one this peer logged, or one taken since the stop)
    are two under one number, or two for one step, and that pair ranks first (``_rank``): the
    earliest step first. Every peer that proved a cheat relays its evidence, and from what the
    others relay each finds the pair that ranks first (a pair proves itself, whatever history
    a peer has stopped at), so all end on it, whatever each saw first (6.11)."""
    env = msg.envelope
    if env.kind in _NOT_SECOND or env.game_id != s.game_id or key is None:
        return  # outside the numbers, or judged elsewhere: never a second message (SPEC 6.10)
    own = tuple(
        m
        for m in evidence
        if m.envelope.sender == env.sender and m.envelope.kind not in _NOT_SECOND
    )
    now = _ranks(s, a, evidence)
    ranked = [(_rank(s, why, env.sender, pair(m, msg)), why, m) for why, m in _pairs(s, own, msg)]
    best = min(ranked, key=lambda r: r[0], default=None)
    if best is None or best[0] >= now or not msg.verify(key) or not best[2].verify(key):
        # (A forgery verdict's evidence may name this sender, signed by another.) Kept, so a
        # later message can make a pair with it.
        if len(s.since_stop) < MAX_SINCE_STOP and msg.verify(key):
            s.since_stop.setdefault((env.sender, env.seq), msg)
        return
    s.frames.add(msg.raw)
    verdict(s, env.sender, best[1], pair(best[2], msg))


def _pairs(
    s: GameState, own: Sequence[SignedMessage], msg: SignedMessage
) -> list[tuple[str, SignedMessage]]:
    """The messages of ``msg``'s signer's that ``msg`` makes a pair with, each with what the
    pair proves: under its number, or for its step."""
    env = msg.envelope
    found: list[tuple[str, SignedMessage]] = []
    raw = s.logged(env.sender, env.seq)
    for m in [m for m in own if m.envelope.seq == env.seq]:
        found.append((ONE_NUMBER, m))
    if raw is not None:
        found.append((ONE_NUMBER, decode_frame(raw)))
    if (env.sender, env.seq) in s.since_stop:
        found.append((ONE_NUMBER, s.since_stop[(env.sender, env.seq)]))
    raw = s.part(env.prev, env.sender)
    for m in [m for m in own if m.envelope.prev == env.prev]:
        found.append((ONE_STEP, m))
    if raw is not None:
        found.append((ONE_STEP, decode_frame(raw)))
    return [(why, m) for why, m in found if m.envelope_bytes != msg.envelope_bytes]


def _rank(
    s: GameState, reason: str, culprit: int | None, evidence: Sequence[SignedMessage]
) -> tuple[int, int, int, int, tuple[bytes, ...]]:
    """Where a verdict comes among others (6.11): the step its cut goes back to, earliest
    first; then two under one number, two for one step, anything else; then the culprit; then
    its lowest number among the culprit's messages of the evidence; then the evidence's frames,
    smaller bytes first (three frames under one number make three pairs of one rank)."""
    starts = [_start(s, m.envelope.prev, reason) for m in evidence]
    at = min((i for i in starts if i is not None), default=_LAST)
    kind = 0 if reason == ONE_NUMBER else 1 if reason == ONE_STEP else 2
    seqs = [
        m.envelope.seq
        for m in evidence
        if m.envelope.sender == culprit and m.envelope.kind not in _NOT_SECOND
    ]
    frames = tuple(m.raw for m in evidence)
    return at, kind, _LAST if culprit is None else culprit, min(seqs, default=_LAST), frames


def _ranks(
    s: GameState, a: Abort, evidence: tuple[SignedMessage, ...]
) -> tuple[int, int, int, int, tuple[bytes, ...]]:
    return _rank(s, a.reason, a.culprit, evidence)


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
        waited = s.pending
        if waited is not None and s.placed(waited[1]) and _before(s, waited, (abort, tail)):
            abort, tail = waited  # a verdict that waited for its step, and ranks first
        last = s.status is Status.RUNNING and s.step.kind is StepKind.END
        if last and s.placed(tail) and abort.termination is Termination.CHEAT_PROVEN:
            old = held(s)
            if old is None or s.pending is None or _before(s, (abort, tail), s.pending):
                s.pending = (abort, tail)  # the verdict that ranks first, as after a stop
            return
        if not s.placed(tail):
            if s.pending is None or _before(s, (abort, tail), s.pending):
                s.pending = (abort, tail)
            return
    _end(s, abort, tail)


def _before(
    s: GameState,
    a: tuple[Abort, tuple[SignedMessage, ...]],
    b: tuple[Abort, tuple[SignedMessage, ...]],
) -> bool:
    """Whether verdict ``a`` ranks before verdict ``b`` (6.11), or is the leave of smaller
    bytes of a player that signed two for one step (``_other_leave``); a peer's word about
    another ranks nowhere."""
    if a[0].termination is b[0].termination is Termination.LEFT and len(a[1]) == len(b[1]) == 1:
        (x,), (y,) = a[1], b[1]
        same = (x.envelope.sender, x.envelope.prev) == (y.envelope.sender, y.envelope.prev)
        return same and x.raw < y.raw
    cheats = a[0].termination is b[0].termination is Termination.CHEAT_PROVEN
    return cheats and _ranks(s, *a) < _ranks(s, *b)


def _start(s: GameState, prev: bytes, reason: str) -> int | None:
    """Where the cut of a verdict whose evidence names the step at ``prev`` goes (6.11): where
    the step began, after any takeover or void round logged in it, whose seat the evidence
    may be judged by; but a pair (two messages under one number, or for one step) is judged
    by nothing logged, and cuts before such a round, which some peers decide before they prove
    the pair and others after."""
    if reason in (ONE_NUMBER, ONE_STEP) and prev in s.round_starts:
        return s.round_starts[prev]
    return s.index.get(prev)


def _end(s: GameState, abort: Abort, tail: tuple[SignedMessage, ...]) -> None:
    s.pending = None
    found = [_start(s, m.envelope.prev, abort.reason) for m in tail]
    known = [i for i in found if i is not None]
    # Never before the genesis, unless the evidence is the host's two geneses (a genesis
    # another player signs is junk of its own, judged against the roster): evidence naming
    # its step (a message for a step its sender had no part in) follows it, and the log, as
    # every log, starts with the roster it is read by.
    host = any(m.envelope.kind == "genesis" and m.envelope.sender == 0 for m in tail)
    floor = 0 if host else min(s.count, 1)
    at = max(floor, min([s.count, *known]))
    keep_taken(s, [*s.read(at, min(s.count, at + MAX_SINCE_STOP))], s.step.got.values())
    keep_taken(s, [], s.evidence)
    s.cut(at)
    for m in tail:
        s.log(m)
    upgrade = s.status is Status.ABORTED
    s.move_to(Status.ABORTED)
    s.abort = abort
    s.evidence = tail if abort.termination is Termination.CHEAT_PROVEN else ()
    if not upgrade:
        seat = s.seat_of[abort.culprit] if abort.culprit is not None and s.seat_of else None
        s.events.append(Aborted(abort.termination, abort.reason, seat, ""))


def keep_taken(s: GameState, raws: list[bytes], msgs: Iterable[SignedMessage]) -> None:
    """What this peer took and is about to drop (the entries a cut removes, the stopped step's
    parts, a replaced verdict's evidence, the messages waiting for their number): kept to pair
    with a message that comes after the stop (``_pairs``)."""
    for m in [*(decode_frame(r) for r in raws), *msgs]:
        env = m.envelope
        if len(s.since_stop) < MAX_SINCE_STOP and env.kind not in _NOT_SECOND:
            s.since_stop.setdefault((env.sender, env.seq), m)


def resume_stop(s: GameState) -> None:
    """An ending that waited for its step: take it once this peer has reached that step."""
    if s.pending is not None and s.status is Status.RUNNING and s.placed(s.pending[1]):
        _stop(s, *s.pending)
