"""The promise, checked on a finished run: what every honest peer and the audit must conclude."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from enum import StrEnum

from ..audit import AuditReport, audit_entries
from ..game import Status, Termination
from .peer import SimPeer
from .scenario import FaultKind
from .world import World

__all__ = ["Broken", "Violation", "check"]


class Broken(StrEnum):
    """Which part of the promise a run broke."""

    HONEST_NAMED = "an honest seat named"  # by an honest peer's verdict or word, or the audit
    OPENED = "a present seat taken over"  # an honest seat answering all along, opened
    DISAGREE = "honest peers disagree"  # different endings, or logs that part
    HELD = "the table held"  # no end, nor the hands asked, within the bound on time
    RUNAWAY = "steps without progress"  # a log far longer than its hands need
    AUDIT = "an honest log does not audit"
    FAILED = "a peer failed"  # an exception escaped the core


@dataclass(frozen=True)
class Violation:
    broken: Broken
    detail: str


# Log entries a hand may take at most, per seat: a normal one takes about 25 a seat; takeovers,
# returns, refused claims and voids add a few each.
ENTRIES_PER_SEAT_HAND = 80


def present(world: World, player: int) -> bool:
    """Whether an honest player was there and answering for the whole run: never crashed, cut
    off or quit (a slow one answers within its move clock, and counts as present)."""
    return player not in troubled(world)


def troubled(world: World) -> set[int]:
    """The players the promise counts against it: the hostile ones, and the honest ones that
    crashed, quit, were cut off (of a partition, the smaller side) or whose clock gave up on
    a present player."""
    out = {p.index for p in world.peers if p.hostile}
    for f in world.scenario.faults:
        if f.peer not in world.faulted or f.kind not in world.faulted[f.peer]:
            continue  # never happened: the game had ended, or the peer had gone
        if f.kind in (FaultKind.CRASH, FaultKind.QUIT, FaultKind.EARLY_CLOCK):
            out.add(f.peer)  # an early clock is its own peer's trouble, never its victim's
        elif f.kind is FaultKind.PARTITION:
            rest = set(range(world.n)) - set(f.others) - {f.peer}
            side = {f.peer} | rest
            out |= side if len(side) <= len(f.others) else set(f.others)
    return out


def covered(world: World) -> bool:
    """Whether the run is one the whole promise covers: at most n − 2 players in trouble, so
    two honest peers that can reach each other are always left."""
    return len(troubled(world)) <= world.n - 2


def check(world: World, *, audit: bool = True) -> tuple[list[Violation], AuditReport | None]:
    """Every invariant on the run's end state; the audit report of an honest log, if any.

    Blame is checked on every run: no honest seat is ever named a cheat, whatever befell the
    table. Liveness, agreement and the seats' privacy are checked where the promise covers the
    run (``covered``): a table whose honest peers were all cut off from each other may end on
    each one's word, differently."""
    out: list[Violation] = []
    honest = [p for p in world.honest() if p.alive]
    whole = covered(world)
    if whole and not world.reached:
        where = ", ".join(f"p{p.index} at {p.protocol.step}" for p in honest)
        out.append(Violation(Broken.HELD, f"after {world.clock.now:.0f} s: {where}"))
    out += _named(world, honest, whole)
    if whole:
        out += _opened(world, honest)
        # A peer in trouble (crashed, cut off) may end on its own word while the table goes
        # on without it: the others must agree, and it must blame no one.
        trouble = troubled(world)
        out += _agreement([p for p in honest if p.index not in trouble])
    out += _runaway(world, honest)
    report = None
    if audit:
        found, report = _audits(world, honest)
        out += found
    return out, report


def _named(world: World, honest: list[SimPeer], whole: bool) -> list[Violation]:
    out = []
    for p in honest:
        a = p.protocol.abort
        if a is None or a.culprit is None:
            continue
        blamed = a.termination is Termination.CHEAT_PROVEN
        about = a.culprit
        word = whole and present(world, about) and present(world, p.index)
        word = word and not _before_seats(p)
        if not world.peers[about].hostile and (blamed or word):
            if a.termination is Termination.LEFT and world.faulted[about] & {FaultKind.QUIT}:
                continue
            out.append(Violation(
                Broken.HONEST_NAMED,
                f"p{p.index} ended {a.termination.value} naming p{about}: {a.reason}",
            ))  # fmt: skip
    return out


def _opened(world: World, honest: list[SimPeer]) -> list[Violation]:
    """A present honest player's seat is played by the table nowhere its untroubled peers
    play, and its secret is recovered nowhere (an open seat of a voided hand carries a public
    stand-in, not the player's secret: that is a void, which a peer cut off may reach alone)."""
    out = []
    trouble = troubled(world)
    for p in honest:
        for seat in sorted(p.protocol.table_seats):
            if not present(world, seat):
                continue
            recovered = not p.protocol.table_seat_open(seat)
            if recovered or p.index not in trouble:
                what = "recovered the secret of" if recovered else "plays"
                out.append(Violation(Broken.OPENED, f"p{p.index} {what} present p{seat}'s seat"))
    return out


