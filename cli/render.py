"""Turning views and events into terminal lines: Unicode suits, red ♥ ♦, or plain ASCII.

Line-oriented on purpose: it works in any terminal, over ssh, in a log file and in a test. Every
line is about one thing and names seats as the player sees them (``Bot 2 (left)``, ``you``).
"""

from __future__ import annotations

import io
import os
import re
import shutil
import sys
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TextIO

from hearts_p2p.cards import QUEEN_SPADES, Card, Suit
from hearts_p2p.engine import Claim, Expose, HandPhase, PlayCard, SeatView, gongzhu_results
from hearts_p2p.engine.scoring import HandResult
from hearts_p2p.engine.view import TrickView
from hearts_p2p.frontend import (
    YOU_LEFT,
    Aborted,
    CardPlayed,
    CardsExposed,
    ChatLine,
    Event,
    GameOver,
    HandClaimed,
    HandScored,
    HandStarted,
    HandVoided,
    Notice,
    PassReceived,
    PeerState,
    PeerStatus,
    ReclaimRefused,
    SeatedRoster,
    SeatReclaimed,
    SeatTaken,
    SeatTakenOver,
    SitAsked,
    TrickTaken,
    reclaimed_text,
    sit_text,
    taken_over_text,
    voided_text,
)
from hearts_p2p.game import Termination
from hearts_p2p.rules import PassDirection
from hearts_p2p.system import current
from hearts_p2p.text import clean

TABLE_MARK = " [table]"  # after the name of a seat the table plays
RED = "\x1b[31m"
BOLD = "\x1b[1m"
DIM = "\x1b[2m"
RESET = "\x1b[0m"
ERASE_LINE = "\r\x1b[K"

# What an ASCII terminal shows instead of the few non-ASCII characters our own lines use.
_ASCII = str.maketrans(
    {"♣": "C", "♦": "D", "♠": "S", "♥": "H", "─": "-", "·": "|", "—": "-", "→": "->", "−": "-"}
)


def points_text(points: int) -> str:
    return f"{points} point" if abs(points) == 1 else f"{points} points"


@dataclass
class Style:
    """How cards look on one output stream: suit symbols or letters, with or without colour."""

    unicode: bool = True
    color: bool = True

    @classmethod
    def for_stream(cls, stream: TextIO) -> Style:
        """Colour only on a terminal and without NO_COLOR; ASCII where the encoding lacks ♠.

        An ASCII stream is switched to replacing what it cannot encode, so a name like "Zoë"
        shows as "Zo?" instead of crashing the game.
        """
        tty = _isatty(stream)
        color = tty and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"
        encoding = getattr(stream, "encoding", None) or "ascii"
        try:
            "♣♦♠♥─·—".encode(encoding)
            uni = not os.environ.get("HEARTS_ASCII")
        except (UnicodeEncodeError, LookupError):
            uni = False
        if not uni and isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="replace")
        return cls(unicode=uni, color=bool(color))

    def text(self, line: str) -> str:
        """``line`` as this stream can show it: suit symbols become letters in ASCII."""
        return line if self.unicode else line.translate(_ASCII)

    def suit(self, suit: int) -> str:
        s = Suit(suit)
        text = s.symbol if self.unicode else s.letter
        return self.red(text) if s.is_red else text

    def card(self, card: int) -> str:
        c = Card(card)
        return c.rank_name + self.suit(c.suit)

    def cards(self, cards: Iterable[int]) -> str:
        return " ".join(self.card(c) for c in cards)

    def red(self, text: str) -> str:
        return f"{RED}{text}{RESET}" if self.color else text

    def bold(self, text: str) -> str:
        return f"{BOLD}{text}{RESET}" if self.color else text

    def dim(self, text: str) -> str:
        return f"{DIM}{text}{RESET}" if self.color else text


def _isatty(stream: TextIO) -> bool:
    """A terminal that shows ANSI escapes (a Windows console once they are turned on)."""
    try:
        return stream.isatty() and current().console.ansi(stream)
    except (AttributeError, ValueError):
        return False


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def shown_width(text: str) -> int:
    """Columns ``text`` takes on a terminal: colour codes take none, wide (CJK) characters two."""
    plain = _ANSI.sub("", text)
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in plain)


