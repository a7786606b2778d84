"""Verifying a finished game from its log alone, offline: ``hearts audit LOG``.

The log is replayed through the very protocol every peer ran, as an observer with no secrets:
signatures, the hash chain, the genesis, every deck step and its end-of-hand audit, every play
through the rules engine, every score. The reader collects every problem it can rather than
stopping at the first: bad records and signatures are listed and skipped, then the replay
reports where the game first went wrong and why.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from .auditwork import AheadChecks, default_workers
from .cards import CARDS, cards_of
from .engine import trick_points
from .engine.hand import Trick
from .game import (
    Abort,
    GameEvent,
    GameProtocol,
    Genesis,
    GenesisError,
    HandRecord,
    HandVoided,
    ReclaimRefused,
    SeatReclaimed,
    SeatTaken,
    SeatTakenOver,
    Status,
    StepId,
    StepKind,
    Termination,
)
from .log import LogCorrupt, read_log
from .rules import Rules
from .wire import SignedMessage, WireError, decode_frame

__all__ = [
    "AbortSummary",
    "AuditReport",
    "AuditStatus",
    "HandSummary",
    "PlayerSummary",
    "Problem",
    "ReturnSummary",
    "SitSummary",
    "TakeoverSummary",
    "TrickSummary",
    "VoidSummary",
    "audit_entries",
    "audit_log",
    "hand_summary",
    "trick_summary",
]


class AuditStatus(StrEnum):
    """Where the log leaves the game."""

    FINISHED = "finished"
    ABORTED = "aborted"
    INCOMPLETE = "incomplete"
    UNREADABLE = "unreadable"


@dataclass(frozen=True)
class Problem:
    """One thing wrong: where it is and what rule or check it breaks."""

    where: str
    what: str
    culprit: str | None = None

    def __str__(self) -> str:
        who = f" [{self.culprit}]" if self.culprit else ""
        return f"{self.where}: {self.what}{who}"


@dataclass(frozen=True)
class TrickSummary:
    leader: int
    plays: tuple[tuple[int, str], ...]  # (seat, card) in play order
    winner: int
    points: int

    def to_json(self) -> dict[str, Any]:
        plays = [{"seat": s, "card": c} for s, c in self.plays]
        return {"leader": self.leader, "plays": plays, "winner": self.winner, "points": self.points}


@dataclass(frozen=True)
class HandSummary:
    number: int
    dealer: int
    pass_direction: str
    # (from seat, to seat, cards); cards None for a pass that stays private (SPEC 4.4 step 9)
    passes: tuple[tuple[int, int, tuple[str, ...] | None], ...]
    tricks: tuple[TrickSummary, ...]
    points: tuple[int, ...]
    moon: int | None
    totals: tuple[int, ...]
    exposed: tuple[tuple[str, ...], ...] = ()  # Gong Zhu: each seat's exposed cards
    claimed: int | None = None  # the seat whose claim took the tricks not played

    def to_json(self) -> dict[str, Any]:
        shown: dict[str, Any] = {"exposed": [list(e) for e in self.exposed]} if self.exposed else {}
        if self.claimed is not None:
            shown["claimed"] = self.claimed
        return {
            "number": self.number,
            "dealer": self.dealer,
            "pass": self.pass_direction,
            "passes": [
                {"from": f, "to": t, "cards": None if c is None else list(c)}
                for f, t, c in self.passes
            ],
            "tricks": [t.to_json() for t in self.tricks],
            "points": list(self.points),
            "moon": self.moon,
            "totals": list(self.totals),
            **shown,
        }


@dataclass(frozen=True)
class PlayerSummary:
    seat: int
    player: int  # in genesis order
    name: str
    fingerprint: str
    bot: bool


@dataclass(frozen=True)
class AbortSummary:
    """Why the logged game stopped early, players named as the report names them. Only a
    cheat the log proves blames anyone: a player who left is named as such, and a peer's claim
    that another had gone is that peer's word, naming the other without blaming it."""

    ending: str  # "cheat proven", "left", "gone" or "stalled"
    reason: str
    blamed: str | None  # the cheat, proven by its own signed messages in the log
    left: str | None  # the player who signed that it left
    claim_by: str | None  # whose unproven word ended the game ("gone", "stalled")
    claim_about: str | None  # the player that word is about, blamed by no one
    confirmed: bool  # the log itself proves how the game ended (all but a claim)


@dataclass(frozen=True)
class TakeoverSummary:
    """A seat the table played from some point on, its secret recovered from the escrow: every
    play it made there the audit recomputed."""

    seat: int
    name: str
    hand: int
    ending: str  # "left", "gone" or "stalled": what the survivors said


