"""The wire format: signed envelopes in msgpack, and a strict decoder for untrusted frames.

Every message is an envelope bound to (protocol version, game id, hand, step, sender, sequence,
hash of the log before this step) and signed with the sender's Ed25519 identity over the exact
envelope bytes. A frame has exactly one encoding: the decoder refuses any frame or envelope
that is not the shortest msgpack encoding of what it decodes to (map keys in the order sent), so
a frame re-wrapped on its way is refused, never taken for a second message. A message is its
signed envelope: two frames with the same envelope are the same message.

The decoder refuses anything it does not expect (sizes, types, lengths, ranges, unknown
versions and kinds), each failure a ``WireError`` with a specific ``code``; it never raises
anything else, whatever the bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgpack

from .identity import SIGNATURE_BYTES, Identity, verify

__all__ = [
    "KINDS",
    "MAX_FRAME",
    "PROTOCOL_VERSION",
    "Envelope",
    "SignedMessage",
    "WireError",
    "decode_frame",
    "decode_peer_frame",
    "encode_message",
    "pack",
    "unpack",
    "verify_signature",
]

PROTOCOL_VERSION = 1
MAX_FRAME = 256 * 1024
SIGN_DOMAIN = b"hearts-p2p/v1 message\0"
GAME_ID_BYTES = 16
HASH_BYTES = 32
MAX_DEPTH = 6
MAX_NAME = 64

KINDS = frozenset(
    {
        "genesis", "accept", "flip_commit", "escrow_open", "flip_reveal",
        "shuffle", "echo_shuffle", "lock", "echo_lock", "deal", "dealt",
        "pass_commit", "pass_reveal", "passed", "remix", "remix_share", "remix_answer",
        "play", "moon", "reveal", "end",
        "expose", "expose_fourth",
        "abort", "takeover", "recover", "nolead",
        "seats", "rekey", "welcome", "reclaim", "rejoin", "sit",
    }
)  # fmt: skip
"""Every message kind of protocol version 1: the game's steps (Gong Zhu's exposures among
them), the abort, a takeover's, and a return's."""


class WireError(ValueError):
    """An untrusted frame that is not a valid message; ``code`` names the check it failed."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = detail


def pack(value: Any) -> bytes:
    """Encode with the one msgpack profile the protocol uses (bin for bytes, no ext types)."""
    data: bytes = msgpack.packb(value, use_bin_type=True)
    return data


def unpack(data: bytes, *, max_size: int = MAX_FRAME) -> Any:
    """Decode untrusted msgpack strictly: str map keys, no ext types, bounded sizes."""
    if len(data) > max_size:
        raise WireError("too_large", f"{len(data)} bytes, limit {max_size}")
    try:
        return msgpack.unpackb(
            data,
            raw=False,
            use_list=True,
            strict_map_key=True,
            max_bin_len=max_size,
            max_str_len=max_size,
            max_array_len=4096,
            max_map_len=256,
            max_ext_len=0,
        )
    except WireError:
        raise
    except Exception as e:  # msgpack raises a zoo of types on garbage; all mean one thing
        raise WireError("not_msgpack", f"{type(e).__name__}: {e}") from None


@dataclass(frozen=True, slots=True)
class Envelope:
    """What a message is bound to; ``body`` is the kind's map, checked by its schema."""

    version: int
    game_id: bytes
    hand: int
    step: str
    sender: int
    seq: int
    prev: bytes
    kind: str
    body: dict[str, Any]

    def to_list(self) -> list[Any]:
        return [
            self.version,
            self.game_id,
            self.hand,
            self.step,
            self.sender,
            self.seq,
            self.prev,
            self.kind,
            self.body,
        ]


@dataclass(frozen=True, slots=True)
class SignedMessage:
    """A decoded message with the exact bytes it came in, for the log and for forwarding."""

    envelope: Envelope
    envelope_bytes: bytes
    signature: bytes
    raw: bytes

    def verify(self, public_key: bytes) -> bool:
        return verify_signature(public_key, self.envelope_bytes, self.signature)


def verify_signature(public_key: bytes, envelope_bytes: bytes, signature: bytes) -> bool:
    """Whether ``signature`` is ``public_key``'s over these envelope bytes (as a message's)."""
    return verify(public_key, signature, SIGN_DOMAIN + envelope_bytes)


