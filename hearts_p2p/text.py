"""Text from other peers or from a log, made safe to show on a terminal.

Names, chat lines, table names, rules and reasons come from the network or from a file anyone
could have written. A control or escape character in them could move the cursor, clear or
recolour the screen; a direction override (U+202E …) could reorder a line, so a peer could forge
what others see. Every command that prints such text passes it through here first.
"""

from __future__ import annotations

import json
import unicodedata

__all__ = ["clean", "escaped", "json_escaped", "quoted"]

# Control (C0, DEL, C1), format (bidi marks, embeddings, overrides and isolates, zero-width and
# other invisible characters), surrogates, private use, unassigned, and line/paragraph separators.
_UNSAFE = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def _unsafe(c: str) -> bool:
    return unicodedata.category(c) in _UNSAFE


def clean(text: str, limit: int = 40) -> str:
    """``text`` without any character that could drive the terminal, cut to ``limit`` characters."""
    return "".join(c for c in text if not _unsafe(c))[:limit]


def escaped(text: str) -> str:
    """``text`` with every character that could drive the terminal, or break a line (NEL, the
    line and paragraph separators), written as its Python escape: a message that repeats what a
    user typed stays one line and shows what was typed."""
    return "".join(c.encode("unicode_escape").decode("ascii") if _unsafe(c) else c for c in text)


def quoted(name: str, limit: int = 40) -> str:
    """A table name as every command shows it: cleaned, in double quotes whatever it holds."""
    return f'"{clean(name, limit)}"'


def json_escaped(document: str) -> str:
    """A document from ``json.dumps`` with every unsafe character written as a ``\\u`` escape.

    The data is unchanged for a program that parses it, yet printing the document on a terminal
    shows the escapes instead of obeying them. ``json.dumps`` already escapes C0 characters in
    strings, so the C0 characters left (newlines of the indentation) are layout and stay.
    """
    return "".join(json.dumps(c)[1:-1] if c >= "\x7f" and _unsafe(c) else c for c in document)