def _agreement(honest: list[SimPeer]) -> list[Violation]:
    out = []
    ended = [p for p in honest if p.finished and not _before_seats(p)]
    running = [p for p in honest if not p.finished or _before_seats(p)]
    for a, b in itertools.pairwise(ended):
        pa, pb = a.protocol, b.protocol
        if (_kind(pa.termination), _culprit(a)) != (_kind(pb.termination), _culprit(b)):
            out.append(Violation(
                Broken.DISAGREE,
                f"p{a.index} ended {_ending(a)}, p{b.index} {_ending(b)}",
            ))  # fmt: skip
        elif _own(a) and _own(b):
            out += _parted(a, b)  # each completed the steps it could before its clock ran out
        elif _agreed(a) != _agreed(b):
            out.append(Violation(Broken.DISAGREE, f"p{a.index}'s and p{b.index}'s logs differ"))
    for a, b in itertools.pairwise(running):
        out += _parted(a, b)
    return out


def _parted(a: SimPeer, b: SimPeer) -> list[Violation]:
    """Two logs neither of which is final for both (a peer still running, or two that each
    ended on their own claim, SPEC 6.11): one must be a prefix of the other."""
    la, lb = _agreed(a), _agreed(b)
    k = min(len(la), len(lb))
    if la[:k] == lb[:k]:
        return []
    first = next(i for i in range(k) if la[i] != lb[i])
    return [Violation(Broken.DISAGREE, f"p{a.index}'s and p{b.index}'s logs part at entry {first}")]


def _own(p: SimPeer) -> bool:
    """Whether ``p`` ended the game on its own claim (a seat gone or stalled)."""
    a = p.protocol.abort
    return a is not None and a.reporter == p.index and a.termination in _WORD


def _before_seats(p: SimPeer) -> bool:
    """Whether ``p``'s game ended on its own word before the seats were drawn (before every
    escrow was in, no seat can be taken over): the table never formed, each honest peer ends
    on its own clock, and their logs agree up to their own words."""
    a = p.protocol.abort
    return (
        a is not None
        and a.termination in _WORD
        and a.reporter in (p.index, None)
        and (p.protocol.step.hand == 0)
    )


def _agreed(p: SimPeer) -> list[bytes]:
    """The log every honest peer must hold alike: a game ended on each peer's own word (a
    seat gone or stalled where no takeover can be) ends with each one's own signed abort."""
    return p.log[:-1] if _own(p) else p.log


_WORD = (Termination.GONE, Termination.STALLED)


def _kind(t: Termination | None) -> Termination | None:
    """An ending as peers must agree on it: a claim is each peer's own word (SPEC 6.11), so
    one peer's "gone" and another's "stalled" about one seat agree (a peer cut off from the
    seat sees it gone where one linked to it sees it hold the step); the seat named must be
    the same."""
    return Termination.GONE if t is Termination.STALLED else t


def _culprit(p: SimPeer) -> int | None:
    a = p.protocol.abort
    return a.culprit if a is not None else None


def _ending(p: SimPeer) -> str:
    a = p.protocol.abort
    if a is None:
        return p.protocol.status.value
    return f"{a.termination.value} (p{a.culprit}: {a.reason})"


def _runaway(world: World, honest: list[SimPeer]) -> list[Violation]:
    out = []
    for p in honest:
        hands = max(1, p.protocol.step.hand + 1)
        bound = hands * world.n * ENTRIES_PER_SEAT_HAND
        if len(p.log) > bound:
            out.append(Violation(Broken.RUNAWAY, f"p{p.index}'s log has {len(p.log)} entries"))
    return out


def _audits(world: World, honest: list[SimPeer]) -> tuple[list[Violation], AuditReport | None]:
    out: list[Violation] = []
    first: AuditReport | None = None
    seen: set[tuple[bytes, ...]] = set()
    for p in honest:
        key = tuple(p.log)
        if key in seen or not p.log:
            continue
        seen.add(key)
        report = audit_entries(list(p.log), f"p{p.index}")
        first = first or report
        sound = report.valid if p.finished else (report.valid or report.sound_so_far)
        if not sound:
            problems = "; ".join(f"{x.where}: {x.what}" for x in report.problems[:2])
            out.append(Violation(Broken.AUDIT, f"p{p.index}'s log: {problems}"))
        elif report.abort is not None and report.abort.blamed is not None:
            blamed = report.abort.blamed
            if any(f"({q.protocol_name})" in blamed for q in world.honest()):
                out.append(Violation(
                    Broken.HONEST_NAMED, f"the audit of p{p.index}'s log blames {blamed}"
                ))  # fmt: skip
        if p.finished and p.protocol.status is Status.FINISHED and report.abort is not None:
            out.append(Violation(Broken.AUDIT, f"p{p.index} finished, its audit says aborted"))
    return out, first