@dataclass(frozen=True)
class VoidSummary:
    """A hand voided because the players at ``seats`` left in one step and their secrets are
    lost: it scored nothing, and ``redeal`` was dealt in its place (None: too few players were
    left, and the game ended on the totals so far)."""

    hand: int
    seats: tuple[int, ...]
    names: tuple[str, ...]
    redeal: int | None


@dataclass(frozen=True)
class ReturnSummary:
    """A seat the table played that its player asked back at a hand boundary: ``back`` if it was
    a person's again from hand ``hand``; else ``refused_by`` lists the seats that kept it off
    (empty: its fresh escrow never came)."""

    seat: int
    name: str
    hand: int
    refused_by: tuple[int, ...] = ()
    back: bool = False


@dataclass(frozen=True)
class SitSummary:
    """A newcomer (``name``, ``fingerprint``) that asked for the open seat ``seat`` at a hand
    boundary: ``taken`` if its key held that seat from hand ``hand`` on, in place of ``was``;
    else ``refused_by`` lists the seats that kept it off (empty: nobody refused, its escrow
    never came)."""

    seat: int
    name: str
    fingerprint: str
    hand: int
    was: str = ""
    refused_by: tuple[int, ...] = ()
    taken: bool = False


@dataclass
class AuditReport:
    path: str
    entries: int = 0
    table: str = ""
    rules: str = ""
    players: list[PlayerSummary] = field(default_factory=list)  # in seat order
    hands: list[HandSummary] = field(default_factory=list)
    status: AuditStatus = AuditStatus.UNREADABLE
    totals: tuple[int, ...] = ()
    winners: tuple[int, ...] = ()
    results: tuple[int, ...] = ()  # Gong Zhu: each seat's result by the formula
    abort: AbortSummary | None = None
    takeovers: list[TakeoverSummary] = field(default_factory=list)
    returns: list[ReturnSummary] = field(default_factory=list)
    sits: list[SitSummary] = field(default_factory=list)
    voids: list[VoidSummary] = field(default_factory=list)
    final_hash: str = ""
    problems: list[Problem] = field(default_factory=list)
    open_end: Problem | None = None  # a running game's log ends here: its one problem, if sound

    @property
    def valid(self) -> bool:
        return not self.problems and self.status in (AuditStatus.FINISHED, AuditStatus.ABORTED)

    @property
    def sound_so_far(self) -> bool:
        """Whether the log of a game still running is valid as far as it goes: its only problem
        is that it ends, waiting for a message (what a newcomer checks before it sits)."""
        return self.status is AuditStatus.INCOMPLETE and self.problems == [self.open_end]

    def name(self, seat: int) -> str:
        if 0 <= seat < len(self.players):
            return f"seat {seat} ({self.players[seat].name})"
        return f"seat {seat}"

    def to_json(self) -> dict[str, Any]:
        return {
            "log": self.path,
            "valid": self.valid,
            "status": self.status.value,
            "entries": self.entries,
            "table": self.table,
            "rules": self.rules,
            "players": [asdict(p) for p in self.players],
            "hands": [h.to_json() for h in self.hands],
            "totals": list(self.totals),
            "winners": list(self.winners),
            **({"results": list(self.results)} if self.results else {}),
            "abort": asdict(self.abort) if self.abort is not None else None,
            "takeovers": [asdict(t) for t in self.takeovers],
            "returns": [{**asdict(r), "refused_by": list(r.refused_by)} for r in self.returns],
            "sits": [{**asdict(r), "refused_by": list(r.refused_by)} for r in self.sits],
            "voids": [
                {**asdict(v), "seats": list(v.seats), "names": list(v.names)} for v in self.voids
            ],
            "final_hash": self.final_hash,
            "problems": [asdict(p) for p in self.problems],
        }


def audit_log(path: Path, *, workers: int | None = None) -> AuditReport:
    """Verify the game log at ``path``; the report lists every problem found.

    ``workers``: processes checking signatures and decks ahead of the replay (None: one per
    core for a long log, none for a short one); the report is the same whatever the number."""
    report = AuditReport(str(path))
    try:
        loaded = read_log(path)
    except LogCorrupt as e:
        report.problems.append(Problem("file", str(e)))
        return report
    return audit_entries(loaded.entries, str(path), torn=loaded.torn, workers=workers)


