"""Turning views and events into terminal lines: Unicode suits, red ♥ ♦, or plain ASCII.

Line-oriented on purpose: it works in any terminal, over ssh, in a log file and in a test.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TextIO

from hearts_p2p.cards import Card, Suit
from hearts_p2p.engine import ChooseMoon, HandPhase, PassCards, PlayCard, SeatView
from hearts_p2p.frontend import (
    Aborted,
    CardPlayed,
    ChatLine,
    Event,
    GameOver,
    HandScored,
    HandStarted,
    Notice,
    PassReceived,
    PeerState,
    SeatedRoster,
    TrickTaken,
)
from hearts_p2p.rules import PassDirection

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069]")
RED = "\x1b[31m"
BOLD = "\x1b[1m"
DIM = "\x1b[2m"
RESET = "\x1b[0m"


def clean(text: str, limit: int = 40) -> str:
    """A name or chat line from the network, stripped of control and direction characters."""
    return _CONTROL.sub("", text)[:limit]


@dataclass
class Style:
    unicode: bool = True
    color: bool = True

    @classmethod
    def for_stream(cls, stream: TextIO) -> Style:
        """Colour only on a terminal and without NO_COLOR; ASCII where the encoding lacks ♠."""
        tty = stream.isatty()
        color = tty and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"
        encoding = getattr(stream, "encoding", None) or "ascii"
        try:
            "♣♦♠♥".encode(encoding)
            uni = os.environ.get("HEARTS_ASCII") is None
        except (UnicodeEncodeError, LookupError):
            uni = False
        return cls(unicode=uni, color=bool(color))

    def suit(self, suit: int) -> str:
        s = Suit(suit)
        text = s.symbol if self.unicode else s.letter
        return f"{RED}{text}{RESET}" if self.color and s.is_red else text

    def card(self, card: int) -> str:
        c = Card(card)
        return c.rank_name + self.suit(c.suit)

    def cards(self, cards: Iterable[int]) -> str:
        return " ".join(self.card(c) for c in cards)

    def bold(self, text: str) -> str:
        return f"{BOLD}{text}{RESET}" if self.color else text

    def dim(self, text: str) -> str:
        return f"{DIM}{text}{RESET}" if self.color else text


class Screen:
    """What the player sees: seat names relative to them, and one method per kind of line."""

    def __init__(self, out: TextIO = sys.stdout, style: Style | None = None) -> None:
        self.out = out
        self.style = style or Style.for_stream(out)
        self.names: dict[int, str] = {}
        self.you = 0
        self.players = 4
        self.last_hand = ""

    def line(self, text: str = "") -> None:
        if text.startswith("Your hand: "):
            self.last_hand = text
        self.out.write(text + "\n")
        self.out.flush()

    def who(self, seat: int) -> str:
        """``Alice (left)``; ``you`` for the player's own seat."""
        if seat == self.you:
            return "you"
        name = self.names.get(seat, f"seat {seat}")
        return f"{name} ({self.direction(seat)})"

    def name(self, seat: int) -> str:
        return "you" if seat == self.you else self.names.get(seat, f"seat {seat}")

    def direction(self, seat: int) -> str:
        k = (seat - self.you) % self.players
        if k == 1:
            return "left"
        if k == self.players - 1:
            return "right"
        if self.players % 2 == 0 and k == self.players // 2:
            return "across"
        return f"{k} to your left"

    # -- views -----------------------------------------------------------------------------

    def hand(self, view: SeatView) -> str:
        """Your hand grouped by suit; the cards you may play now marked."""
        legal = {a.card for a in view.legal if isinstance(a, PlayCard)}
        groups = []
        for suit in (Suit.CLUBS, Suit.DIAMONDS, Suit.SPADES, Suit.HEARTS):
            cards = [c for c in view.hand if c.suit == suit]
            if not cards:
                continue
            shown = []
            for c in cards:
                text = c.rank_name
                if legal and c in legal:
                    text = self.style.bold(f"[{text}]" if not self.style.color else text)
                elif legal:
                    text = self.style.dim(text)
                shown.append(text)
            groups.append(self.style.suit(suit) + " " + " ".join(shown))
        return "   ".join(groups) if groups else "(no cards)"

    def status(self, view: SeatView, *, again: bool = True) -> list[str]:
        """Hand, trick and turn; ``again=False`` leaves out a hand line just shown."""
        hand = f"Your hand: {self.hand(view)}"
        lines = [hand] if again or hand != self.last_hand else []
        if view.trick is not None:
            plays = ", ".join(f"{self.who(s)} {self.style.card(c)}" for s, c in view.trick.plays)
            lines.append(f"Trick {len(view.tricks) + 1}: {plays}")
        elif view.phase is HandPhase.PLAYING:
            lines.append(f"Trick {len(view.tricks) + 1}: (empty)")
        broken = "hearts broken" if view.hearts_broken else "hearts not broken"
        if view.phase is HandPhase.PLAYING:
            turn = "your turn" if view.my_turn else _turn_of(self, view.to_act)
            lines.append(f"{turn} · {broken}")
        return lines

    def prompt_for(self, view: SeatView) -> str:
        if view.phase is HandPhase.PASSING:
            return f"pass 3 cards {self._pass_words(view)}> "
        if view.phase is HandPhase.MOON_CHOICE:
            return "you shot the moon! add to others (a) or subtract from you (s)> "
        legal = [a.card for a in view.legal if isinstance(a, PlayCard)]
        return f"play [{self.style.cards(legal)}]> "

    def _pass_words(self, view: SeatView) -> str:
        if view.pass_target is None:
            return ""
        return f"to {self.who(view.pass_target)} "

    def scores(self, totals: Sequence[int], last: Sequence[int] | None = None) -> list[str]:
        width = max(len(self.names.get(s, "")) for s in range(len(totals))) + 6
        lines = []
        for s, t in enumerate(totals):
            name = self.name(s)
            extra = f"  (+{last[s]})" if last is not None and last[s] >= 0 else ""
            if last is not None and last[s] < 0:
                extra = f"  ({last[s]})"
            lines.append(f"  {name:<{width}} {t:>4}{extra}")
        return lines

    # -- events ----------------------------------------------------------------------------

    def event(self, ev: Event) -> None:
        s = self.style
        if isinstance(ev, SeatedRoster):
            self.you = ev.you
            self.players = len(ev.players)
            self.names = {p.seat: clean(p.name) for p in ev.players}
            self.line(f"Table: {ev.rules_summary}")
            for p in ev.players:
                tag = " (bot)" if p.is_bot else ""
                self.line(f"  seat {p.seat}: {self.who(p.seat):<24} key {p.fingerprint}{tag}")
        elif isinstance(ev, HandStarted):
            v = ev.view
            words = _pass_phrase(v.pass_direction)
            dealer = "you" if v.dealer == self.you else self.names.get(v.dealer, "?")
            self.line("")
            self.line(s.bold(f"── Hand {v.hand_number} · {words} · dealer {dealer} ──"))
            self.line(f"Your hand: {self.hand(v)}")
        elif isinstance(ev, PassReceived):
            self.line(f"Received from {self.who(ev.source)}: {s.cards(ev.cards)}")
            self.line(f"Your hand: {self.hand(ev.view)}")
        elif isinstance(ev, CardPlayed):
            if ev.seat != self.you:
                self.line(f"  {self.who(ev.seat)} plays {s.card(ev.card)}")
        elif isinstance(ev, TrickTaken):
            cards = " ".join(s.card(c) for _, c in ev.cards)
            pts = f", {ev.points} point{'s' if abs(ev.points) != 1 else ''}" if ev.points else ""
            who = "You take" if ev.winner == self.you else f"{self.who(ev.winner)} takes"
            self.line(f"{who} the trick: {cards}{pts}")
        elif isinstance(ev, HandScored):
            r = ev.result
            self.line(s.bold(f"── Hand {ev.number} scored ──"))
            if r.moon is not None:
                shooter = "You" if r.moon == self.you else self.who(r.moon)
                self.line(f"{shooter} shot the moon!")
            for ln in self.scores(ev.totals, r.points):
                self.line(ln)
        elif isinstance(ev, GameOver):
            names = ", ".join(
                "you" if w == self.you else self.names.get(w, f"seat {w}")
                for w in ev.result.winners
            )
            self.line("")
            self.line(s.bold(f"Game over after {ev.result.hands} hands. Winner: {names}"))
            for ln in self.scores(ev.result.totals):
                self.line(ln)
            self.line(f"Game log: {ev.log_path}")
            self.line(f"Final hash: {ev.final_hash}")
            self.line(f"Check it yourself: hearts audit {ev.log_path}")
        elif isinstance(ev, Aborted):
            blame = f" — blamed: {self.who(ev.culprit)}" if ev.culprit is not None else ""
            self.line(s.bold(f"Game aborted: {clean(ev.reason, 200)}{blame}"))
            self.line(f"Game log: {ev.log_path}  (hearts audit {ev.log_path})")
        elif isinstance(ev, PeerState):
            self.line(f"[{self.who(ev.seat)} {ev.status.value}]")
        elif isinstance(ev, ChatLine):
            self.line(f"<{self.names.get(ev.seat, ev.seat)}> {clean(ev.text, 200)}")
        elif isinstance(ev, Notice):
            self.line(ev.text)


def _turn_of(screen: Screen, to_act: Sequence[int]) -> str:
    if not to_act:
        return "waiting"
    if to_act[0] == screen.you:
        return "your turn"
    return f"{screen.who(to_act[0])}'s turn"


def _pass_phrase(direction: PassDirection) -> str:
    return "no pass" if direction is PassDirection.NONE else f"pass {direction.value}"


def describe_action(style: Style, action: PassCards | PlayCard | ChooseMoon) -> str:
    if isinstance(action, PlayCard):
        return style.card(action.card)
    if isinstance(action, PassCards):
        return style.cards(action.cards or ())
    return "others +" if action.add_to_others else "you −"