def wrapped(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` columns, broken between words only (a word longer
    than a line keeps its line); the lines after the first indented two past the first's own
    indent. ``width`` 0 (not a terminal) or too narrow to matter: the line as it is."""
    if width < 20 or shown_width(text) <= width:
        return [text]
    indent = " " * (len(text) - len(text.lstrip(" ")) + 2)
    lines: list[str] = []
    line = space = ""
    for token in re.split(r"( +)", text):
        if token.startswith(" "):
            space = token  # the spaces before the next word, kept as they are
            continue
        joined = line + space + token
        if line.strip() and shown_width(joined) > width:
            lines.append(line)
            line = indent + token
        else:
            line = joined
        space = ""
    return [*lines, line]


class Screen:
    """What the player sees: seat names relative to them, and one method per kind of line.

    A prompt stays at the bottom: a line that arrives while the player is typing (a chat line,
    a peer dropping out) is printed above it and the prompt is shown again.
    """

    def __init__(
        self,
        out: TextIO = sys.stdout,
        style: Style | None = None,
        asker: Callable[[str], None] | None = None,
    ) -> None:
        self.out = out
        self.style = style or Style.for_stream(out)
        # An editor line (lineinput.py) draws the prompt itself, below what is printed here.
        self._asker = asker
        self.names: dict[int, str] = {}
        self.you = 0
        self.players = 4
        self._prompt: str | None = None
        self._broken: bool | None = None  # hearts broken this hand; None: joined mid-hand
        # Erasing the prompt line needs a terminal that understands it; others get a newline.
        self._tty = _isatty(out)
        self._erase = self._tty and os.environ.get("TERM") != "dumb"

    # -- output ----------------------------------------------------------------------------

    def line(self, text: str = "") -> None:
        """Print one line, keeping a pending prompt below it."""
        prompt = None if self._asker is not None else self._prompt
        if prompt is not None:
            self._write(ERASE_LINE if self._erase else "\n")
        width = shutil.get_terminal_size((0, 0)).columns if self._tty else 0
        for part in wrapped(self.style.text(text), width):
            self._write(part + "\n")
        if prompt is not None:
            self._write(self.style.text(prompt))
        self.out.flush()

    def prompt(self, text: str) -> None:
        """Ask for input; the prompt stays pending until ``typed`` is called."""
        self._prompt = text
        if self._asker is not None:
            self._asker(self.style.text(text))
            return
        self._write(self.style.text(text))
        self.out.flush()

    def typed(self) -> None:
        """The player pressed Enter: the prompt line is finished."""
        self._prompt = None
        if self._asker is not None:
            self._asker("")

    def drop_prompt(self) -> None:
        """The question went away unanswered (the game ended): take the prompt off the screen."""
        if self._asker is not None:
            self._prompt = None
            self._asker("")
        elif self._prompt is not None:
            self._prompt = None
            self._write(ERASE_LINE if self._erase else "\n")
            self.out.flush()

    def _write(self, text: str) -> None:
        try:
            self.out.write(text)
        except UnicodeEncodeError:
            self.out.write(text.encode("ascii", "replace").decode("ascii"))

    # -- names -----------------------------------------------------------------------------

    def who(self, seat: int) -> str:
        """``Alice (left)``; ``you`` for the player's own seat."""
        if seat == self.you:
            return "you"
        return f"{self.name(seat)} ({self.direction(seat)})"

    def name(self, seat: int) -> str:
        return "you" if seat == self.you else self.names.get(seat, f"seat {seat}")

    def direction(self, seat: int) -> str:
        """Where a seat sits, counted the short way round: ``left``, ``2 to your right``."""
        k = (seat - self.you) % self.players
        if 2 * k == self.players:
            return "across"
        if 2 * k < self.players:
            return "left" if k == 1 else f"{k} to your left"
        k = self.players - k
        return "right" if k == 1 else f"{k} to your right"

    def clockwise(self) -> list[int]:
        """Every seat, starting with the player's and going left: the order of the table."""
        return [(self.you + k) % self.players for k in range(self.players)]

    # -- views -----------------------------------------------------------------------------

    def hand(self, view: SeatView) -> str:
        """Your hand grouped by suit; the cards you may play now marked.

        With colour the playable cards are bold and the rest dim; without, playable cards are
        in brackets. The three cards received are starred until the first trick is taken, so
        you can tell what the pass brought.
        """
        legal = {a.card for a in view.legal if isinstance(a, PlayCard)}
        received = set(view.received) if not view.tricks else set()
        groups = []
        for suit in (Suit.CLUBS, Suit.DIAMONDS, Suit.SPADES, Suit.HEARTS):
            cards = [c for c in view.hand if c.suit == suit]
            if not cards:
                continue
            shown = []
            for c in cards:
                text = c.rank_name
                if legal and c in legal:
                    text = self.style.bold(text) if self.style.color else f"[{text}]"
                elif legal:
                    text = self.style.dim(text)
                shown.append(text + "*" if c in received else text)
            groups.append(self.style.suit(suit) + " " + " ".join(shown))
        return "   ".join(groups) if groups else "(no cards)"

    def trick(self, trick: TrickView) -> str:
        return ", ".join(f"{self.who(s)} {self.style.card(c)}" for s, c in trick.plays)

    def turn_lines(self, view: SeatView) -> list[str]:
        """Shown when it is your turn: the trick so far, then your hand with the legal cards."""
        lines = [""]
        if view.phase is HandPhase.PLAYING:
            lines.append(self.situation(view))
        lines.append(f"Your hand: {self.hand(view)}")
        if any(isinstance(a, Claim) for a in view.legal):
            lines.append("(every card of yours wins: type claim to take the rest)")
        return lines

    def situation(self, view: SeatView) -> str:
        """``Trick 3: Bot 2 (left) 5♦ · your turn · hearts broken``."""
        number = len(view.tricks) + 1
        if view.trick is not None:
            head = f"Trick {number}: {self.trick(view.trick)}"
        else:
            head = f"Trick {number}"
        if view.my_turn:
            turn = "you lead" if view.trick is None else "your turn"
        elif view.to_act:
            turn = f"{self.who(view.to_act[0])} to play"
        else:
            turn = "waiting"
        if view.rules.is_gongzhu:
            return f"{head} · {turn}{self.exposures(view)}{self._taken(view)}"
        broken = "hearts broken" if view.hearts_broken else "hearts not broken"
        return f"{head} · {turn} · {broken}{self._taken(view)}"

    def exposures(self, view: SeatView) -> str:
        """`` · exposed: Bot 2 Q♠, you 10♣ A♥``: each exposed card next to its owner (Gong Zhu)."""
        shown = [
            f"{self.name(s)} {self.style.cards(view.exposed[s])}"
            for s in self.clockwise()
            if s < len(view.exposed) and view.exposed[s]
        ]
        return " · exposed: " + ", ".join(shown) if shown else ""

    def _taken(self, view: SeatView) -> str:
        """`` · taken: Bot 2 3, you 1``: the points each player holds so far this hand."""
        held = [
            f"{self.name(s)} {view.points_taken[s]}"
            for s in self.clockwise()
            if s < len(view.points_taken) and view.points_taken[s]
        ]
        return " · taken: " + ", ".join(held) if held else ""

    def status(self, view: SeatView) -> list[str]:
        """The ``hand`` command: where the hand stands, whoever's turn it is."""
        lines = [f"Hand {view.hand_number} · {self._pass_words(view)}"]
        if view.phase is HandPhase.PLAYING:
            lines.append(self.situation(view))
        elif view.phase is HandPhase.PASSING:
            lines.append("passing: " + ("choose 3 cards" if view.legal else "waiting for others"))
        elif view.phase is HandPhase.EXPOSE:
            doing = "choose the cards to expose" if view.legal else "waiting for others"
            lines.append(f"exposing: {doing}{self.exposures(view)}")
        lines.append(f"Your hand: {self.hand(view)}")
        return lines

    def prompt_for(self, view: SeatView) -> str:
        if view.phase is HandPhase.PASSING:
            target = "" if view.pass_target is None else f" to {self.who(view.pass_target)}"
            return f"pass 3 cards{target}> "
        if view.phase is HandPhase.EXPOSE:
            return self._expose_prompt(view)
        if view.phase is HandPhase.MOON_CHOICE:
            total = view.rules.penalty_total
            return f"you shot the moon! add {total} to the others (a) or take {total} off you (s)> "
        legal = [a.card for a in view.legal if isinstance(a, PlayCard)]
        return f"play [{self.style.cards(legal)}]> "

    def _expose_prompt(self, view: SeatView) -> str:
        """``expose Q♠ 10♣, some or none> ``: what this seat may expose, and what it must."""
        options = [a.cards for a in view.legal if isinstance(a, Expose)]
        held = sorted(set().union(*options))
        must = set(options[0]).intersection(*options)
        if len(options) == 1:
            return f"you must expose {self.style.cards(held)} (Enter)> "
        words = "some or none" if not must else f"{self.style.cards(sorted(must))} at least"
        enter = "only those" if must else "none"
        return f"expose {self.style.cards(held)}, {words} (Enter: {enter})> "

    def _pass_words(self, view: SeatView) -> str:
        if view.rules.is_gongzhu:
            return "Gong Zhu: exposures, then play"
        if view.pass_direction is PassDirection.NONE or view.pass_target is None:
            return "no pass"
        return f"pass {view.pass_direction.value} to {self.who(view.pass_target)}"

    def scores(
        self,
        totals: Sequence[int],
        column: Sequence[int] | None = None,
        heading: str = "hand",
        winners: Sequence[int] = (),
        results: Sequence[int] = (),
    ) -> list[str]:
        """The score table, you first then clockwise; ``column`` adds a hand's points, and
        ``results`` Gong Zhu's result of each total (own × 3 − the others')."""
        width = max(len(self.who(s)) for s in range(len(totals))) + 2
        head = f"  {'player':<{width}}"
        if column is not None:
            head += f" {heading:>6}"
        head += f" {'total':>6}"
        if results:
            head += f" {'result':>7}"
        lines = [self.style.dim(head)]
        for s in self.clockwise():
            if s >= len(totals):
                continue
            row = f"  {self.who(s):<{width}}"
            if column is not None:
                row += f" {column[s]:>+6d}" if heading == "hand" else f" {column[s]:>6}"
            row += f" {totals[s]:>6}"
            if results:
                row += f" {results[s]:>+7d}"
            if s in winners:
                row += "  winner"
            lines.append(row)
        return lines

    def sheet(
        self, results: Sequence[HandResult], totals: Sequence[int], taken: Sequence[int] = ()
    ) -> list[str]:
        """The score sheet, as Microsoft Hearts keeps it: a column for each player (you first,
        then clockwise), a row for each hand scored, the points taken so far in the hand being
        played (``taken``), and the totals."""
        seats = [s for s in self.clockwise() if s < len(totals)]
        names = ["you" if s == self.you else self.name(s)[:10] for s in seats]
        width = max(6, *(len(n) for n in names))
        label = 9

        def row(title: str, values: Sequence[int], note: str = "") -> str:
            cells = " ".join(f"{values[s]:>{width}}" for s in seats)
            return f"  {title:<{label}}{cells}{note}"

        lines = [self.style.dim(f"  {'':<{label}}" + " ".join(f"{n:>{width}}" for n in names))]
        for number, r in enumerate(results, 1):
            note = f"  {self.who(r.moon)} shot the moon" if r.moon is not None else ""
            lines.append(row(f"hand {number}", r.points, note))
        if taken:
            lines.append(self.style.dim(row("so far", taken)))
        lines.append(self.style.bold(row("total", totals)))
        return lines

    # -- events ----------------------------------------------------------------------------

    def event(self, ev: Event) -> None:
        if isinstance(ev, SeatedRoster):
            self._roster(ev)
        elif isinstance(ev, HandStarted):
            v = ev.view
            self._broken = False
            self.line("")
            self.line(self.style.bold(f"── Hand {v.hand_number} · {self._pass_words(v)} ──"))
            self.line(f"Your hand: {self.hand(v)}")
        elif isinstance(ev, PassReceived):
            v = ev.view
            if v.passed and v.pass_target is not None:
                self.line(f"You passed {self.style.cards(v.passed)} to {self.who(v.pass_target)}")
            self.line(f"You received {self.style.cards(ev.cards)} from {self.who(ev.source)}")
        elif isinstance(ev, CardsExposed):
            if ev.cards:
                doubled = "its score doubled" if len(ev.cards) == 1 else "their scores doubled"
                who = "You expose" if ev.seat == self.you else f"{self.who(ev.seat)} exposes"
                self.line(f"  {who} {self.style.cards(ev.cards)} ({doubled})")
        elif isinstance(ev, CardPlayed):
            if ev.seat != self.you:
                lead = " leads" if len(ev.view.trick.plays if ev.view.trick else ()) == 1 else ""
                self.line(f"  {self.who(ev.seat)}{lead or ' plays'} {self.style.card(ev.card)}")
            self._news(ev)
        elif isinstance(ev, HandClaimed):
            self._claimed(ev)
        elif isinstance(ev, TrickTaken):
            self._trick_taken(ev)
        elif isinstance(ev, HandScored):
            self._hand_scored(ev)
        elif isinstance(ev, GameOver):
            self._game_over(ev)
        elif isinstance(ev, Aborted):
            blame = ""
            if ev.culprit is not None and ev.termination is Termination.CHEAT_PROVEN:
                blame = f" (cheat proven: {self.who(ev.culprit)})"
            self.line("")
            if ev.termination is Termination.LEFT and ev.culprit == self.you:
                self.line(self.style.bold(YOU_LEFT))  # seated: the game goes on without you
            else:
                self.line(self.style.bold(f"Game aborted: {clean(ev.reason, 200)}{blame}"))
            self.line(f"Game log: {ev.log_path}")
            self.line(f"Check it yourself: hearts audit {ev.log_path}")
        elif isinstance(ev, SeatTakenOver):
            you = ev.seat == self.you
            self.line(self.style.bold(taken_over_text(ev, self.who(ev.seat), you=you)))
            if ev.seat in self.names and not self.names[ev.seat].endswith(TABLE_MARK):
                self.names[ev.seat] += TABLE_MARK  # marked wherever the seat is named from now
        elif isinstance(ev, HandVoided):
            names = [self.who(seat) for seat in ev.seats]
            self.line(self.style.bold(voided_text(ev.number, names, ev.redeal)))
        elif isinstance(ev, SeatReclaimed | ReclaimRefused):
            if isinstance(ev, SeatReclaimed) and ev.seat in self.names:
                self.names[ev.seat] = self.names[ev.seat].removesuffix(TABLE_MARK)
            by = ", ".join(self.who(s) for s in ev.by) if isinstance(ev, ReclaimRefused) else ""
            you = ev.seat == self.you
            self.line(self.style.bold(reclaimed_text(ev, self.who(ev.seat), by, you=you)))
        elif isinstance(ev, SitAsked | SeatTaken):
            if isinstance(ev, SeatTaken):
                self.names[ev.seat] = clean(ev.name, 32)
            self.line(self.style.bold(sit_text(ev, self.who(ev.seat))))
        elif isinstance(ev, PeerState):
            self.line(self._peer_state(ev))
        elif isinstance(ev, ChatLine):
            self.line(f"<{self.name(ev.seat)}> {clean(ev.text, 200)}")
        elif isinstance(ev, Notice):
            self.line(clean(ev.text, 300))

    def _news(self, ev: CardPlayed) -> None:
        """Hearts broken and Q♠ played, each said once, as the card that did it is played."""
        if ev.card == QUEEN_SPADES:
            self.line(f"  ({self.style.card(ev.card)} is played)")
        if ev.view.hearts_broken and self._broken is False and not ev.view.rules.is_gongzhu:
            self.line(f"  (hearts are broken by {self.who(ev.seat)})")
        self._broken = ev.view.hearts_broken

    def _claimed(self, ev: HandClaimed) -> None:
        who = "You claim" if ev.seat == self.you else f"{self.who(ev.seat)} claims"
        self.line(f"{who} the rest, showing {self.style.cards(ev.cards)}")
        if ev.refusal is not None:
            self.line(f"  (refused: {clean(ev.refusal, 200)}; play goes on)")
        else:
            taken = ev.view.points_taken[ev.seat]
            self.line(
                f"  (granted: every card still out goes to the claimer · {points_text(taken)})"
            )

    def _roster(self, ev: SeatedRoster) -> None:
        self.you = ev.you
        self.players = len(ev.players)
        self.names = {p.seat: clean(p.name) for p in ev.players}
        by_seat = {p.seat: p for p in ev.players}
        self.line("")
        self.line(f"Table: {clean(ev.rules_summary, 200)}")
        width = max(len(self.who(s)) for s in by_seat)
        for s in self.clockwise():
            p = by_seat[s]
            tag = "  bot" if p.is_bot else ""
            self.line(f"  {self.who(s):<{width}}  key {clean(p.fingerprint)}{tag}")

    def _trick_taken(self, ev: TrickTaken) -> None:
        s = self.style
        number = len(ev.view.tricks)
        cards = s.cards(c for _, c in ev.cards)
        who = "You take" if ev.winner == self.you else f"{self.who(ev.winner)} takes"
        if ev.points:
            hand_pts = ev.view.points_taken[ev.winner]
            pts = f" · {points_text(ev.points)} ({hand_pts} this hand)"
        else:
            pts = " · no points"
        self.line(f"{who} trick {number}: {cards}{pts}")

    def _hand_scored(self, ev: HandScored) -> None:
        r = ev.result
        self.line("")
        rules = ev.view.rules
        if rules.is_gongzhu:
            self.line(
                self.style.bold(f"── Hand {ev.number} scored · the game ends at −{rules.limit} ──")
            )
            for ln in self.scores(ev.totals, r.points, results=gongzhu_results(rules, ev.totals)):
                self.line(ln)
            return
        target = rules.target
        self.line(self.style.bold(f"── Hand {ev.number} scored · the game ends at {target} ──"))
        if r.moon is not None:
            shooter = "You" if r.moon == self.you else self.who(r.moon)
            self.line(f"{shooter} shot the moon!")
        for ln in self.scores(ev.totals, r.points):
            self.line(ln)

    def _game_over(self, ev: GameOver) -> None:
        res = ev.result
        names = ", ".join(self.name(w) for w in res.winners)
        plural = "Winners" if len(res.winners) > 1 else "Winner"
        hands = f"{res.hands} hand" + ("s" if res.hands != 1 else "")
        cheer = ""
        if self.you in res.winners:
            cheer = " You win!" if len(res.winners) == 1 else " You share the win!"
        self.line("")
        self.line(self.style.bold(f"Game over after {hands}. {plural}: {names}.{cheer}"))
        for ln in self.scores(res.totals, winners=res.winners, results=res.results):
            self.line(ln)
        if res.results:
            self.line("  (result: your total × 3 − the others' totals; above zero wins)")
        self.line(f"Game log: {ev.log_path}")
        self.line(f"Check it yourself: hearts audit {ev.log_path}")

    def _peer_state(self, ev: PeerState) -> str:
        who = self.who(ev.seat)
        if ev.status is PeerStatus.CONNECTED:
            return f"[{who} is connected again]"
        if ev.status is PeerStatus.WAITING:
            return f"[{who} lost the connection; the seat is taken over if not back in time]"
        return f"[{who} has left: the table plays that seat]"