def audit_entries(
    entries: list[bytes], path: str = "", *, torn: bool = False, workers: int | None = 0
) -> AuditReport:
    """Verify a game log already read (``audit_log`` reads the file; the simulator holds its
    peers' logs in memory); ``torn``: the file's last record was cut off and dropped."""
    report = AuditReport(path)
    report.entries = len(entries)
    if torn:
        report.problems.append(Problem("file", "the last record is torn (cut off) and was dropped"))
    messages = _decode_all(entries, report)
    if not messages:
        report.problems.append(Problem("file", "the log holds no game"))
        return report
    # A game the host ended at once, with a second message under its genesis's number, logs
    # the pair in byte order (SPEC 6.11): the genesis may come second, after junk of its kind.
    first = next((m for _, m in messages[:2] if _is_genesis(m)), messages[0][1])
    genesis = _genesis(first, report)
    if genesis is None:
        return report
    if workers is None:
        workers = default_workers(len(entries))
    _replay(genesis, messages, entries, report, workers, first_checked=messages[0][1] is first)
    return report


def _decode_all(entries: list[bytes], report: AuditReport) -> list[tuple[int, SignedMessage]]:
    out = []
    for i, raw in enumerate(entries):
        try:
            out.append((i, decode_frame(raw)))
        except WireError as e:
            report.problems.append(Problem(f"entry {i}", f"not a valid message ({e})"))
    return out


def _is_genesis(msg: SignedMessage) -> bool:
    """Whether ``msg`` reads as a genesis (its signature is checked by ``_genesis``)."""
    env = msg.envelope
    if env.kind != "genesis" or env.sender != 0 or env.seq != 0:
        return False
    try:
        Genesis.from_wire(env.game_id, env.body)
    except GenesisError:
        return False
    return True


def _genesis(first: SignedMessage, report: AuditReport) -> Genesis | None:
    env = first.envelope
    if env.kind != "genesis" or env.sender != 0 or env.seq != 0:
        report.problems.append(Problem("entry 0", "the log does not start with a genesis"))
        return None
    try:
        genesis = Genesis.from_wire(env.game_id, env.body)
    except GenesisError as e:
        report.problems.append(Problem("entry 0", f"bad genesis: {e}"))
        return None
    if not first.verify(genesis.players[0].key):
        report.problems.append(Problem("entry 0", "the genesis is not signed by its host"))
        return None
    report.table = genesis.table_name
    report.rules = genesis.rules.summary()
    return genesis


def _replay(
    genesis: Genesis,
    messages: list[tuple[int, SignedMessage]],
    entries: list[bytes],
    report: AuditReport,
    workers: int,
    *,
    first_checked: bool,
) -> None:
    proto = GameProtocol(genesis.game_id, genesis.players[0].key)
    rejected = _feed(proto, genesis, messages, len(entries), report, workers, first_checked)
    proto.log_ended()
    rejected.sort()
    _fill_players(genesis, proto, report)
    _, _, events = proto.drain()
    _summarise(events, genesis, report)
    report.final_hash = proto.head.hex()
    if not _check_order(proto, entries, messages, rejected, report):
        _verdict(proto, entries, rejected, report)


def _feed(
    proto: GameProtocol,
    genesis: Genesis,
    messages: list[tuple[int, SignedMessage]],
    count: int,
    report: AuditReport,
    workers: int,
    first_checked: bool,
) -> list[int]:
    """Give the observer every decoded entry in log order, each signature and deck checked
    ahead in worker processes; the entries it could not take (undecodable or unsigned)."""
    decoded = {i for i, _ in messages}
    rejected = [i for i in range(count) if i not in decoded]
    keys = [p.key for p in genesis.players]
    # The genesis, first, was checked under its host's key by ``_genesis`` (second, after the
    # host's other message under its number, it is checked with the rest).
    checked = 1 if first_checked else 0
    with AheadChecks([m for _, m in messages], keys, workers, checked=checked) as ahead:
        for j, (i, msg) in enumerate(messages):
            by_sender = ahead.signed_by_sender(j)
            problem = None if by_sender else _signature_problem(genesis, proto, i, msg)
            if problem is not None:
                report.problems.append(problem)
                rejected.append(i)
                continue
            proto.receive(msg, verified=by_sender)
            if not ahead.hands_started and proto.seat_of:
                ahead.start_hands(genesis, proto.seat_of)
            for begun in (proto.flow, proto.ahead_flow):  # a deck, as soon as it begins
                if begun is not None and begun.public.fresh:
                    ahead.presume(begun)
    return rejected


