"""What a run with no person at the table prints: a status line as the game goes, and the end
of the game by name, as text or as one JSON object for scripts."""

from __future__ import annotations

import json
import os
import shutil
import sys
from typing import Any, TextIO

from hearts_p2p.bots.botseat import BotSeat
from hearts_p2p.engine import Action, HandPhase, SeatView
from hearts_p2p.frontend import (
    Aborted,
    Event,
    GameOver,
    HandScored,
    HandVoided,
    Notice,
    ReclaimRefused,
    SeatedRoster,
    SeatReclaimed,
    SeatTaken,
    SeatTakenOver,
    SitAsked,
    reclaimed_text,
    sit_text,
    taken_over_text,
    voided_text,
)
from hearts_p2p.game import Status
from hearts_p2p.node import Outcome
from hearts_p2p.text import clean, json_escaped

__all__ = ["ReportingSeat", "bar_stream", "outcome_json", "outcome_lines", "stream", "write"]


class ReportingSeat:
    """A bot's seat that says where it sits and how each hand went, one line at a time.

    ``out`` None keeps it silent (``--quiet``); the roster is kept either way, so the end of the
    game can name the players.
    """

    shows_plays = False  # a line per hand, none per play: the node makes no view per play

    def __init__(
        self, seat: BotSeat, where: str, out: TextIO | None, bar: TextIO | None = None
    ) -> None:
        self.seat = seat
        self.where = where
        self.out = out
        # A terminal on which one line, redrawn in place at each of this seat's decisions,
        # shows the hand and trick in play and the totals; the status lines print above it.
        self.bar = bar
        self._drawn = ""
        self.roster: SeatedRoster | None = None

    async def choose(self, view: SeatView) -> Action:
        if self.bar is not None:
            self._draw(self.progress(view))
        return await self.seat.choose(view)

    async def notify(self, event: Event) -> None:
        if isinstance(event, SeatedRoster):
            self.roster = event
        await self.seat.notify(event)
        if isinstance(event, GameOver | Aborted):
            self.end_bar()
        if self.out is None:
            return
        line = self._status(event)
        if line is not None:
            drawn = self._drawn
            self._draw("")
            write(self.out, line + "\n")
            self._draw(drawn)

    def progress(self, view: SeatView) -> str:
        """``hand 3 · trick 7 of 13 · totals Ada 12, Bea 5, …``: where the game is."""
        tricks = len(view.tricks) + len(view.hand)
        if view.phase is HandPhase.PASSING:
            where = "passing"
        elif view.phase is HandPhase.EXPOSE:
            where = "exposing"
        else:
            where = f"trick {min(len(view.tricks) + 1, tricks)} of {tricks}"
        totals = ", ".join(f"{self.name(s)} {t}" for s, t in enumerate(view.totals))
        return f"hand {view.hand_number} · {where} · totals {totals}"

    def end_bar(self) -> None:
        """Take the bar away for good: the game is over, and what follows prints plainly."""
        self._draw("")
        self.bar = None

    def _draw(self, text: str) -> None:
        if self.bar is None or text == self._drawn:
            return
        width = shutil.get_terminal_size((80, 24)).columns - 1
        write(self.bar, "\r" + text[:width] + "\x1b[K" if text else "\r\x1b[K")
        self._drawn = text

    def name(self, seat: int) -> str:
        if self.roster is None:
            return f"seat {seat}"
        return next((clean(p.name) for p in self.roster.players if p.seat == seat), f"seat {seat}")

    def _status(self, event: Event) -> str | None:
        if isinstance(event, Notice):
            return clean(event.text, 300)
        if isinstance(event, SeatedRoster):
            others = ", ".join(self.name(p.seat) for p in event.players if p.seat != event.you)
            return f"playing at {self.where} as {self.name(event.you)}, with {others}"
        if isinstance(event, HandScored):
            me = event.view.seat
            mine = event.result.points[me]
            standing = ", ".join(f"{self.name(s)} {t}" for s, t in enumerate(event.totals))
            return f"hand {event.number}: {mine:+d} for me, totals {standing}"
        if isinstance(event, Aborted):
            return f"game aborted: {clean(event.reason, 200)}"
        you = self.roster is not None and getattr(event, "seat", None) == self.roster.you
        if isinstance(event, SeatTakenOver):
            return taken_over_text(event, self.name(event.seat), you=you)
        if isinstance(event, HandVoided):
            names = [self.name(seat) for seat in event.seats]
            return voided_text(event.number, names, event.redeal)
        if isinstance(event, SeatReclaimed):
            return reclaimed_text(event, self.name(event.seat), you=you)
        if isinstance(event, SitAsked | SeatTaken):
            return sit_text(event, self.name(event.seat))
        if isinstance(event, ReclaimRefused):
            by = ", ".join(self.name(s) for s in event.by)
            return reclaimed_text(event, self.name(event.seat), by, you=you)
        return None


