"""The line a person types on.

On a terminal it is an editor line (prompt_toolkit) kept below the scrolling table: arrows and
the usual Emacs keys edit it, Up and Down walk this game's lines and earlier games' (a history
file in the data folder), and Tab completes the cards one may play and the table's commands.
Elsewhere (a pipe, a script, a test, ``TERM=dumb``) it is plain lines from standard input.

prompt_toolkit runs its own event loop, so the line runs in a thread of its own beside trio,
asking line after line and handing each to the game through a channel. Standard output and
error, meanwhile, are a stream (``_Above``) whose text the line's loop prints above the line, in
the order it was written and in order with the prompt's own changes.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import trio

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.completion import Completer
    from prompt_toolkit.formatted_text import AnyFormattedText

__all__ = [
    "HISTORY_FILE",
    "PLAIN_ENV",
    "EditedLines",
    "completions",
    "edited",
    "plain_lines",
    "trim_history",
]

HISTORY_FILE = "history"
PLAIN_ENV = "HEARTS_PLAIN_INPUT"  # set (to anything but 0): plain lines even on a terminal
# The history file is cut back to its newest part once it passes this size: it is a
# convenience, and must not grow for ever.
MAX_HISTORY_BYTES = 64 * 1024
MAX_TYPED_AHEAD = 16  # lines typed before the game has taken the last ones
# How long closing waits for the editor's thread to give the terminal back.
CLOSE_WAIT = 2.0


def edited(stdin: TextIO, stdout: TextIO) -> bool:
    """Whether the person types on an editor line: both ends are a terminal that can draw one,
    and the person has not asked for plain input."""
    if os.environ.get(PLAIN_ENV, "0") not in ("", "0"):
        return False
    if os.environ.get("TERM") == "dumb":
        return False
    try:
        return stdin.isatty() and stdout.isatty()
    except (AttributeError, ValueError):
        return False  # a closed or replaced stream


async def plain_lines() -> AsyncIterator[str]:
    """Lines typed on standard input; ends at end of file (Ctrl-D)."""
    while True:
        line = await trio.to_thread.run_sync(sys.stdin.readline, abandon_on_cancel=True)
        if not line:
            return
        yield line


def trim_history(path: Path, limit: int = MAX_HISTORY_BYTES) -> None:
    """Keep the newest part of a history file that passed ``limit`` bytes, cut at an entry's
    start (prompt_toolkit's file begins each entry with a blank line and a ``#`` comment)."""
    try:
        if path.stat().st_size <= limit:
            return
        data = path.read_bytes()[-limit // 2 :]
        start = data.find(b"\n\n#")
        path.write_bytes(data[start + 1 :] if start >= 0 else b"")
    except OSError:
        return  # no history is no harm


def completions(words: Callable[[], Iterable[str]]) -> Completer:
    """Tab's completer: the word before the cursor, against ``words`` as they are now."""
    from prompt_toolkit.completion import WordCompleter

    return WordCompleter(lambda: sorted(set(words())), ignore_case=True)


class EditedLines:
    """An editor line in a worker thread: ``show`` sets what it asks, ``lines`` yields what is
    typed, and Ctrl-C on it is the same as Ctrl-C anywhere else (SIGINT, which the game takes
    as leaving)."""

    def __init__(self, history: Path | None, words: Callable[[], Iterable[str]]) -> None:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import FileHistory, InMemoryHistory

        if history is not None:
            trim_history(history)
        kept = FileHistory(str(history)) if history is not None else InMemoryHistory()
        completer = completions(words)
        self._session: PromptSession[str] = PromptSession(
            history=kept, completer=completer, complete_while_typing=False
        )
        self._asked = ""
        self._lock = threading.Lock()
        self._closed = False
        self._done = threading.Event()  # no line is being read
        self._done.set()

    def show(self, text: str) -> None:
        """Ask ``text`` on the line (empty: ask nothing; the line still takes commands), after
        everything printed before it."""

        def change() -> None:
            self._asked = text

        self._in_order(change)

    def _in_order(self, act: Callable[[], None]) -> None:
        """Run ``act`` on the editor's loop, after what was posted before it, then draw the
        line again; at once while no line is open."""
        app = self._session.app
        loop = getattr(app, "loop", None)
        if not app.is_running or loop is None:
            act()
            return

        def run() -> None:
            if not app.is_running:
                act()
                return
            app.renderer.erase()  # the line off the screen, the cursor where it began
            act()
            app.invalidate()  # and drawn again below what was printed

        loop.call_soon_threadsafe(run)

    def _message(self) -> AnyFormattedText:
        from prompt_toolkit.formatted_text import ANSI

        return ANSI(self._asked)

    def _read(self) -> str | None:
        """One line, in the worker thread; None at end of input. Ctrl-C raises SIGINT in the
        process, so the game's one handler decides what it means."""
        while True:
            with self._lock:
                if self._closed:
                    return None
            try:
                return self._session.prompt(self._message) + "\n"
            except EOFError:
                return None
            except KeyboardInterrupt:
                signal.raise_signal(signal.SIGINT)

    async def lines(self) -> AsyncIterator[str]:
        """Typed lines until end of input (Ctrl-D) or until the reading task is cancelled,
        which closes the line (``close`` then waits for the terminal to be given back).

        One thread asks line after line, so the next is open as soon as Enter is pressed:
        keys typed ahead go to the line, not to the terminal's own echo."""
        send, receive = trio.open_memory_channel[str](MAX_TYPED_AHEAD)
        token = trio.lowlevel.current_trio_token()

        # Raised into the thread once the game has stopped reading: no more lines are wanted.
        over = (trio.RunFinishedError, trio.Cancelled, trio.BrokenResourceError)

        def pump() -> None:
            try:
                with contextlib.suppress(*over):
                    while (line := self._read()) is not None:
                        trio.from_thread.run(send.send, line, trio_token=token)
            finally:
                self._done.set()
                with contextlib.suppress(trio.RunFinishedError):
                    trio.from_thread.run_sync(send.close, trio_token=token)

        self._done.clear()
        threading.Thread(target=pump, name="hearts-line", daemon=True).start()
        try:
            async with receive:
                async for line in receive:
                    yield line
        finally:
            self._stop()

    def _stop(self) -> None:
        with self._lock:
            self._closed = True
        app = self._session.app
        loop = getattr(app, "loop", None)
        if app.is_running and loop is not None:

            def leave() -> None:
                if app.is_running:
                    app.exit(exception=EOFError())

            loop.call_soon_threadsafe(leave)

    def close(self) -> None:
        """Close the line and wait (briefly) until its thread has given the terminal back. A
        line that opened just as it was told to close is told again, so the terminal is never
        left in the line's raw mode."""
        deadline = time.monotonic() + CLOSE_WAIT
        self._stop()
        while not self._done.wait(0.05) and time.monotonic() < deadline:
            self._stop()

    def __enter__(self) -> EditedLines:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def output(self) -> Iterator[TextIO]:
        """Standard output and error, printed above the line while it is open, in order with
        the line's own changes (``show``)."""
        real_out, real_err = sys.stdout, sys.stderr
        above = _Above(real_out, self._in_order)
        sys.stdout = sys.stderr = above
        try:
            yield above
        finally:
            above.flush()
            sys.stdout, sys.stderr = real_out, real_err


class _Above(io.TextIOBase, TextIO):
    """A stream whose flushed text the editor line prints above itself."""

    def __init__(self, real: TextIO, post: Callable[[Callable[[], None]], None]) -> None:
        self._real = real
        self._post = post
        self._held: list[str] = []

    def write(self, text: str) -> int:
        self._held.append(text)
        if "\n" in text:
            self.flush()
        return len(text)

    def flush(self) -> None:
        text, self._held = "".join(self._held), []
        if not text:
            return

        def show() -> None:
            self._real.write(text)
            self._real.flush()

        self._post(show)

    def isatty(self) -> bool:
        return self._real.isatty()

    def fileno(self) -> int:
        return self._real.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._real.encoding