def encode_message(identity: Identity, envelope: Envelope) -> SignedMessage:
    """Serialize and sign; the result's ``raw`` is what goes on the wire and into the log."""
    env_bytes = pack(envelope.to_list())
    sig = identity.sign(SIGN_DOMAIN + env_bytes)
    raw = pack([env_bytes, sig])
    if len(raw) > MAX_FRAME:
        raise WireError("too_large", f"message of {len(raw)} bytes exceeds {MAX_FRAME}")
    return SignedMessage(envelope, env_bytes, sig, raw)


def decode_frame(raw: bytes, *, max_size: int = MAX_FRAME) -> SignedMessage:
    """Decode one untrusted frame; signature and body schema are checked by the caller."""
    if not isinstance(raw, bytes | bytearray | memoryview):
        raise WireError("not_bytes", type(raw).__name__)
    raw = bytes(raw)
    return _message(unpack(raw, max_size=max_size), raw, max_size)


def decode_peer_frame(raw: bytes, *, max_size: int = MAX_FRAME) -> SignedMessage | dict[str, Any]:
    """Decode one frame from a peer, once: a game message, or a control map (``sync``,
    ``chat``, …) for the caller to parse."""
    outer = unpack(raw, max_size=max_size)
    if isinstance(outer, dict):
        return outer
    return _message(outer, bytes(raw), max_size)


def _message(outer: object, raw: bytes, max_size: int) -> SignedMessage:
    if not isinstance(outer, list) or len(outer) != 2:
        raise WireError("bad_frame", "a frame is [envelope, signature]")
    env_bytes, sig = outer
    if not isinstance(env_bytes, bytes) or not isinstance(sig, bytes):
        raise WireError("bad_frame", "envelope and signature must be bytes")
    if len(sig) != SIGNATURE_BYTES:
        raise WireError("bad_signature_length", f"{len(sig)} bytes")
    if pack(outer) != raw:
        raise WireError("not_canonical", "a frame must be the shortest encoding of its two parts")
    fields = unpack(env_bytes, max_size=max_size)
    if not isinstance(fields, list) or len(fields) != 9:
        raise WireError("bad_envelope", "an envelope is a list of 9 fields")
    if pack(fields) != env_bytes:
        raise WireError("not_canonical", "an envelope must be the shortest encoding of its fields")
    version, game_id, hand, step, sender, seq, prev, kind, body = fields
    _want_int("version", version, 0, 1 << 16)
    if version != PROTOCOL_VERSION:
        raise WireError("unknown_version", f"protocol version {version}, this peer speaks 1")
    _want_bytes("game_id", game_id, GAME_ID_BYTES)
    _want_int("hand", hand, 0, 10_000)
    _want_name("step", step)
    _want_int("sender", sender, 0, 15)
    _want_int("seq", seq, 0, 1 << 32)
    _want_bytes("prev", prev, HASH_BYTES)
    _want_name("kind", kind)
    if kind not in KINDS:
        raise WireError("unknown_kind", f"no message kind {kind!r}")
    if not isinstance(body, dict):
        raise WireError("bad_body", "a body is a map")
    _check_depth(body, 0)
    envelope = Envelope(version, game_id, hand, step, sender, seq, prev, kind, body)
    return SignedMessage(envelope, env_bytes, sig, raw)


def _want_int(name: str, v: object, lo: int, hi: int) -> None:
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise WireError("bad_field", f"{name} must be an integer in {lo}..{hi}, not {v!r:.40}")


def _want_bytes(name: str, v: object, length: int) -> None:
    if not isinstance(v, bytes) or len(v) != length:
        raise WireError("bad_field", f"{name} must be {length} bytes")


def _want_name(name: str, v: object) -> None:
    if not isinstance(v, str) or not 0 < len(v) <= MAX_NAME or not v.isascii():
        raise WireError("bad_field", f"{name} must be a short ASCII string")


def _check_depth(v: dict[str, Any] | list[Any], depth: int) -> None:
    """Refuse nesting deeper than ``MAX_DEPTH``. ``unpack`` yields nothing but nil, bool, int,
    float, str, bin, arrays and maps (ext types are refused there), so only the containers need
    a walk: a body of long lists of bytes costs a pass over each list, not a call per value."""
    if depth == MAX_DEPTH:
        if v:
            raise WireError("too_deep", f"nesting deeper than {MAX_DEPTH}")
        return
    for item in v.values() if type(v) is dict else v:
        if type(item) is dict or type(item) is list:
            _check_depth(item, depth + 1)