def _scores(outcome: Outcome, name: Any) -> list[dict[str, Any]]:
    if outcome.result is None:
        return []
    results = outcome.result.results
    return [
        {"seat": s, "name": name(s), "total": t, **({"result": results[s]} if results else {})}
        for s, t in enumerate(outcome.result.totals)
    ]


def outcome_json(outcome: Outcome, seat: ReportingSeat) -> str:
    """The end of the game as data: status, totals by name, winners, the log and its hash."""
    result = outcome.result
    document = {
        "status": outcome.status.value,
        "totals": _scores(outcome, seat.name),
        "winners": [seat.name(w) for w in result.winners] if result is not None else [],
        "hands": result.hands if result is not None else None,
        "abort": outcome.abort.reason if outcome.abort is not None else None,
        "log": str(outcome.log_path),
        "final_hash": outcome.final_hash,
    }
    return json_escaped(json.dumps(document, indent=2, ensure_ascii=False)) + "\n"


def outcome_lines(outcome: Outcome, seat: ReportingSeat) -> list[str]:
    """``final scores: Bea 3, Bot 6, Ada 34; winner Bea`` and the log's path."""
    lines = []
    result = outcome.result
    if outcome.status is Status.FINISHED and result is not None:
        scores = _scores(outcome, seat.name)
        if result.results:  # Gong Zhu: the higher the better, and the result decides
            ranked = sorted(scores, key=lambda r: (-r["result"], r["seat"]))
            totals = ", ".join(f"{r['name']} {r['total']} ({r['result']:+d})" for r in ranked)
        else:
            ranked = sorted(scores, key=lambda r: (r["total"], r["seat"]))
            totals = ", ".join(f"{r['name']} {r['total']}" for r in ranked)
        winners = ", ".join(seat.name(w) for w in result.winners) or "none"
        plural = "winners" if len(result.winners) > 1 else "winner"
        lines.append(f"final scores: {totals}; {plural} {winners}")
    lines.append(f"game log: {outcome.log_path}")
    return lines


def write(out: TextIO, text: str) -> None:
    """Write ``text``; a name the stream cannot encode (``Zoë`` on ASCII) shows as ``Zo?``."""
    try:
        out.write(text)
    except UnicodeEncodeError:
        out.write(text.encode("ascii", "replace").decode("ascii"))
    out.flush()


def bar_stream(quiet: bool, as_json: bool) -> TextIO | None:
    """Where a progress bar is drawn: standard output when it is a terminal that can redraw a
    line, and nowhere when quiet, when the output is JSON, or to a pipe or a file."""
    if quiet or as_json or os.environ.get("TERM") == "dumb":
        return None
    try:
        return sys.stdout if sys.stdout.isatty() else None
    except (AttributeError, ValueError):
        return None


def stream(quiet: bool, as_json: bool) -> TextIO | None:
    """Where the status lines go: nowhere when quiet, stderr when stdout carries the JSON."""
    if quiet:
        return None
    return sys.stderr if as_json else sys.stdout
