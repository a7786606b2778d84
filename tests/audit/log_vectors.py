"""Build the game-log vectors of protocol/vectors/log/ (run this file to rewrite them).

Everything is deterministic: fixed identities and secrets, a first-in-first-out network, and
every seat taking its first legal action, so the same code writes the same bytes. The tampered
copies are made from the valid log; where a change would break a signature or the hash chain
that is not the point of the vector, the entries are re-signed with the players' own keys (as
players colluding to rewrite history could), so the audit has to find the change itself.

``expected.json`` holds what ``hearts audit`` must report for each file; the tests compare the
whole report, problem by problem.
"""

from __future__ import annotations

import contextlib
import json
import struct
import zlib
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from hearts_p2p.audit import audit_log
from hearts_p2p.cards import CARDS
from hearts_p2p.chain import GENESIS_HEAD, chain
from hearts_p2p.engine.hand import HandState
from hearts_p2p.game import GameProtocol, Genesis, Player
from hearts_p2p.identity import Identity
from hearts_p2p.log import MAGIC
from hearts_p2p.rules import Rules
from hearts_p2p.wire import Envelope, SignedMessage, decode_frame, encode_message, pack

DIR = Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "log"
GAME_ID = bytes.fromhex("6865617274732d7032702d766563746f")  # "hearts-p2p-vecto"
NAMES = ("ann", "bob", "cat", "dan")
RULES = Rules(players=4, target=10)

# A seat's choice hook: given the player index and its protocol, act and return True, or
# return False to let it take its first legal action.
Chooser = Callable[[int, GameProtocol], bool]


def identities() -> list[Identity]:
    return [Identity.from_seed(bytes([0xA0 + i]) * 32) for i in range(len(NAMES))]


def secret(player: int) -> bytes:
    return bytes([0xB0 + player]) * 32


def play(cheat: Chooser | None = None) -> list[GameProtocol]:
    """A whole game among four in-memory peers; returns every peer's protocol."""
    ids = identities()
    protos = [
        GameProtocol(GAME_ID, ids[0].public_key, ids[i], secret=secret(i))
        for i in range(len(NAMES))
    ]
    roster = tuple(
        Player(name, ids[i].public_key, protos[i].dh_public, bot=True)
        for i, name in enumerate(NAMES)
    )
    protos[0].propose(Genesis(GAME_ID, "vector table", RULES, roster, 0))
    queue: deque[tuple[int, SignedMessage]] = deque()
    while True:
        for i, p in enumerate(protos):
            out, _, _ = p.drain()
            queue += [(j, m) for m in out for j in range(len(protos)) if j != i]
        if queue:
            j, m = queue.popleft()
            protos[j].receive(m)
            continue
        acted = False
        for i, p in enumerate(protos):
            if cheat is not None and cheat(i, p):
                acted = True
                continue
            view = p.choice_needed()
            if view is not None:
                p.submit(view.legal[0])
                acted = True
        if not acted:
            return protos


# -- cheating seats -----------------------------------------------------------------------------


