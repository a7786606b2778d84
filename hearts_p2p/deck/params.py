"""What every seat must agree on before a hand starts, and who is dealt each position."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from ..cards import cards_of
from ..rules import Rules, deck_mask, position_owner

__all__ = [
    "MAX_GAME_ID",
    "MAX_PROOF_ROUNDS",
    "PASS_COUNT",
    "PROOF_ROUNDS",
    "HandParams",
    "position_owner",
]

PASS_COUNT = 3
PROOF_ROUNDS = 16  # rounds of each remix proof: a false remix passes with odds 2^-16 (SPEC 4.4)
MAX_PROOF_ROUNDS = 64  # what a remix message may carry (messages.py)
MAX_GAME_ID = 64


@dataclass(frozen=True)
class HandParams:
    """The public parameters of one hand.

    ``pass_targets[s]`` is the seat ``s`` passes to (all None in a no-pass hand) and
    ``pass_keys[s]`` the X25519 public key seat ``s`` announced for this game, used to seal the
    keys of cards passed to it. ``proof_rounds`` is R of every remix proof: the game's genesis
    sets it (SPEC 6.4), 16 unless it says otherwise.
    """

    game_id: bytes
    hand_number: int
    players: int
    pass_targets: tuple[int | None, ...]
    pass_keys: tuple[bytes, ...]
    proof_rounds: int = PROOF_ROUNDS

    @classmethod
    def for_rules(
        cls,
        rules: Rules,
        game_id: bytes,
        hand_number: int,
        pass_keys: Sequence[bytes],
        proof_rounds: int = PROOF_ROUNDS,
    ) -> HandParams:
        targets = tuple(rules.pass_target(s, hand_number) for s in range(rules.players))
        return cls(
            bytes(game_id), hand_number, rules.players, targets, tuple(pass_keys), proof_rounds
        )

    def __post_init__(self) -> None:
        if not isinstance(self.game_id, bytes) or not 1 <= len(self.game_id) <= MAX_GAME_ID:
            raise ValueError(f"the game id must be 1..{MAX_GAME_ID} bytes")
        if not 1 <= self.hand_number < 2**32:
            raise ValueError(f"bad hand number {self.hand_number}")
        if self.players not in (3, 4, 5, 6):
            raise ValueError(f"the deck is for 3 to 6 players, not {self.players}")
        if len(self.pass_targets) != self.players or len(self.pass_keys) != self.players:
            raise ValueError("one pass target and one pass key per seat")
        if any(len(k) != 32 for k in self.pass_keys):
            raise ValueError("X25519 public keys are 32 bytes")
        if not 1 <= self.proof_rounds <= MAX_PROOF_ROUNDS:
            raise ValueError(f"a remix proof has 1 to {MAX_PROOF_ROUNDS} rounds")
        if any(t is not None for t in self.pass_targets):
            if sorted(t for t in self.pass_targets if t is not None) != list(range(self.players)):
                raise ValueError("pass targets must be a permutation of the seats")
            if any(t == s for s, t in enumerate(self.pass_targets)):
                raise ValueError("a seat cannot pass to itself")

    @property
    def dealer(self) -> int:
        return (self.hand_number - 1) % self.players

    @property
    def passing(self) -> bool:
        return self.pass_targets[0] is not None

    @cached_property
    def cards(self) -> tuple[int, ...]:
        """The card of each entry of the initial deck: this hand's cards in id order."""
        return tuple(int(c) for c in cards_of(deck_mask(self.players)))

    @property
    def size(self) -> int:
        return len(self.cards)

    @cached_property
    def dealt_to(self) -> tuple[int, ...]:
        """The seat dealt each position."""
        return tuple(position_owner(i, self.players, self.dealer) for i in range(self.size))

    def positions_of(self, seat: int) -> tuple[int, ...]:
        return tuple(i for i, s in enumerate(self.dealt_to) if s == seat)

    def passer_to(self, seat: int) -> int | None:
        """The seat that passes to ``seat``, or None in a no-pass hand."""
        for s, t in enumerate(self.pass_targets):
            if t == seat:
                return s
        return None

    @cached_property
    def context(self) -> bytes:
        """``len(game id) ‖ game id ‖ hand number (4 bytes)``: binds every hash to this hand."""
        return bytes((len(self.game_id),)) + self.game_id + self.hand_number.to_bytes(4, "big")
