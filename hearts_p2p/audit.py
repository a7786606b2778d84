"""Verifying a finished game from its log alone, offline: ``hearts audit LOG``.

The log is replayed through the very protocol every peer ran, as an observer with no secrets:
signatures, the hash chain, the genesis, every deck step and its end-of-hand audit, every play
through the rules engine, every score. The reader collects every problem it can rather than
stopping at the first: bad records and signatures are listed and skipped, then the replay
reports where the game first went wrong and why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .cards import CARDS
from .engine import penalty_points
from .log import LogCorrupt, read_log
from .node.genesis import Genesis, GenesisError
from .node.protocol import GameProtocol, HandRecord, Status
from .wire import SignedMessage, WireError, decode_frame

__all__ = ["AuditReport", "HandSummary", "Problem", "audit_log"]


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


@dataclass(frozen=True)
class HandSummary:
    number: int
    dealer: int
    pass_direction: str
    passes: tuple[tuple[int, int, tuple[str, ...]], ...]  # (from seat, to seat, cards)
    tricks: tuple[TrickSummary, ...]
    points: tuple[int, ...]
    moon: int | None
    totals: tuple[int, ...]


@dataclass
class AuditReport:
    path: str
    entries: int = 0
    table: str = ""
    rules: str = ""
    players: list[dict[str, Any]] = field(default_factory=list)  # in seat order
    hands: list[HandSummary] = field(default_factory=list)
    status: str = "unreadable"  # finished, aborted, incomplete, unreadable
    totals: tuple[int, ...] = ()
    winners: tuple[int, ...] = ()
    abort: dict[str, Any] | None = None
    final_hash: str = ""
    problems: list[Problem] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return not self.problems and self.status in ("finished", "aborted")

    def name(self, seat: int) -> str:
        if 0 <= seat < len(self.players):
            return f"seat {seat} ({self.players[seat]['name']})"
        return f"seat {seat}"

    def to_json(self) -> dict[str, Any]:
        return {
            "log": self.path,
            "valid": self.valid,
            "status": self.status,
            "entries": self.entries,
            "table": self.table,
            "rules": self.rules,
            "players": self.players,
            "hands": [
                {
                    "number": h.number,
                    "dealer": h.dealer,
                    "pass": h.pass_direction,
                    "passes": [{"from": f, "to": t, "cards": list(c)} for f, t, c in h.passes],
                    "tricks": [
                        {
                            "leader": t.leader,
                            "plays": [{"seat": s, "card": c} for s, c in t.plays],
                            "winner": t.winner,
                            "points": t.points,
                        }
                        for t in h.tricks
                    ],
                    "points": list(h.points),
                    "moon": h.moon,
                    "totals": list(h.totals),
                }
                for h in self.hands
            ],
            "totals": list(self.totals),
            "winners": list(self.winners),
            "abort": self.abort,
            "final_hash": self.final_hash,
            "problems": [
                {"where": p.where, "what": p.what, "culprit": p.culprit} for p in self.problems
            ],
        }


def audit_log(path: Path) -> AuditReport:
    """Verify the game log at ``path``; the report lists every problem found."""
    report = AuditReport(str(path))
    try:
        loaded = read_log(path)
    except LogCorrupt as e:
        report.problems.append(Problem("file", str(e)))
        return report
    report.entries = len(loaded.entries)
    if loaded.torn:
        report.problems.append(Problem("file", "the last record is torn (cut off) and was dropped"))
    messages = _decode_all(loaded.entries, report)
    if not messages:
        report.problems.append(Problem("file", "the log holds no game"))
        return report
    genesis = _genesis(messages[0][1], report)
    if genesis is None:
        return report
    _replay(genesis, messages, loaded.entries, report)
    return report


def _decode_all(entries: list[bytes], report: AuditReport) -> list[tuple[int, SignedMessage]]:
    out = []
    for i, raw in enumerate(entries):
        try:
            out.append((i, decode_frame(raw)))
        except WireError as e:
            report.problems.append(Problem(f"entry {i}", f"not a valid message ({e})"))
    return out


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
) -> None:
    proto = GameProtocol(genesis.game_id, genesis.players[0].key)
    records: list[HandRecord] = []
    proto.on_hand_audited = records.append
    claims: list[tuple[int, SignedMessage]] = []
    for i, msg in messages:
        env = msg.envelope
        key = genesis.players[env.sender].key if env.sender < len(genesis.players) else None
        if key is None or not msg.verify(key):
            report.problems.append(
                Problem(
                    f"entry {i}", f"bad signature on a {env.kind} message from player {env.sender}"
                )
            )
            continue
        if env.kind == "abort":
            claims.append((i, msg))
            if proto.status is Status.RUNNING:
                for raw in _evidence(msg):
                    proto.receive(raw)
        proto.receive(msg)
    _fill_players(genesis, proto, report)
    report.hands = [_summary(r, genesis) for r in records]
    report.final_hash = proto.head.hex()
    _check_order(proto, entries, messages, report)
    _verdict(proto, claims, report)


def _evidence(msg: SignedMessage) -> list[SignedMessage]:
    out = []
    evidence = msg.envelope.body.get("evidence")
    for raw in evidence if isinstance(evidence, list) else []:
        if isinstance(raw, bytes):
            try:
                out.append(decode_frame(raw))
            except WireError:
                continue
    return out


def _fill_players(genesis: Genesis, proto: GameProtocol, report: AuditReport) -> None:
    order = proto.player_at or list(range(len(genesis.players)))
    report.players = [
        {
            "seat": seat,
            "player": p,
            "name": genesis.players[p].name,
            "fingerprint": genesis.players[p].fingerprint,
            "bot": genesis.players[p].bot,
        }
        for seat, p in enumerate(order)
    ]
    if proto.game is not None:
        report.totals = tuple(proto.game.totals)
        if proto.game.result is not None:
            report.winners = proto.game.result.winners


def _check_order(
    proto: GameProtocol,
    entries: list[bytes],
    messages: list[tuple[int, SignedMessage]],
    report: AuditReport,
) -> None:
    """Every entry must have been taken, in the log's order, by the replay."""
    taken = proto.entries
    for i, raw in enumerate(entries):
        if i >= len(taken) or taken[i] != raw:
            if any(p.where == f"entry {i}" for p in report.problems):
                return  # already explained (undecodable or badly signed)
            env = next((m.envelope for j, m in messages if j == i), None)
            what = "is not where the game could take it (reordered, repeated or from elsewhere)"
            if env is not None:
                what = f"{env.kind} from player {env.sender} in {env.step} {what}"
            if proto.status is Status.RUNNING or not report.problems:
                report.problems.append(Problem(f"entry {i}", what))
            return


