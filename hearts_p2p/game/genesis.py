"""The genesis: the first entry of every game log, naming the table, the rules and the players.

Every player co-signs its hash before anything else happens, so no one can later claim other
rules or another roster. Players are listed in joining order (the host first); seats come later
from the joint coin flip.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from ..identity import PUBLIC_KEY_BYTES, fingerprint
from ..rules import Rules, RulesError

__all__ = ["Genesis", "GenesisError", "Player"]

MAX_NAME = 32


class GenesisError(ValueError):
    """A genesis body that is malformed or inconsistent."""


@dataclass(frozen=True, slots=True)
class Player:
    name: str
    key: bytes  # Ed25519 identity: signs every message
    dh: bytes  # X25519 for this game: receives passed cards' keys
    bot: bool

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.key)

    def to_wire(self) -> dict[str, Any]:
        return {"name": self.name, "key": self.key, "dh": self.dh, "bot": self.bot}

    @classmethod
    def from_wire(cls, d: object) -> Player:
        if not isinstance(d, dict) or set(d) != {"name", "key", "dh", "bot"}:
            raise GenesisError("a player is a map of name, key, dh, bot")
        name, key, dh, bot = d["name"], d["key"], d["dh"], d["bot"]
        if not isinstance(name, str) or not 0 < len(name) <= MAX_NAME:
            raise GenesisError(f"a player name is 1 to {MAX_NAME} characters")
        for label, v in (("key", key), ("dh", dh)):
            if not isinstance(v, bytes) or len(v) != PUBLIC_KEY_BYTES:
                raise GenesisError(f"a player's {label} is {PUBLIC_KEY_BYTES} bytes")
        if not isinstance(bot, bool):
            raise GenesisError("a player's bot flag is a boolean")
        return cls(name, key, dh, bot)


@dataclass(frozen=True, slots=True)
class Genesis:
    game_id: bytes
    table_name: str
    rules: Rules
    players: tuple[Player, ...]
    created: int

    def __post_init__(self) -> None:
        if len(self.players) != self.rules.players:
            raise GenesisError(
                f"the rules are for {self.rules.players} players, the roster has "
                f"{len(self.players)}"
            )
        keys = {p.key for p in self.players}
        if len(keys) != len(self.players) or len({p.dh for p in self.players}) != len(keys):
            raise GenesisError("every player needs distinct keys")

    def to_wire(self) -> dict[str, Any]:
        return {
            "table": self.table_name,
            "rules": self.rules.to_dict(),
            "players": [p.to_wire() for p in self.players],
            "created": self.created,
        }

    @classmethod
    def from_wire(cls, game_id: bytes, d: object) -> Genesis:
        if not isinstance(d, dict) or set(d) != {"table", "rules", "players", "created"}:
            raise GenesisError("a genesis is a map of table, rules, players, created")
        name, created, players = d["table"], d["created"], d["players"]
        if not isinstance(name, str) or not 0 < len(name) <= MAX_NAME:
            raise GenesisError(f"a table name is 1 to {MAX_NAME} characters")
        if not isinstance(created, int) or isinstance(created, bool) or created < 0:
            raise GenesisError("created is a time in seconds")
        if not isinstance(players, list):
            raise GenesisError("players is a list")
        try:
            rules = Rules.from_dict(d["rules"])
        except (RulesError, TypeError) as e:
            raise GenesisError(f"bad rules: {e}") from None
        return cls(game_id, name, rules, tuple(Player.from_wire(p) for p in players), created)

    def digest(self, envelope: bytes) -> bytes:
        """What players co-sign: the hash of the genesis message's signed envelope (the
        message itself, whatever signature of the host's it came with)."""
        return hashlib.sha256(b"hearts-p2p genesis\0" + envelope).digest()

    def index_of(self, key: bytes) -> int | None:
        for i, p in enumerate(self.players):
            if p.key == key:
                return i
        return None
