"""Control frames: the small unsigned msgpack maps peers exchange beside the game's messages.

``sync`` asks a peer for the log entries after the first ``have`` (a peer that reconnects, or
resumes); ``synced`` ends the answer, which is bounded: it says from which entry to ask again
if there are more, and nothing if all of them were sent; ``chat`` is a line of table talk;
``done`` says this peer's game is over and it stops answering; ``watching`` is the host telling
the table who watches it (names the watchers chose: shown, never trusted). None of them is logged or
changes the game, so they need no signature: the connection is already authenticated.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .wire import pack

__all__ = [
    "MAX_CHAT",
    "Chat",
    "Control",
    "Done",
    "Sync",
    "Synced",
    "Watching",
    "encode",
    "parse_control",
]

MAX_CHAT = 200
MAX_WATCHING = 64  # names in one watching frame
MAX_WATCHER_NAME = 32


@dataclass(frozen=True, slots=True)
class Sync:
    have: int  # entries the asking peer holds


@dataclass(frozen=True, slots=True)
class Synced:
    more_from: int | None = None  # the answer stopped short: ask again from this entry


@dataclass(frozen=True, slots=True)
class Chat:
    text: str  # untrusted: a front end cleans it before showing it


@dataclass(frozen=True, slots=True)
class Done:
    pass


@dataclass(frozen=True, slots=True)
class Watching:
    names: tuple[str, ...]  # untrusted, like chat


Control = Sync | Synced | Chat | Done | Watching


def parse_control(frame: dict[str, Any]) -> Control | None:
    """The control a decoded map stands for, or None for anything else."""
    kind = frame.get("t")
    if kind == "chat" and isinstance(text := frame.get("text"), str):
        return Chat(text[:MAX_CHAT])
    if kind == "sync" and isinstance(have := frame.get("have"), int):
        return Sync(max(0, have))
    if kind == "synced":
        more = frame.get("from")
        return Synced(more if isinstance(more, int) and more >= 0 else None)
    if kind == "done":
        return Done()
    if kind == "watching" and isinstance(names := frame.get("names"), list):
        shown = [n[:MAX_WATCHER_NAME] for n in names[:MAX_WATCHING] if isinstance(n, str)]
        return Watching(tuple(shown))
    return None


def encode(control: Control) -> bytes:
    """The frame for ``control``."""
    if isinstance(control, Chat):
        return pack({"t": "chat", "text": control.text[:MAX_CHAT]})
    if isinstance(control, Sync):
        return pack({"t": "sync", "have": control.have})
    if isinstance(control, Synced):
        more = {} if control.more_from is None else {"from": control.more_from}
        return pack({"t": "synced", **more})
    if isinstance(control, Watching):
        return pack({"t": "watching", "names": list(control.names[:MAX_WATCHING])})
    return pack({"t": "done"})