def _verdict(
    proto: GameProtocol, claims: list[tuple[int, SignedMessage]], report: AuditReport
) -> None:
    if proto.status is Status.FINISHED:
        report.status = "finished"
        return
    if proto.status is Status.ABORTED and proto.abort is not None:
        report.status = "aborted"
        a = proto.abort
        culprit = (
            report.name(proto.seat_of[a.culprit])
            if a.culprit is not None and proto.seat_of
            else None
        )
        report.abort = {"reason": a.reason, "blamed": culprit, "reported_by": None}
        if a.reporter is None and not claims:
            # The audit itself found the fault and no player's log recorded it: the game went on.
            report.problems.append(
                Problem(f"hand {proto.step.hand}, {proto.step.name}", a.reason, culprit)
            )
        elif claims:
            sender = claims[0][1].envelope.sender
            report.abort["reported_by"] = (
                proto.genesis.players[sender].name if proto.genesis else sender
            )
        return
    report.status = "incomplete"
    waiting = (
        ", ".join(proto.genesis.players[p].name for p in proto.waiting_for())
        if proto.genesis
        else "?"
    )
    report.problems.append(
        Problem(
            f"hand {proto.step.hand}, {proto.step.name}",
            f"the log ends here, waiting for {waiting}",
        )
    )


def _summary(record: HandRecord, genesis: Genesis) -> HandSummary:
    rules = genesis.rules
    h = record.replay
    n = rules.players
    targets = [rules.pass_target(s, record.number) for s in range(n)]
    passes = tuple(
        (s, t, tuple(str(CARDS[c]) for c in range(52) if record.passed[s] >> c & 1))
        for s, t in enumerate(targets)
        if t is not None
    )
    tricks = tuple(
        TrickSummary(
            t.leader,
            tuple((t.seat_of(i, n), str(CARDS[c])) for i, c in enumerate(t.cards)),
            t.winner,
            penalty_points(rules, sum(1 << c for c in t.cards)),
        )
        for t in h.tricks
    )
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
    )
