"""The genesis: the first entry of every game log, naming the table, the rules and the players.

Every player co-signs its hash before anything else happens, so no one can later claim other
rules or another roster. Players are listed in joining order (the host first); seats come later
from the joint coin flip.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from ..deck.params import MAX_PROOF_ROUNDS, PROOF_ROUNDS
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
    # R of every remix proof (SPEC 4.4). Left out of the map at 16, so a table the hearts
    # command opens carries none; a peer refuses fewer than it accepts (GameProtocol).
    proof_rounds: int = PROOF_ROUNDS

    def __post_init__(self) -> None:
        if len(self.players) != self.rules.players:
            raise GenesisError(
                f"the rules are for {self.rules.players} players, the roster has "
                f"{len(self.players)}"
            )
        keys = {p.key for p in self.players}
        if len(keys) != len(self.players) or len({p.dh for p in self.players}) != len(keys):
            raise GenesisError("every player needs distinct keys")
        rounds = self.proof_rounds
        if not isinstance(rounds, int) or isinstance(rounds, bool):
            raise GenesisError("proof_rounds is a number")
        if not 1 <= rounds <= MAX_PROOF_ROUNDS:
            raise GenesisError(f"proof_rounds is 1 to {MAX_PROOF_ROUNDS}, not {rounds}")

    def to_wire(self) -> dict[str, Any]:
        wire = {
            "table": self.table_name,
            "rules": self.rules.to_dict(),
            "players": [p.to_wire() for p in self.players],
            "created": self.created,
        }
        if self.proof_rounds != PROOF_ROUNDS:
            wire["proof_rounds"] = self.proof_rounds
        return wire

    @classmethod
    def from_wire(cls, game_id: bytes, d: object) -> Genesis:
        fields = {"table", "rules", "players", "created"}
        if not isinstance(d, dict) or not fields <= set(d) <= fields | {"proof_rounds"}:
            raise GenesisError("a genesis is a map of table, rules, players, created")
        if d.get("proof_rounds") == PROOF_ROUNDS:
            raise GenesisError("a genesis leaves proof_rounds out at 16")  # one encoding
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
        rounds = d.get("proof_rounds", PROOF_ROUNDS)
        return cls(
            game_id, name, rules, tuple(Player.from_wire(p) for p in players), created, rounds
        )

    def digest(self, envelope: bytes) -> bytes:
        """What players co-sign: the hash of the genesis message's signed envelope (the
        message itself, whatever signature of the host's it came with)."""
        return hashlib.sha256(b"hearts-p2p genesis\0" + envelope).digest()

    def index_of(self, key: bytes) -> int | None:
        for i, p in enumerate(self.players):
            if p.key == key:
                return i
        return None