def renege(cheater: int) -> Chooser:
    """``cheater`` once discards off-suit while holding a dealt card of the led suit.

    It sends its open through the protocol's internals, telling its own engine to check the play
    as a stranger's would: no one can see the renege then. Every peer sees it when the seat
    later plays the suit it showed out of (or at the end-of-hand replay). A led-suit card it was
    passed would let the passer refuse the play at once, so only dealt ones count.
    """
    done: list[bool] = []

    def choose(player: int, p: GameProtocol) -> bool:
        view = p.choice_needed()
        if player != cheater or done or view is None or view.trick is None:
            return False
        seat = p.my_seat
        assert seat is not None and p.game is not None and p.flow is not None
        hand = p.game.hand
        assert hand is not None
        if not hand.tricks or not hand.trick:
            return False
        led = hand.trick[0] // 13
        held = [int(c) for c in view.hand]
        received = set(p.flow.received_cards())
        follow = [c for c in held if c // 13 == led]
        off = [c for c in held if c // 13 != led]
        if not follow or not off or any(c in received for c in follow):
            return False
        hand.known &= ~(1 << seat)
        try:
            p._send(p.step.name, p.flow.make_open(min(off)))
        finally:
            hand.known |= 1 << seat
        done.append(True)
        return True

    return choose


# -- log files and entries ----------------------------------------------------------------------


def log_bytes(entries: list[bytes]) -> bytes:
    records = [struct.pack(">II", len(e), zlib.crc32(e)) + e for e in entries]
    return MAGIC + b"".join(records)


def steps(entries: list[bytes]) -> list[tuple[int, str]]:
    out = []
    for raw in entries:
        env = decode_frame(raw).envelope
        out.append((env.hand, env.step))
    return out


def resign(raw: bytes, signer: Identity, **changes: Any) -> bytes:
    """``raw`` with envelope fields replaced, signed by ``signer``."""
    env = decode_frame(raw).envelope
    fields = {name: getattr(env, name) for name in Envelope.__slots__}
    fields.update(changes)
    return encode_message(signer, Envelope(**fields)).raw


def rechain(entries: list[bytes], start: int) -> list[bytes]:
    """Entries from ``start`` on re-signed by their senders with ``prev`` fixed up.

    ``prev`` is the chain head before the first entry of the sender's step, so a rewritten entry
    leaves a log whose chain and signatures all hold.
    """
    ids = identities()
    out = list(entries[:start])
    at = steps(entries)
    head, step_head = GENESIS_HEAD, GENESIS_HEAD
    for i, raw in enumerate(entries):
        if i == 0 or at[i] != at[i - 1] or at[i][1] == "abort":
            step_head = head
        if i >= start:
            sender = decode_frame(raw).envelope.sender
            raw = resign(raw, ids[sender], prev=step_head)
            out.append(raw)
        head = chain(head, out[i])
    return out


def find(entries: list[bytes], step: str, nth: int = 0) -> int:
    hits = [i for i, (_, name) in enumerate(steps(entries)) if name == step]
    return hits[nth]


def with_body(raw: bytes, signer: Identity, **changes: Any) -> bytes:
    body = dict(decode_frame(raw).envelope.body)
    body.update(changes)
    return resign(raw, signer, body=body)


# -- the vectors --------------------------------------------------------------------------------


def vectors() -> dict[str, tuple[str, bytes]]:
    """File name -> (what it is, file bytes)."""
    ids = identities()
    honest = play()[0].entries
    out: dict[str, tuple[str, bytes]] = {
        "valid.log": ("a complete one-hand game to 10 points, four players", log_bytes(honest))
    }

    i = find(honest, "play.20")
    body = decode_frame(honest[i]).envelope.body
    sender = decode_frame(honest[i]).envelope.sender
    other = decode_frame(honest[find(honest, "play.21")]).envelope.body["card"]
    changed = list(honest)
    changed[i] = with_body(honest[i], ids[sender], card=other)
    out["changed_card.log"] = (
        f"{NAMES[sender]}'s play.20 (trick 6) shows {CARDS[other]} (the next card played) "
        f"instead of {CARDS[body['card']]}; re-signed by {NAMES[sender]}, and the rest of the log "
        "re-chained and re-signed by its senders",
        log_bytes(rechain(changed, i)),
    )

    a, b = find(honest, "play.30"), find(honest, "play.31")
    swapped = list(honest)
    swapped[a], swapped[b] = swapped[b], swapped[a]
    out["reordered.log"] = ("the entries of play.30 and play.31 swapped", log_bytes(swapped))

    i = find(honest, "play.12")
    env_bytes, sig = decode_frame(honest[i]).envelope_bytes, decode_frame(honest[i]).signature
    bad_sig = list(honest)
    bad_sig[i] = _frame(env_bytes, bytes([sig[0] ^ 1]) + sig[1:])
    out["bad_signature.log"] = ("one bit of play.12's signature flipped", log_bytes(bad_sig))

    data = log_bytes(honest)
    out["torn_tail.log"] = ("the valid log with its last 10 bytes cut off", data[:-10])
    cut = find(honest, "play.9")
    out["cut_mid_game.log"] = (
        "the valid log cut after play.8, at a record boundary",
        log_bytes(honest[:cut]),
    )

    i = find(honest, "play.16")
    victim = decode_frame(honest[i]).envelope.sender
    forger = (victim + 1) % len(ids)
    forged = list(honest)
    forged[i] = resign(honest[i], ids[forger])
    out["forged_sender.log"] = (
        f"{NAMES[victim]}'s play.16 replaced by the same envelope signed by {NAMES[forger]}",
        log_bytes(forged),
    )

    i = find(honest, "deal", 2)
    sender = decode_frame(honest[i]).envelope.sender
    keys = list(decode_frame(honest[i]).envelope.body["keys"])
    keys[5] = bytes(31) + b"\x05"
    broken = list(honest)
    broken[i] = with_body(honest[i], ids[sender], keys=keys)
    out["broken_commitment.log"] = (
        f"{NAMES[sender]}'s sixth deal key replaced by the scalar 5, which its commitment does "
        f"not match; re-signed by {NAMES[sender]}, the rest re-chained and re-signed",
        log_bytes(rechain(broken, i)),
    )

    cheated = play(renege(cheater=2))
    out["renege_caught.log"] = (
        f"{NAMES[2]} reneges once; {NAMES[0]}'s log, ending with the abort raised when "
        f"{NAMES[2]} later plays the suit it showed out of",
        log_bytes(cheated[0].entries),
    )
    with _blind_to_voids():
        passed = play(renege(cheater=2))
    reporter = passed[0].entries
    reveal_end = max(i for i, (_, name) in enumerate(steps(reporter)) if name == "reveal") + 1
    out["renege.log"] = (
        "the same renege, played on by peers that ignore shown voids, up to the end-of-hand "
        "reveals and without the abort: a log in which every player let the renege pass",
        log_bytes(reporter[:reveal_end]),
    )
    return out


@contextlib.contextmanager
def _blind_to_voids() -> Iterator[None]:
    """Peers that do not notice a seat playing a suit it showed out of (as older peers did)."""
    real = HandState._shown_out
    HandState._shown_out = lambda self, seat, suit: 0  # type: ignore[method-assign]
    try:
        yield
    finally:
        HandState._shown_out = real  # type: ignore[method-assign]


def _frame(envelope_bytes: bytes, signature: bytes) -> bytes:
    return pack([envelope_bytes, signature])


def expected(files: dict[str, tuple[str, bytes]], where: Path) -> dict[str, Any]:
    """What the audit reports for each file, as written to expected.json."""
    out: dict[str, Any] = {}
    for name, (about, _) in files.items():
        report = audit_log(where / name).to_json()
        out[name] = {
            "about": about,
            "exit": 0 if report["valid"] else 4,
            "valid": report["valid"],
            "status": report["status"],
            "abort": report["abort"],
            "final_hash": report["final_hash"],
            "problems": report["problems"],
        }
    return out


def main() -> None:
    DIR.mkdir(parents=True, exist_ok=True)
    files = vectors()
    for name, (_, data) in files.items():
        (DIR / name).write_bytes(data)
    table = expected(files, DIR)
    (DIR / "expected.json").write_text(json.dumps(table, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