def _summarise(events: list[GameEvent], genesis: Genesis, report: AuditReport) -> None:
    """The report's hands, takeovers, returns, sits and voids, from the replay's events."""
    report.hands = [hand_summary(e, genesis) for e in events if isinstance(e, HandRecord)]
    report.takeovers = [
        TakeoverSummary(e.seat, e.name, e.hand, e.ending)
        for e in events
        if isinstance(e, SeatTakenOver)
    ]
    report.returns = [
        ReturnSummary(
            e.seat,
            e.name,
            e.hand,
            e.by if isinstance(e, ReclaimRefused) else (),
            back=isinstance(e, SeatReclaimed),
        )
        for e in events
        if isinstance(e, SeatReclaimed) or (isinstance(e, ReclaimRefused) and not e.newcomer)
    ]
    report.sits = [
        SitSummary(e.seat, e.name, e.fingerprint, e.hand, was=e.was, taken=True)
        if isinstance(e, SeatTaken)
        else SitSummary(e.seat, e.name, e.newcomer, e.hand, refused_by=e.by)
        for e in events
        if isinstance(e, SeatTaken) or (isinstance(e, ReclaimRefused) and e.newcomer)
    ]
    report.voids = [
        VoidSummary(e.number, e.seats, e.names, e.redeal)
        for e in events
        if isinstance(e, HandVoided)
    ]


def _signature_problem(
    genesis: Genesis, proto: GameProtocol, i: int, msg: SignedMessage
) -> Problem | None:
    """None when ``msg``, not signed by the player it names, is for the replay to judge; else
    what is wrong with it.

    One signed by another seated player is judged by the replay: it takes it as that player's
    forgery, proven by its own signature, and a log may end with it as the evidence of its
    verdict. Random damage verifies under no key.
    """
    env = msg.envelope
    players = genesis.players
    where = f"entry {i} ({_where(proto, env.hand, env.step)})"
    if env.sender >= len(players):
        return Problem(where, f"a {env.kind} message from player {env.sender}, who is not seated")
    if any(msg.verify(p.key) for p in players):
        return None
    key = proto.key_for(env)  # a newcomer's, once the log so far seats it (SPEC 6.15)
    if key is not None and msg.verify(key):
        return None
    return Problem(
        where, f"bad signature on a {env.kind} message from {_player(proto, env.sender)}"
    )


def _player(proto: GameProtocol, player: int) -> str:
    """A player as the report names it: by seat once seats are drawn."""
    g = proto.genesis
    name = g.players[player].name if g is not None and player < len(g.players) else "?"
    if proto.seat_of:
        return f"seat {proto.seat_of[player]} ({name})"
    return f"player {player} ({name})"


def _where(proto: GameProtocol, hand: int, step: str) -> str:
    """A step as a reader thinks of it: ``hand 2, trick 5`` for ``play.16`` at four players."""
    at = StepId.parse(step)
    kind = at.kind if at is not None else None
    if hand == 0:
        return f"seating, {step}" if kind is not StepKind.GENESIS else "genesis"
    if at is not None and at.kind is StepKind.OPEN and at.index is not None and proto.players:
        return f"hand {hand}, trick {at.index // proto.players + 1}"
    if kind is StepKind.REVEAL:
        return f"hand {hand}, end of hand"
    return f"hand {hand}, {step}"


def _fill_players(genesis: Genesis, proto: GameProtocol, report: AuditReport) -> None:
    order = proto.player_at or list(range(len(genesis.players)))
    roster = genesis.players
    report.players = [
        PlayerSummary(seat, p, roster[p].name, roster[p].fingerprint, roster[p].bot)
        for seat, p in enumerate(order)
    ]
    if proto.game is not None:
        report.totals = tuple(proto.game.totals)
    if proto.result is not None:
        report.winners = proto.result.winners
        report.results = proto.result.results


