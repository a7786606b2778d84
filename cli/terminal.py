"""The person at the terminal as a seat's front end: prompts, typed lines, table commands.

One task reads lines for the whole game, so ``scores`` or ``say hi`` work while others play;
``choose`` only waits for the next valid action. A second task notices when the table has been
waiting on someone else for a while and says who, so a quiet screen never looks like a hang.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol

import trio

from hearts_p2p.cards import Card
from hearts_p2p.engine import Action, Expose, HandPhase, PassCards, PlayCard, SeatView
from hearts_p2p.frontend import (
    Aborted,
    CardPlayed,
    CardsExposed,
    Event,
    GameOver,
    HandClaimed,
    HandScored,
    HandStarted,
    PassReceived,
    PeerState,
    SeatedRoster,
    SitAsked,
    TrickTaken,
)

from .commands import COMMAND_WORDS, HELP, Command, InputError, NotYourTurn, parse_line
from .hint import best_action, hint_line
from .render import Screen, points_text

# Once the seats are drawn the table can take a leaver's seat over; before, a leaver ends it.
QUIT_SEATED = "leave the game? the others play on, the table playing your seat [y/N] "
QUIT_UNSEATED = "leave the game? it has not started yet: it ends for everyone [y/N] "
ASK_LINE = (
    "let them sit? y or n (no answer before this hand ends is a no; every seated player must "
    "say yes)"
)


class TableControls(Protocol):
    """What a person can do besides playing: talk, answer a newcomer's ask, and leave."""

    def say(self, text: str) -> None: ...

    def consent(self, newcomer: bytes, yes: bool) -> None: ...

    def quit(self) -> None: ...


