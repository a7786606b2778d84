"""The person at the terminal as a seat's front end: prompts, typed lines, table commands.

One task reads lines for the whole game, so ``scores`` or ``say hi`` work while others play;
``choose`` only waits for the next valid action.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from typing import Protocol

import trio

from hearts_p2p.engine import Action, SeatView
from hearts_p2p.frontend import (
    CardPlayed,
    Event,
    HandScored,
    HandStarted,
    PassReceived,
    TrickTaken,
)

from .commands import HELP, Command, InputError, parse_line
from .render import Screen


class TableControls(Protocol):
    """What a person can do besides playing: talk, and leave."""

    def say(self, text: str) -> None: ...

    def quit(self) -> None: ...


async def stdin_lines() -> AsyncIterator[str]:
    """Lines typed on standard input; ends at end of file (Ctrl-D)."""
    while True:
        line = await trio.to_thread.run_sync(sys.stdin.readline, abandon_on_cancel=True)
        if not line:
            return
        yield line


class TerminalSeat:
    """A ``FrontEnd`` for a person: renders events to a ``Screen`` and reads a line at a time."""

    def __init__(self, screen: Screen, controls: TableControls) -> None:
        self.screen = screen
        self.controls = controls
        self._view: SeatView | None = None
        self._choosing: SeatView | None = None
        self._answer: trio.MemorySendChannel[Action] | None = None
        self._confirm_quit = False
        self._last_trick: TrickTaken | None = None

    async def choose(self, view: SeatView) -> Action:
        self._view = view
        self._choosing = view
        send, receive = trio.open_memory_channel[Action](1)
        self._answer = send
        for line in self.screen.status(view, again=False):
            self.screen.line(line)
        self._prompt()
        try:
            return await receive.receive()
        finally:
            self._choosing = None
            self._answer = None

    async def notify(self, event: Event) -> None:
        if isinstance(event, HandStarted | PassReceived | CardPlayed | TrickTaken | HandScored):
            self._view = event.view
        if isinstance(event, TrickTaken):
            self._last_trick = event
        self.screen.event(event)

    async def read_input(self, lines: AsyncIterator[str]) -> None:
        """Handle typed lines until input ends; end of input leaves the table."""
        async for line in lines:
            self.handle_line(line)
        self.screen.line("input closed: leaving the table")
        self.controls.quit()

    def handle_line(self, line: str) -> None:
        if self._confirm_quit:
            self._confirm_quit = False
            if line.strip().lower() in ("y", "yes"):
                self.controls.quit()
                return
            self.screen.line("staying")
            self._prompt()
            return
        try:
            parsed = parse_line(line, self._choosing)
        except InputError as e:
            self.screen.line(str(e))
            self._prompt()
            return
        if parsed is None:
            self._prompt()
        elif isinstance(parsed, Command):
            self._command(parsed)
        elif self._answer is not None:
            self._answer.send_nowait(parsed)

    def _command(self, cmd: Command) -> None:
        screen = self.screen
        if cmd.name == "help":
            screen.line(HELP)
        elif cmd.name == "hand":
            if self._view is None:
                screen.line("no cards dealt yet")
            else:
                for line in screen.status(self._view):
                    screen.line(line)
        elif cmd.name == "scores":
            totals = self._view.totals if self._view else ()
            for line in screen.scores(totals) if totals else ["no scores yet"]:
                screen.line(line)
        elif cmd.name == "last":
            t = self._last_trick
            if t is None:
                screen.line("no trick taken yet")
            else:
                plays = ", ".join(f"{screen.who(s)} {screen.style.card(c)}" for s, c in t.cards)
                screen.line(f"last trick: {plays} — taken by {screen.who(t.winner)}")
        elif cmd.name == "say":
            self.controls.say(cmd.text)
        elif cmd.name == "quit":
            self._confirm_quit = True
            screen.out.write("leave the game? your seat becomes absent [y/N] ")
            screen.out.flush()
            return
        self._prompt()

    def _prompt(self) -> None:
        if self._choosing is not None:
            self.screen.out.write(self.screen.prompt_for(self._choosing))
            self.screen.out.flush()