def _check_order(
    proto: GameProtocol,
    entries: list[bytes],
    messages: list[tuple[int, SignedMessage]],
    rejected: list[int],
    report: AuditReport,
) -> bool:
    """The replay, fed the log, must write the log back: every entry in its place, nothing
    more. True when the log goes on past a cheat the replay proved (reported here)."""
    envs = {i: m.envelope for i, m in messages}
    skip = set(rejected)
    kept = [i for i in range(len(entries)) if i not in skip]
    taken = proto.entries
    a = proto.abort
    for k, raw in enumerate(taken[: len(kept)]):
        i = kept[k]
        if entries[i] == raw:
            continue
        env, want = envs[i], decode_frame(raw).envelope
        where = f"entry {i} ({_where(proto, env.hand, env.step)})"
        if a is not None and a.termination is Termination.CHEAT_PROVEN and raw in a.evidence:
            # The replay caught what no peer's log recorded: the game went on past it.
            culprit = _player(proto, a.culprit) if a.culprit is not None else None
            report.status = AuditStatus.INCOMPLETE
            why = f"{a.reason}; the log goes on as if nobody saw it"
            report.problems.append(Problem(where, why, culprit))
            return True
        report.problems.append(
            Problem(
                where,
                f"holds {env.step} from {_player(proto, env.sender)}, where the game's order "
                f"has {want.step} from {_player(proto, want.sender)} (entries reordered, "
                "repeated or from elsewhere)",
            )
        )
        return False
    extra = kept[len(taken) :]
    if extra and a is not None and a.termination is Termination.CHEAT_PROVEN:
        env = envs[extra[0]]
        culprit = _player(proto, a.culprit) if a.culprit is not None else None
        report.status = AuditStatus.INCOMPLETE
        why = f"{a.reason}; the log goes on as if nobody saw it"
        report.problems.append(Problem(_where(proto, env.hand, env.step), why, culprit))
        return True
    if extra and proto.status is not Status.RUNNING:
        env = envs[extra[0]]
        after = "the end of the game" if proto.status is Status.FINISHED else "the game stopped"
        report.problems.append(
            Problem(
                f"entry {extra[0]} ({_where(proto, env.hand, env.step)})",
                f"{env.step} from {_player(proto, env.sender)} after {after}",
            )
        )
    return False


def _verdict(
    proto: GameProtocol, entries: list[bytes], rejected: list[int], report: AuditReport
) -> None:
    where = _where(proto, proto.step.hand, proto.step.name)
    if proto.status is Status.FINISHED:
        report.status = AuditStatus.FINISHED
        return
    if proto.status is Status.ABORTED and proto.abort is not None:
        report.status = AuditStatus.ABORTED
        report.abort = _abort_summary(proto, proto.abort)
        return
    report.status = AuditStatus.INCOMPLETE
    waiting = ", ".join(_player(proto, p) for p in proto.waiting_for()) or "?"
    stuck = [i for i in rejected if i >= len(proto.entries)]
    if stuck:
        unchecked = len(entries) - stuck[0] - 1
        what = (
            f"the game cannot go on without a valid message from {waiting} (entry {stuck[0]} "
            f"was refused); the {unchecked} entries after it cannot be checked"
        )
        report.problems.append(Problem(where, what))
        return
    report.open_end = Problem(where, f"the log ends here, waiting for {waiting}")
    report.problems.append(report.open_end)


def _abort_summary(proto: GameProtocol, a: Abort) -> AbortSummary:
    """How the game ended early, as the log proves it: only a proven cheat blames anyone."""
    t = a.termination
    about = _player(proto, a.culprit) if a.culprit is not None else None
    by = _player(proto, a.reporter) if a.reporter is not None else None
    claim = t in (Termination.GONE, Termination.STALLED)
    return AbortSummary(
        ending=t.value,
        reason=a.reason,
        blamed=about if t is Termination.CHEAT_PROVEN else None,
        left=about if t is Termination.LEFT else None,
        claim_by=by if claim else None,
        claim_about=about if claim else None,
        confirmed=not claim,
    )


def trick_summary(trick: Trick, rules: Rules, exposed: int = 0) -> TrickSummary:
    """A trick as the report shows it: plays by seat, the taker and its points (Gong Zhu's
    doubled by the hand's exposed cards, a mask)."""
    n = rules.players
    plays = tuple((trick.seat_of(i, n), str(CARDS[c])) for i, c in enumerate(trick.cards))
    points = trick_points(rules, sum(1 << c for c in trick.cards), exposed)
    return TrickSummary(trick.leader, plays, trick.winner, points)


def hand_summary(record: HandRecord, genesis: Genesis) -> HandSummary:
    """A hand as the report shows it, from the record the replay made of it."""
    rules = genesis.rules
    h = record.replay
    n = rules.players
    targets = [rules.pass_target(s, record.number) for s in range(n)]
    passes = tuple(
        (s, t, None if (p := record.passed[s]) is None else tuple(str(c) for c in cards_of(p)))
        for s, t in enumerate(targets)
        if t is not None
    )
    tricks = tuple(trick_summary(t, rules, h.exposed) for t in h.tricks)
    assert h.result is not None
    return HandSummary(
        record.number,
        h.dealer,
        rules.pass_direction(record.number).value,
        passes,
        tricks,
        h.result.points,
        h.result.moon,
        record.totals,
        tuple(tuple(str(c) for c in cards_of(e or 0)) for e in h.exposures) if h.gongzhu else (),
        h.claimed,
    )