class TerminalSeat:
    """A ``FrontEnd`` for a person: renders events to a ``Screen`` and reads a line at a time."""

    def __init__(
        self,
        screen: Screen,
        controls: TableControls,
        waiting_hint: float = 15.0,
        *,
        play_last_card: bool = True,
    ) -> None:
        self.screen = screen
        self.controls = controls
        self.waiting_hint = waiting_hint
        self.play_last_card = play_last_card  # the hand's last card goes without asking
        self._view: SeatView | None = None
        self._choosing: SeatView | None = None
        self._answer: trio.MemorySendChannel[Action] | None = None
        self._confirm_quit = False
        self._asking: bytes | None = None  # a newcomer's key, until this person answers
        self._seated = False
        self._ended = False
        self._last_trick: TrickTaken | None = None
        self._activity = 0
        self._pending: PassCards | None = None  # the pass chosen, shown until Enter sends it
        self._nursery: trio.Nursery | None = None

    # -- FrontEnd ---------------------------------------------------------------------------

    async def choose(self, view: SeatView) -> Action:
        if view.legal == (Expose(()),):
            self.screen.line("You have no card you may expose")
            return view.legal[0]
        self._view = view
        self._activity += 1
        last = view.legal[0] if len(view.hand) == 1 and len(view.legal) == 1 else None
        if self.play_last_card and isinstance(last, PlayCard) and view.phase is HandPhase.PLAYING:
            # As Microsoft Hearts does: nothing to choose, so nothing to type.
            for line in self.screen.turn_lines(view):
                self.screen.line(line)
            self.screen.line(f"you play {self.screen.style.card(last.card)}, your last card")
            return last
        self._choosing = view
        send, receive = trio.open_memory_channel[Action](1)
        self._answer = send
        self._pending = None
        if view.phase is HandPhase.PLAYING:
            for line in self.screen.turn_lines(view):
                self.screen.line(line)
        self._prompt()
        try:
            return await receive.receive()
        finally:
            if self._choosing is not None and not self._confirm_quit:
                self.screen.drop_prompt()
            self._choosing = None
            self._answer = None

    async def notify(self, event: Event) -> None:
        self._activity += 1
        if isinstance(
            event,
            HandStarted
            | PassReceived
            | CardsExposed
            | CardPlayed
            | HandClaimed
            | TrickTaken
            | HandScored,
        ):
            self._view = event.view
        if isinstance(event, TrickTaken):
            self._last_trick = event
        if isinstance(event, SeatedRoster):
            self._seated = True
        if isinstance(event, PeerState) and self._ended:
            return  # peers hanging up after the end is no news
        if isinstance(event, GameOver | Aborted):
            self._ended = True
            self.screen.drop_prompt()  # nothing more will be asked
        self.screen.event(event)
        if isinstance(event, SitAsked) and event.ask and self._view is not None:
            self._asking = event.key
            self.screen.line(ASK_LINE)

    # -- input ------------------------------------------------------------------------------

    def words(self) -> list[str]:
        """What Tab completes on the editor line: the table's commands, and the cards of this
        seat's hand (those it may play, when it is asked to play)."""
        view = self._choosing or self._view
        cards: list[int] = list(view.hand) if view is not None else []
        if self._choosing is not None and self._choosing.phase is HandPhase.PLAYING:
            cards = [a.card for a in self._choosing.legal if isinstance(a, PlayCard)]
        return [*COMMAND_WORDS, *(Card(c).ascii.lower() for c in cards)]

    async def run(self, lines: AsyncIterator[str]) -> None:
        """Read input and watch for long waits until input ends (which leaves the table)."""
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            nursery.start_soon(self._watch_waiting)
            await self.read_input(lines)
            nursery.cancel_scope.cancel()

    async def read_input(self, lines: AsyncIterator[str]) -> None:
        """Handle typed lines until input ends; end of input leaves the table."""
        async for line in lines:
            self.handle_line(line)
        self.screen.typed()
        self.screen.line("input closed: leaving the table")
        self.controls.quit()

    def handle_line(self, line: str) -> None:
        self.screen.typed()
        answer = line.strip().lower()
        if self._asking is not None and answer in ("y", "yes", "n", "no"):
            key, self._asking = self._asking, None
            self.controls.consent(key, answer.startswith("y"))
            self.screen.line("you let them sit" if answer.startswith("y") else "you said no")
            return
        if self._confirm_quit:
            self._confirm_quit = False
            if line.strip().lower() in ("y", "yes"):
                self.screen.line("leaving the table")
                self.controls.quit()
                return
            self.screen.line("staying")
            self._prompt()
            return
        if self._pending is not None and not line.strip():
            self._send(self._pending)
            return
        try:
            parsed = parse_line(line, self._choosing)
        except NotYourTurn:
            self.screen.line(self._not_your_turn())
            return
        except InputError as e:
            self.screen.line(str(e))
            self._prompt()
            return
        if parsed is None:
            self._prompt()
        elif isinstance(parsed, Command):
            self._command(parsed)
        elif isinstance(parsed, PassCards):
            self._pending = parsed
            target = self._choosing.pass_target if self._choosing is not None else None
            to = "" if target is None else f" to {self.screen.who(target)}"
            self.screen.line(f"You will pass {self.screen.style.cards(parsed.cards or ())}{to}")
            self._prompt()
        else:
            if isinstance(parsed, PlayCard) and not line.strip():
                self.screen.line(f"you play {self.screen.style.card(parsed.card)}")
            self._send(parsed)

    def _send(self, action: Action) -> None:
        """Hand the action to the game; a pass once sent can no longer be undone."""
        if self._answer is None:
            return
        if isinstance(action, PassCards):
            self._pending = None
            self.screen.line("waiting for the others to pass")
        self._answer.send_nowait(action)

    def _not_your_turn(self) -> str:
        v = self._view
        if v is None or v.phase is None or v.game_over:
            return "no cards to play yet; type help for commands"
        if v.phase is HandPhase.PASSING:
            return "you have passed; waiting for the others to pass"
        if v.phase is HandPhase.EXPOSE:
            return "you have exposed your cards; waiting for the others"
        if v.phase is HandPhase.PLAYING and v.to_act and v.to_act[0] == v.seat:
            return "your card is on its way to the table"  # chosen, not yet played
        if v.phase is HandPhase.PLAYING and v.to_act:
            return f"not your turn: {self.screen.who(v.to_act[0])} plays next"
        return "not your turn; type help for commands"

    def _command(self, cmd: Command) -> None:
        screen = self.screen
        if cmd.name == "help":
            for line in HELP.splitlines():
                screen.line(line)
        elif cmd.name == "hand":
            if self._view is None or self._view.phase is None:
                screen.line("no cards dealt yet")
            else:
                for line in screen.status(self._choosing or self._view):
                    screen.line(line)
        elif cmd.name == "scores":
            self._scores()
        elif cmd.name == "last":
            self._last()
        elif cmd.name == "undo":
            self._undo()
        elif cmd.name == "hint":
            self._hint()
        elif cmd.name == "say":
            if self._seated:
                self.controls.say(cmd.text)
                screen.line(f"<{screen.name(screen.you)}> {cmd.text}")
            else:
                screen.line("nobody to talk to until the game starts")
        elif cmd.name == "quit":
            self._confirm_quit = True
            screen.prompt(QUIT_SEATED if self._seated else QUIT_UNSEATED)
            return
        self._prompt()

    def _undo(self) -> None:
        v = self._view
        if self._pending is not None:
            self._pending = None
            self.screen.line("choose 3 cards to pass again")
        elif v is not None and v.phase is HandPhase.PASSING and v.passed:
            self.screen.line("your pass is sent; it cannot be undone")
        else:
            self.screen.line("nothing to undo")

    def _hint(self) -> None:
        view = self._choosing
        if view is None:
            self.screen.line(f"no hint: {self._not_your_turn()}")
        elif self._nursery is None:
            self._show_hint(view, *best_action(view))
        else:
            # A search of sampled deals takes a few seconds: say so, and let the table go on.
            self.screen.line("hint: thinking (a few seconds; the table goes on meanwhile)")
            self._nursery.start_soon(self._think, view)

    async def _think(self, view: SeatView) -> None:
        """Search off the game's task, so the table goes on meanwhile; a late answer is dropped."""
        action, deals = await trio.to_thread.run_sync(best_action, view, abandon_on_cancel=True)
        if self._choosing is view:
            self._show_hint(view, action, deals)

    def _show_hint(self, view: SeatView, action: Action, deals: int) -> None:
        self.screen.line(hint_line(view, action, deals, self.screen.style))

    def _scores(self) -> None:
        v = self._view
        if v is None or not v.totals:
            self.screen.line("no scores yet")
            return
        playing = v.phase in (
            HandPhase.PASSING, HandPhase.EXPOSE, HandPhase.PLAYING, HandPhase.MOON_CHOICE
        )  # fmt: skip
        if v.results:
            self.screen.line("Score sheet:")
            rows = self.screen.sheet(v.results, v.totals, v.points_taken if playing else ())
        elif playing:
            self.screen.line(f"Scores before hand {v.hand_number}, and points taken in it so far:")
            rows = self.screen.scores(v.totals, v.points_taken, heading="taken")
        else:
            self.screen.line("Scores:")
            rows = self.screen.scores(v.totals)
        for row in rows:
            self.screen.line(row)

    def _last(self) -> None:
        t = self._last_trick
        if t is None:
            self.screen.line("no trick taken yet")
            return
        screen = self.screen
        plays = ", ".join(f"{screen.who(s)} {screen.style.card(c)}" for s, c in t.cards)
        pts = f", {points_text(t.points)}" if t.points else ""
        number = len(t.view.tricks)
        screen.line(f"Trick {number}: {plays} — taken by {screen.who(t.winner)}{pts}")

    def _prompt(self) -> None:
        if self._pending is not None:
            self.screen.prompt("Enter to send, undo to choose again> ")
        elif self._choosing is not None:
            self.screen.prompt(self.screen.prompt_for(self._choosing))

    # -- waiting ----------------------------------------------------------------------------

    async def _watch_waiting(self) -> None:
        """Say who the table waits for when nothing has happened for ``waiting_hint`` seconds."""
        hinted = -1
        while True:
            seen = self._activity
            await trio.sleep(self.waiting_hint)
            if seen != self._activity or hinted == seen or self._choosing is not None:
                continue
            hint = self._waiting_for()
            if hint:
                hinted = seen
                self.screen.line(hint)

    def _waiting_for(self) -> str | None:
        v = self._view
        if v is None or v.game_over or self._ended:
            return None
        if v.phase is HandPhase.PASSING:
            return "(waiting for the others to pass)"
        if v.phase is HandPhase.EXPOSE:
            return "(waiting for the others to expose)"
        playing = v.phase in (HandPhase.PLAYING, HandPhase.MOON_CHOICE)
        if playing and v.to_act and v.to_act[0] != v.seat:
            return f"(waiting for {self.screen.who(v.to_act[0])})"
        return None
