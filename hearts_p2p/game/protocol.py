"""The game protocol of one peer, sans I/O: signed messages in, signed messages and events out.

It is the heart of a node and of the audit. Every message, its own included, passes the same
path: envelope binding, signature, sequence, then the step's checks (deck cryptography, rules).
A message from a later step waits in a small buffer; a completed step goes into the log in
sender order. The trio node only moves bytes, persists the log and asks the front end.

What each kind of step checks, what follows it and what this seat sends for it is in one table
(``RULES``, from ``seating.py`` and ``handsteps.py``); this module holds the path every message
takes and the narrow API the shell and the audit use: ``receive``, ``submit``, ``drain``,
``resume`` and read-only properties.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Any

from ..coinflip import CoinFlipCheatError
from ..deck import PROOF_ROUNDS, DeckCheatError, DeckError
from ..engine import (
    Action,
    ChooseMoon,
    Claim,
    Expose,
    Game,
    GameResult,
    IllegalActionError,
    PassCards,
    PlayCard,
    SeatView,
)
from ..identity import Identity
from ..wire import Envelope, SignedMessage, WireError, decode_frame, pack
from .abort import (
    ONE_NUMBER,
    ONE_STEP,
    after_abort,
    end_held,
    follow_word,
    held,
    keep_taken,
    no_genesis,
    pair,
    receive_abort,
    resume_stop,
    sign_abort,
    upgrade_held,
    verdict,
)
from .claims import claim_body
from .events import GameEvent, HandStarted, SeatedRoster
from .exposure import exposure_body
from .genesis import Genesis, GenesisError, Player
from .handflow import HandFlow
from .handsteps import HAND_STEPS
from .outcome import Abort, CheatError, Termination
from .reclaim import (
    BOUNDARY_STEPS,
    RECLAIM,
    fresh_secrets,
    may_ask,
    next_hand,
    sign_offer,
    table_part,
    take_offer,
)
from .redeal import open_seats
from .rekey import REJOIN, awaited, give_up, sign_rejoin, take_rejoin
from .rollcall import (
    NOLEAD,
    awaits_holder,
    complete,
    early,
    everyone_said,
    lead_awaited,
    may_sign,
    no_lead,
    nobody_made,
    roll_call_step,
    said,
    sign_nolead,
    take_nolead,
)
from .seating import SEATING
from .sitdown import asked_seat, sign_sit, signer_key, take_sit, wanted
from .state import GameState, Status, StepRecord, StepRule, Window
from .steps import DECISIONS, Step, StepKind
from .tableseat import Evidence, Round, RoundState
from .takeover import KINDS as TAKEOVER_KINDS
from .takeover import (
    RECOVER,
    VOTE,
    able,
    check_vote,
    decide,
    muted_part,
    survivors,
    table_body,
    take_share,
    take_vote,
    vote_body,
)
from .void import (
    HERE,
    defence,
    due,
    holding,
    missing,
    muted,
    owed,
    pending,
    promote,
    second_seats,
    shown,
    there,
    trouble,
    votes_about,
)
from .wirekinds import Machine, Signer, wire_kind

__all__ = ["RULES", "GameProtocol", "ProtocolError"]

MAX_FUTURE = 64  # buffered messages per sender from steps not begun yet
MAX_DROPPED = 256  # frames of seats the table plays, kept to pair with another under a number
# Steps a seat voted out can have completed alone on its own part, before the votes reach it:
# only its own steps in a row, as nobody else sends on that history. A vote about it for an
# older step does not make it rebuild (a peer could otherwise make it replay the log at will).
_AHEAD = 3
_OTHERS = "takeover.others"  # this peer's votes on a second seat in one step, saved (void.py)

RULES: Mapping[StepKind, StepRule] = MappingProxyType({**SEATING, **HAND_STEPS, **BOUNDARY_STEPS})


class ProtocolError(Exception):
    """A local misuse (acting out of turn, submitting twice, resuming twice); never caused by
    a peer."""


class GameProtocol:
    """One peer's view of one game. ``identity`` is None for an observer (the offline audit)."""

    def __init__(
        self,
        game_id: bytes,
        host_key: bytes,
        identity: Identity | None = None,
        secret: bytes | None = None,
        choices: Mapping[str, Any] | None = None,
        min_proof_rounds: int = PROOF_ROUNDS,
        views: bool = True,
    ) -> None:
        """``min_proof_rounds``: the fewest remix proof rounds a genesis may ask of this player
        (SPEC 6.4); the hearts command keeps 16, tests of anything but the proof ask fewer.
        ``views``: whether each play's events are made (``views``), as the front end wants."""
        if identity is not None and (secret is None or len(secret) != 32):
            raise ProtocolError("a player needs its 32-byte game secret: every key derives from it")
        secret = secret or bytes(32)  # an observer derives nothing from it
        self._secret = secret  # the game's first: a return brings another (reclaim.py)
        self._s = GameState(game_id, host_key, identity, secret, dict(choices or {}))
        self._s.min_proof_rounds = min_proof_rounds
        self._s.views = views
        self._offered = -1  # the hand this seat's last reclaim was for
        # (player, seq) -> the frame taken or waiting under that number: bytes the log holds
        # anyway, not a decoded message kept for the whole game
        self._seen: dict[tuple[int, int], bytes] = {}
        # Frames of seats the table plays, dropped but kept by number: another frame under
        # one of those numbers, relayed by a peer that proved the pair, proves it here too.
        self._dropped_words: dict[tuple[int, int], bytes] = {}
        self._machines: dict[Machine, Callable[[SignedMessage], None]] = {
            Machine.STEPS: self._take_part,
            Machine.VERDICT: self._take_abort,
            Machine.ROUND: self._take_round,
            Machine.RECLAIM: self._take_reclaim,
            Machine.REJOIN: self._take_rejoin,
            Machine.ROLL_CALL: self._take_nolead,
        }  # a sit never reaches them: it is its own newcomer's (wirekinds.Signer.NEWCOMER)
        self._future: dict[int, dict[int, SignedMessage]] = {}
        self._early: list[SignedMessage] = []
        self._dropped = 0
        self._evidence = False  # judging a takeover vote's evidence: the seat is not muted
        self._vouched: set[bytes] = set()  # frames whose signature the caller has checked
        # every entry of the log ``resume`` is replaying, by (sender, prev, step)
        self._replaying: dict[tuple[int, bytes, str], SignedMessage] = {}
        # and its takeover rounds' messages, by (sender, kind, prev, player, ending)
        self._replaying_rounds: dict[tuple[Any, ...], SignedMessage] = {}

    # -- read-only views -----------------------------------------------------------------------

    @property
    def game_id(self) -> bytes:
        return self._s.game_id

    @property
    def host_key(self) -> bytes:
        """The host's key, known before its genesis is."""
        return self._s.host_key

    @property
    def identity(self) -> Identity | None:
        return self._s.identity

    @property
    def dh_public(self) -> bytes:
        """This player's X25519 key for the game, which the genesis lists."""
        return self._s.dh_public

    @property
    def status(self) -> Status:
        return self._s.status

    @property
    def termination(self) -> Termination | None:
        """How the game ended; None while it goes on."""
        if self._s.status is Status.FINISHED:
            return Termination.FINISHED
        return self._s.abort.termination if self._s.abort is not None else None

    @property
    def abort(self) -> Abort | None:
        return self._s.abort

    @property
    def result(self) -> GameResult | None:
        return self._s.game.result if self._s.game is not None else None

    @property
    def genesis(self) -> Genesis | None:
        return self._s.genesis

    @property
    def players(self) -> int:
        return self._s.players

    @property
    def me(self) -> int | None:
        """This peer's player number (genesis order), None for an observer."""
        return self._s.me

    @property
    def my_seat(self) -> int | None:
        return self._s.my_seat

    @property
    def seat_of(self) -> tuple[int, ...]:
        """Seat by player; empty until the coin flip."""
        return tuple(self._s.seat_of)

    @property
    def player_at(self) -> tuple[int, ...]:
        """Player by seat; empty until the coin flip."""
        return tuple(self._s.player_at)

    @property
    def game(self) -> Game | None:
        """The rules engine as this peer knows the game (its own cards only)."""
        return self._s.game

    @property
    def flow(self) -> HandFlow | None:
        """The current hand's deck."""
        return self._s.flow

    @property
    def ahead_flow(self) -> HandFlow | None:
        """The next hand's deck, while it is shuffled and locked during this hand."""
        return self._s.ahead.flow if self._s.ahead is not None else None

    @property
    def step(self) -> Step:
        return self._s.step

    @property
    def entries(self) -> list[bytes]:
        """The log so far, as every honest peer holds it (a copy)."""
        return self._s.read(0, self._s.count)

    @property
    def head(self) -> bytes:
        return self._s.head

    @property
    def choices(self) -> Mapping[str, Any]:
        """This seat's pass picks by hand: saved with the secrets, so a resumed seat keeps them."""
        return MappingProxyType(self._s.choices)

    @property
    def next_seq(self) -> int:
        """The number this player's next message carries."""
        me = self._s.me if self._s.me is not None else 0
        return self._s.next_seq.get(me, 0)

    @property
    def dropped(self) -> int:
        """Messages dropped: bad signatures, strangers, stale copies, a full buffer."""
        return self._dropped

    @property
    def mid_trick(self) -> bool:
        """Whether the last step was a play that left its trick open."""
        hand = self._s.game.hand if self._s.game is not None else None
        return self._s.step.kind is StepKind.OPEN and hand is not None and bool(hand.trick)

    def pending(self) -> list[SignedMessage]:
        """The current step's messages so far, in log order, the votes and shares of the step's
        open takeover round, and the returner's rejoin while a ``welcome`` waits for it (to
        catch a peer up: none is in the log yet, and a peer that was away when a round opened
        owes it a vote it would otherwise never know of)."""
        s = self._s
        held = s.rekeying.rejoin if s.rekeying is not None else None
        r = s.round
        rounds: list[SignedMessage] = []
        if r is not None and r.prev == s.step.prev:
            rounds += [r.votes[p] for p in sorted(r.votes)]
            rounds += [v[p] for _, v in sorted(r.others.items()) for p in sorted(v)]
            rounds += [r.shares[p] for p in sorted(r.shares)]
        return [*s.step.in_order(), *rounds, *([decode_frame(held)] if held is not None else [])]

    def waiting_for(self) -> list[int]:
        """Players the game is waiting on now: while a takeover round this peer has voted in
        is open, the survivors whose vote or share has not come."""
        s = self._s
        if s.status not in (Status.RUNNING, Status.AWAITING_GENESIS):
            return []
        returner = awaited(s)
        if returner is not None:
            return [returner]  # its rejoin, before this peer's welcome
        r = s.round
        if r is not None and r.prev == s.step.prev:
            second = second_seats(s, r) and r.state is not RoundState.PRESENT  # no void after
            if second and all(s.me in r.others[t] for t in r.others) and missing(s, r):
                # A second seat's round (void.py): the voters still to vote, or, where this
                # peer is one, the seats it has not voted on (its own clock runs on them).
                mine = [t for t in trouble(s, r) if s.me not in votes_about(r, t)]
                return mine or missing(s, r)
            if r.state is RoundState.VOTING and s.me in r.votes:
                return [p for p in survivors(s, r.about) if p not in r.votes]
            if r.state is RoundState.RECOVERING:
                return [p for p in survivors(s, r.about) if p not in r.shares]
        return lead_awaited(s, s.step.waiting_for())

    def owing(self) -> list[int]:
        """Players whose own part of the current step has not come: what their time banks
        count (``timebank.py``). While a takeover round is open only its seat's (the votes and
        shares are the software's, and a survivor holds its own part back), and nobody's at a
        roll call (the holder is not known: the roll call names it)."""
        s = self._s
        if s.status is not Status.RUNNING or awaits_holder(s):
            return []
        waiting = [p for p in s.step.waiting_for() if p not in s.table]
        r = s.round
        if r is not None and r.prev == s.step.prev and r.state is not RoundState.PRESENT:
            # The round's seat still owes its part, and its bank runs on: the others hold
            # theirs back while they vote, which is the software's time, on nobody's bank.
            return [p for p in waiting if p == r.about]
        return waiting

    def roll_call(self) -> bool:
        """The first lead has waited past the timeout: if the lead card is not this seat's,
        say so (``nolead``, rollcall.py), so that the one left is the holder, named by the
        clocks as any staller. Whether this peer said it now."""
        s = self._s
        if not may_sign(s):
            return False
        msg = sign_nolead(s)
        s.outbox.append(msg)
        self.receive(msg)
        return True

    def waiting_on_machines(self) -> bool:
        """Whether the current step waits only on messages no person has to decide (a
        takeover round's votes and shares are the software's)."""
        s = self._s
        r = s.round
        if r is not None and r.prev == s.step.prev and r.state is not RoundState.PRESENT:
            return s.me in r.votes or r.state is RoundState.RECOVERING
        if awaits_holder(s):
            return False  # a card's unnamed holder owes it: the roll call names it, or no one
        return s.step.kind not in DECISIONS

    @property
    def people_gone(self) -> bool:
        """Whether the table had people and every one of them has signed that it leaves: only
        bots would play on, for nobody. (A person whose node went silent may be back; its seat
        is played to the end.)"""
        s = self._s
        if s.genesis is None or s.status is not Status.RUNNING:
            return False
        people = [p for p, player in enumerate(s.genesis.players) if not player.bot]
        return bool(people) and all(p in s.left for p in people)

    @property
    def taken_over(self) -> bool:
        """Whether the table plays this peer's own seat: it follows the game, signing nothing,
        until it comes back (``come_back``)."""
        return self._s.me is not None and self._s.me in self._s.table

    @property
    def wants_secret(self) -> bool:
        """Whether this seat, taken over, has no fresh secret to come back with yet."""
        s = self._s
        return self.taken_over and s.identity is not None and may_ask(s) and wanted(s) is None

    def come_back(self, secret: bytes) -> None:
        """Ask to take this seat back at the next hand boundary with ``secret``, a fresh game
        secret (the shell draws it and saves it with the choices before anything is sent)."""
        s = self._s
        if len(secret) != 32 or secret in (self._secret, *fresh_secrets(s)):
            raise ProtocolError("a fresh game secret is 32 new bytes")
        if not self.wants_secret:
            return
        s.choices[RECLAIM] = [*fresh_secrets(s), secret]
        self._offer()

    def ask_seat(self, player: int, name: str, bot: bool) -> None:
        """As a newcomer following the game (an identity the roster does not hold), ask to take
        ``player``'s seat, which the table plays, at the coming hand boundaries, sitting with
        this protocol's game secret (saved with the choices before anything is signed)."""
        s = self._s
        if s.genesis is None or s.identity is None or s.me is not None:
            raise ProtocolError("only a newcomer following a running game asks for a seat")
        if s.genesis.index_of(s.identity.public_key) is not None:
            raise ProtocolError("a player of this game takes its own seat back, no other")
        if player not in s.table:
            raise ProtocolError("that seat is not open: the table does not play it")
        asked_seat(s, player, self._secret, name, bot)
        self._offer()

    def consent(self, newcomer: bytes, yes: bool) -> None:
        """This seated player's answer to a newcomer's ask at an ``ask`` table (``SitAsked``):
        carried in its next ``seats`` only if yes and given before that part is sent."""
        self._s.consent[newcomer] = yes

    def key_for(self, env: Envelope) -> bytes | None:
        """The key that signs ``env`` as the log so far sets the key schedule (sitdown.py)."""
        return signer_key(self._s, env)

    @property
    def holders(self) -> Mapping[int, Player]:
        """The newcomers holding a seat now in place of its genesis player, by player."""
        return MappingProxyType(self._s.holders)

    @property
    def left_players(self) -> frozenset[int]:
        """Players who signed that they leave (a quit), by player number: their seats are
        taken over, never waited for."""
        return frozenset(self._s.left)

    def table_seat_open(self, player: int) -> bool:
        """Whether the table plays ``player``'s seat as an open one (a voided hand's, on a
        public stand-in secret), not on its secret recovered from the escrow."""
        seat = self._s.table.get(player)
        return seat is not None and seat.open

    @property
    def table_seats(self) -> frozenset[int]:
        """Players whose seats the table plays (taken over), by player number."""
        return frozenset(self._s.table)

    @property
    def views(self) -> bool:
        """Whether each play's events (``CardPlayed``, ``TrickTaken``) are made, with this
        seat's view: a front end that shows the table wants them; a bot decides from the view
        ``choice_needed`` gives, and building one per play for nobody costs every play."""
        return self._s.views

    def view(self) -> SeatView | None:
        seat = self._s.my_seat
        if self._s.game is None or seat is None:
            return None
        return SeatView.of(self._s.game, seat)

    def choice_needed(self) -> SeatView | None:
        """The view to decide on when this peer's seat must choose an action now."""
        s = self._s
        step = s.step
        if s.status is not Status.RUNNING or s.me is None or s.me in step.got or s.silent:
            return None
        if holding(s):
            return None  # a void may end the step: nothing more of this seat's in it
        if s.me not in step.senders or s.game is None or step.kind not in DECISIONS:
            return None
        if step.kind is StepKind.PASS_COMMIT and str(step.hand) in s.choices:
            return None
        seat = s.my_seat
        if seat is None or not s.game.may_act(seat):
            return None
        return SeatView.of(s.game, seat)

    # -- driving -------------------------------------------------------------------------------

    def propose(self, genesis: Genesis) -> None:
        """The host opens the game with its genesis entry."""
        if self._s.identity is None or self._s.identity.public_key != self._s.host_key:
            raise ProtocolError("only the host proposes the genesis")
        self._send("genesis", genesis.to_wire())

    def receive(self, msg: SignedMessage, *, verified: bool = False) -> None:
        """Take one decoded message from a peer (or from our own log); never raises for a peer.

        ``verified``: the caller has already checked the signature under the key of the player
        the message names (the audit does, ahead, in worker processes), so it is not checked
        twice."""
        s = self._s
        if msg.raw in s.frames:
            return  # a copy of a message already taken or waiting: relays make many
        if s.status is Status.FINISHED:
            self._after_end(msg)
            return
        if verified:
            self._vouched.add(msg.raw)
        try:
            if s.status is Status.ABORTED:
                if self._seen:  # waiting for their numbers, which will never come now
                    keep_taken(s, list(self._seen.values()), ())
                    self._seen = {}
                after_abort(s, msg, self._key_of(msg.envelope.sender))
            else:
                upgrade_held(s, msg, self._key_of(msg.envelope.sender))
                self._receive(msg)
        except CheatError as c:
            verdict(s, c.culprit, c.reason, c.evidence)
            self._take_held(msg)
        resume_stop(s)

    def submit(self, action: Action) -> None:
        """This seat's chosen action for the current step (validated like anyone else's)."""
        s = self._s
        view = self.choice_needed()
        if view is None or action not in view.legal:
            raise ProtocolError(f"{action} is not an action this seat can take now")
        assert s.flow is not None
        if isinstance(action, PassCards):
            assert action.cards is not None
            s.choices[str(s.step.hand)] = [int(c) for c in action.cards]
            self._send_own()
        elif isinstance(action, PlayCard):
            self._send(s.step.name, s.flow.make_open(int(action.card)))
        elif isinstance(action, ChooseMoon):
            self._send(s.step.name, {"add": action.add_to_others})
        elif isinstance(action, Expose):
            self._send(s.step.name, exposure_body(s, tuple(int(c) for c in action.cards)))
        elif isinstance(action, Claim):
            self._send(s.step.name, claim_body(s, tuple(int(c) for c in action.cards)))
        else:
            raise ProtocolError(f"{action} has no message in this protocol")

    def quit(self, name: str) -> None:
        """This player leaves: the game ends for everyone, naming the leaver on its own word.
        A seat the table plays has left already: it signs nothing, and may come back later."""
        if not self._s.silent:
            sign_abort(self._s, Termination.LEFT, f"{name} left the table", self._s.me)

    def give_up_on(self, player: int, seconds: float, *, stalled: bool = False) -> None:
        """A player has been gone (or, connected, has held up a step) longer than the timeout:
        vote to take its seat over; where that cannot be (before the seats are drawn, or a
        second seat in trouble in one step), end the game, naming it."""
        s = self._s
        if s.status is Status.AWAITING_GENESIS and player == 0:
            no_genesis(s, f"the host sent no game start within {seconds:.0f} s")
            return
        if s.status is not Status.RUNNING:
            return
        proven = held(s)
        if proven is not None and player != proven.culprit and self._held_before_end():
            # The `end` step waits on a player the held verdict does not name, whose evidence
            # came before the step: that player may have stopped on it there, sending no end.
            end_held(s)
            return
        if s.silent:
            follow_word(s, player)  # a seat the table plays has no word on anyone's
            return
        if give_up(s, player):
            self._send_own()  # its rejoin never came: this peer welcomes nobody
            return
        if player in s.table or self._accused(player):
            return  # taken over already, or this peer's accusation of it stands, to be decided
        claimed, said_stalled = self._claimed(player, stalled)
        if claimed != player:
            self._claim(claimed, said_stalled, seconds)  # it stopped on a claim this peer shares
            return
        s.clock_gave_up(player, "stalled" if stalled else "gone")
        if self._may_vote(player):
            self._vote(player, "stalled" if stalled else "gone")
            return
        if self._may_vote_other(player):
            self._vote_other(player, "stalled" if stalled else "gone")
            return
        if end_held(s):
            return
        self._claim(*self._claim_seat(player, stalled), seconds)

    def _claim(self, player: int, stalled: bool, seconds: float) -> None:
        """End the game on this peer's own word about ``player`` (6.9)."""
        s = self._s
        name = s.genesis.players[player].name if s.genesis else str(player)
        if stalled:
            why = f"{name} held up {s.step} for more than {seconds:.0f} s"
            sign_abort(s, Termination.STALLED, why, player)
        else:
            why = f"{name} was gone for more than {seconds:.0f} s"
            sign_abort(s, Termination.GONE, why, player)

    def _claimed(self, player: int, stalled: bool) -> tuple[int, bool]:
        """The seat this peer's own claim would name, its clock having run out on ``player``:
        if ``player`` ended the game on its own claim about a seat this peer's own clock gave
        up on in this hand, that seat (with this peer's own ending for it), so the peers that
        end on their own word name one seat where they can, and none votes out a player that
        stopped on a claim it shares; else ``player``. One peer's claim alone never has
        another name a seat its own clock did not give up on."""
        s = self._s
        msg = s.ended.get(player)
        about = msg.envelope.body.get("culprit") if msg is not None else None
        if not isinstance(about, int) or isinstance(about, bool) or about in (s.me, player):
            return player, stalled
        hand, ending = s.gave_up.get(about, (-1, ""))
        if hand != s.hand_now:
            return player, stalled
        if about in s.answered and any(
            p not in (s.me, player, about) and p not in s.ended for p in s.present()
        ):
            return player, stalled  # others play on: this peer goes on with them
        return about, ending == "stalled"

    def _claim_seat(self, player: int, stalled: bool) -> tuple[int, bool]:
        """The seat this peer's claim names when it ends on its own word, its clock having run
        out on ``player``: the lowest-numbered seat of the step's round that its own accusation
        stands against with no defence showing it there, else ``player``. The round's seats
        are every peer's alike, where the seat a clock runs out on last is each one's own: so
        peers whose clocks ran out on the same seats in another order name the same one."""
        s = self._s
        r = s.round
        if r is None or r.prev != s.step.prev or s.me is None:
            return player, stalled
        standing = {}
        for seat in {r.about, *r.others}:
            mine = votes_about(r, seat).get(s.me)
            if mine is not None and not defence(mine) and not there(s, r, seat):
                standing[seat] = mine.envelope.body.get("ending") == "stalled"
        if not standing:
            return player, stalled
        seat = min(standing)
        return seat, standing[seat]

    def _held_before_end(self) -> bool:
        """Whether the held verdict's evidence names a step before `end`: a peer that took it
        there stopped at once, where evidence of the `end` step only waits for it."""
        s = self._s
        return s.pending is not None and any(m.envelope.prev != s.step.prev for m in s.pending[1])

    def log_ended(self) -> None:
        """Nothing more will come (the audit has read the whole log): a verdict held through
        the `end` step is the ending, as it was for the peer that wrote the log."""
        end_held(self._s)

    @property
    def log_kept(self) -> int:
        """How many of the entries already taken are still the log's: a verdict cuts the log
        back to where its evidence's step began, so the shell truncates its file to this before
        appending what ``take_entries`` gives."""
        return min(self._s.kept, self._s.count)

    @property
    def log_held(self) -> int:
        """Entries of the log this protocol holds in memory: all of them without a history."""
        return len(self._s.entries)

    @property
    def log_count(self) -> int:
        """Entries in the log so far, as every honest peer holds it."""
        return self._s.count

    def read_entries(self, start: int, stop: int) -> list[bytes]:
        """Log entries ``start`` to ``stop`` (not included), the older from the history."""
        return self._s.read(start, stop)

    def keep_history(
        self, history: Callable[[int, int], list[bytes]], window: Window | None = None
    ) -> None:
        """The shell holds the log it takes (its file) and reads entries back through
        ``history``: from here on this protocol drops what it no longer needs in memory,
        reading it back when a late or conflicting message names an old step, so a long
        game's memory stays flat. What it decides is the same whatever ``window`` says."""
        self._s.history = history
        self._s.window = window or Window()

    def take_entries(self) -> list[bytes]:
        """The log entries since ``log_kept``, to append to the log file. Those taken before
        are in the shell's file by now: the protocol may drop them (``keep_history``)."""
        s = self._s
        if s.count - s.base > s.window.trim_at:
            self._forget(s.trim())
        kept = self.log_kept
        s.kept = s.count
        return s.entries[kept - s.base :]

    def _forget(self, dropped: list[bytes]) -> None:
        """The frames and numbers of entries the state no longer holds: a copy of one that
        comes again is checked against the log (``GameState.logged``)."""
        if not dropped:
            return
        s = self._s
        old = set(dropped)
        parts = {v for v in self._seen.values() if v in old}
        self._seen = {k: v for k, v in self._seen.items() if v not in parts}
        for raw in parts:  # a vote or a share stays: taking one again is not harmless
            s.frames.discard(raw)
            s.signed.discard(raw)

    def has_frame(self, raw: bytes) -> bool:
        """Whether these exact bytes were taken already: relays bring every message several
        times, and a copy need not be decoded to be dropped."""
        return raw in self._s.frames

    def forged(self, msg: SignedMessage) -> bool:
        """Whether ``msg`` was signed by a player other than the one it names: a relay of it goes
        to that player too, who must see the forgery in its name to reach the same verdict."""
        return msg.raw in self._s.forged

    def take_relays(self) -> list[SignedMessage]:
        """Others' messages this peer took or judged since the last call. The shell sends each
        on to every peer but its signer, before anything of this peer's own: whatever one
        honest peer took, every honest peer gets, and an equivocation shows at all of them."""
        out, self._s.relays = self._s.relays, []
        return out

    def drain(self) -> tuple[list[SignedMessage], list[bytes], list[GameEvent]]:
        """What to send, what to append to the log (after ``log_kept``), what to show; clears
        them."""
        out, self._s.outbox = self._s.outbox, []
        events, self._s.events = self._s.events, []
        return out, self.take_entries(), events

    def resume(self, entries: Iterable[bytes]) -> None:
        """Rebuild this peer's state from its own log, before anything else.

        What the replay re-derives from ``entries`` is already on disk, so it is not given
        out again, except this player's own message in the step left incomplete: it is sent
        again, since a crash may have come before it left. An entry past ``entries`` (that
        message, when it was the last the step lacked) is still to be written:
        ``take_entries`` gives it. The events left to show say where the game stands: who sits
        where, and this seat's hand now.
        """
        if self._s.count or self._s.outbox:
            raise ProtocolError("a game resumes into a fresh protocol only")
        decoded = [_decoded(raw) for raw in entries]
        self._replay_own([m for m in decoded if m is not None])
        given = 0
        for msg in decoded:
            given += 1
            if msg is not None:
                self.receive(msg)
        self._replaying, self._replaying_rounds = {}, {}
        pending = {m.raw for m in self._s.step.got.values()}
        out, _, events = self.drain()
        self._s.kept = min(self._s.count, given)
        # A rejoin is no step's part: sent again while its ``welcome`` is under way.
        step = self._s.step
        pending |= {m.raw for m in out if (m.envelope.kind, m.envelope.prev) == (REJOIN, step.prev)}
        self.take_relays()  # what the log holds, the peers have: sync, not relays, catches up
        self._s.outbox = [m for m in out if m.raw in pending]
        self._vote_again()
        told: list[GameEvent] = []
        told += [e for e in events if isinstance(e, SeatedRoster)][-1:]
        view = self.view()
        if view is not None and view.phase is not None:
            told.append(HandStarted(view))
        self._s.events = told

    def _vote_again(self) -> None:
        """Send again, and take, this peer's saved votes in the round under way: the same
        bytes it may have sent before it stopped, never a second, different vote."""
        saved = self._s.choices.get(VOTE)
        if isinstance(saved, dict) and saved.get("prev") == self._s.step.prev:
            vote = decode_frame(saved["frame"])  # this peer's vote in the round under way
            self._s.outbox.append(vote)
            self.receive(vote)
        others = self._s.choices.get(_OTHERS)
        if isinstance(others, dict) and others.get("prev") == self._s.step.prev:
            for raw in others["frames"]:
                vote = decode_frame(raw)  # its votes on a second seat in the round under way
                self._s.outbox.append(vote)
                self.receive(vote)

    def _replay_own(self, logged: list[SignedMessage]) -> None:
        """Replaying ``logged``, this peer takes its own parts and round messages from it, as
        it made them then, rather than making them again (``_send_own``, ``_round_message``)."""
        self._replaying = {(m.envelope.sender, m.envelope.prev, m.envelope.step): m for m in logged}
        self._replaying_rounds = {
            _round_key(m.envelope.sender, m.envelope.kind, m.envelope.prev, m.envelope.body): m
            for m in logged
            if m.envelope.kind in TAKEOVER_KINDS
        }

    # -- receiving -----------------------------------------------------------------------------

    def _key_of(self, player: int) -> bytes | None:
        genesis = self._s.genesis
        if genesis is None:
            return self._s.host_key if player == 0 else None
        if player >= len(genesis.players):
            return None
        return self._s.holder(player).key  # the key schedule: a newcomer's key from its hand

    def _receive(self, msg: SignedMessage) -> None:
        """Route one frame: its envelope, its signature, then its kind's row (wirekinds.py)."""
        s, env = self._s, msg.envelope
        row = wire_kind(env.kind)
        key = signer_key(s, env)
        early = key is None or row.after_genesis
        if early and s.genesis is None and env.game_id == s.game_id:
            if len(self._early) < MAX_FUTURE:
                # A player's key is known once the genesis is in, and so is the roster a
                # lifecycle word of the host's is judged by (a vote about player 0 is no cheat).
                self._early.append(msg)
            return
        if env.game_id != s.game_id or msg.raw != pack([msg.envelope_bytes, msg.signature]):
            # Another game's message, replayed or misrouted, or outer bytes of someone's own
            # making (the decoder refuses those): nobody's fault, and not taken.
            self._dropped += 1
            return
        if row.signer is Signer.NEWCOMER:
            if not take_sit(s, msg):  # a newcomer's ask, signed by its own key (sitdown.py)
                self._dropped += 1
            return
        if key is None or not (msg.raw in s.signed or msg.raw in self._vouched or msg.verify(key)):
            self._unsigned(msg)
            return
        if row.numbered:
            self._second(msg)  # proven whenever it comes, from a seat the table plays too
        if env.sender in s.table and not row.from_table_seat:
            self._dropped += 1  # the table plays this seat now: its player's word is over
            if row.numbered and len(self._dropped_words) < MAX_DROPPED:
                self._dropped_words.setdefault((env.sender, env.seq), msg.raw)
            return
        self._machines[row.machine](msg)

    def _take_reclaim(self, msg: SignedMessage) -> None:
        self._s.frames.add(msg.raw)
        take_offer(self._s, msg)  # the one word of a seat the table plays: asking it back

    def _take_rejoin(self, msg: SignedMessage) -> None:
        self._s.frames.add(msg.raw)
        if take_rejoin(self._s, msg):  # and, as it comes back, its fresh escrow
            self._send_own()
            self._drain_future()

    def _take_nolead(self, msg: SignedMessage) -> None:
        self._nolead(msg)
        self._drain_future()  # a roll call it completed moves the step on

    def _take_abort(self, msg: SignedMessage) -> None:
        s = self._s
        s.frames.add(msg.raw)
        if self._left(msg):
            return
        if not receive_abort(s, msg, self.receive):
            self._dropped += 1

    def _take_round(self, msg: SignedMessage) -> None:
        self._s.frames.add(msg.raw)
        self._takeover(msg)
        # A round decided may have moved the step on (a seat taken over, a hand voided):
        # messages that came before and waited for that step are due now.
        self._drain_future()

    def _take_part(self, msg: SignedMessage) -> None:
        """A step's part: kept as evidence while this peer's vote mutes it, else queued by its
        sender's number, to be judged in order against the step its ``prev`` names."""
        s, env = self._s, msg.envelope
        if (muted(s, msg) or muted_part(s, msg)) and not self._evidence:
            # After voting on a second seat, its parts count only as evidence; its votes count
            # as at every other peer (a round about this peer itself waits on them). After
            # voting, the round's seat's part counts only as a vote's evidence.
            self._dropped += 1
            self._keep_muted(msg)
            return
        if (env.sender, env.seq) in self._seen or s.logged(env.sender, env.seq) is not None:
            s.frames.add(msg.raw)
            return  # the same envelope under another signature of its signer's: one message
        buf = self._future.setdefault(env.sender, {})
        if env.seq < s.next_seq.get(env.sender, 0) or len(buf) >= MAX_FUTURE:
            self._dropped += 1  # stale, or no room yet: a copy relayed later may be taken
            return
        s.frames.add(msg.raw)
        buf[env.seq] = msg
        self._seen[(env.sender, env.seq)] = msg.raw
        self._drain_future()

    def _take_held(self, msg: SignedMessage) -> None:
        """Holding a verdict through the `end` step, this peer still takes a player's valid end
        message, the second of a pair included, and completes the step when it can: the peers
        that took that message before the pair's other one have finished."""
        s, env = self._s, msg.envelope
        step = s.step
        if held(s) is None or env.prev != step.prev or msg.raw in s.forged:
            return
        if env.sender in step.senders and env.sender not in step.got:
            if env.kind != step.kind or env.step != step.name or env.hand != step.hand:
                return
            if env.seq != s.next_seq.get(env.sender, 0):
                return  # the one valid number: every peer takes the same envelope
            try:
                step.parsed[env.sender] = RULES[step.kind].check(s, env.sender, env.body)
            except IllegalActionError:
                return
            step.got[env.sender] = msg
            s.next_seq[env.sender] = env.seq + 1
            if s.me is not None and env.sender != s.me:
                s.relays.append(msg)
        if step.complete:
            self._commit(step)

    def _after_end(self, msg: SignedMessage) -> None:
        """A finished peer still answers a vote in the `end` step: the voter gave up on a seat
        whose end message it lacks, and this peer's answer carries it, so both finish alike."""
        s, env = self._s, msg.envelope
        if env.kind != VOTE or env.game_id != s.game_id or env.prev != s.step.prev:
            return
        key = self._key_of(env.sender)
        if key is None or not msg.verify(key):
            return
        s.frames.add(msg.raw)
        self._answer_late(env.prev, env.body.get("player"))

    def _second(self, msg: SignedMessage) -> None:
        """Raise if ``msg`` has other envelope bytes than a message of its signer's under its
        number (taken or waiting), or than the signer's part of the step its ``prev`` names
        (taken). Either pair proves itself, whatever number the second carries and whenever it
        comes, so it is judged at once and not in number order: a log cut back to that step
        (6.11) holds no numbers in between. The number comes first, and a peer that found the
        step first turns to it when the other message comes (``after_abort``)."""
        s, env = self._s, msg.envelope
        number = (env.sender, env.seq)
        seen_raw = self._seen.get(number) or self._dropped_words.get(number)
        seen_raw = seen_raw or s.logged(env.sender, env.seq)
        if seen_raw is not None:
            seen = decode_frame(seen_raw)  # another frame under a taken number: rare
            if seen.envelope_bytes != msg.envelope_bytes:
                s.frames.add(msg.raw)
                raise CheatError(env.sender, ONE_NUMBER, pair(seen, msg))
            return
        part = self._part(env.sender, env.prev)
        if part is not None and part.envelope_bytes != msg.envelope_bytes:
            # The same envelope is the same message again: a replay of a part whose number
            # was voided when its seat came back (``s.returned``) proves nothing.
            s.frames.add(msg.raw)
            raise CheatError(env.sender, ONE_STEP, pair(part, msg))

    def _part(self, player: int, prev: bytes) -> SignedMessage | None:
        """What ``player`` signed for the step that began at ``prev``, if this peer took it."""
        s = self._s
        if prev == s.step.prev:
            return s.step.got.get(player)
        raw = s.part(prev, player)
        return decode_frame(raw) if raw is not None else None

    def _unsigned(self, msg: SignedMessage) -> None:
        """A frame its named sender did not sign: damage or a stranger (dropped), or a seated
        player signing in another's name, which its own signature proves."""
        env, genesis = msg.envelope, self._s.genesis
        for p in range(len(genesis.players) if genesis is not None else 0):
            if p != env.sender and msg.verify(self._s.holder(p).key):
                self._s.frames.add(msg.raw)
                self._s.forged.add(msg.raw)
                why = f"signed a {env.kind} message in another player's name"
                raise CheatError(p, why, (msg,))
        self._dropped += 1

    def _due(self, msg: SignedMessage) -> bool:
        """Whether a sender's next message can be judged now: it is chained to the log this
        peer holds, at the current step or an earlier one. A message chained elsewhere waits
        (its sender may be ahead, or an equivocation split the views, which the relayed
        messages will prove): it is never judged on a history this peer has not seen, so what
        is decided is decided alike by every honest peer."""
        prev = msg.envelope.prev
        return prev == self._s.step.prev or self._s.completed(prev)

    def _drain_future(self) -> None:
        s = self._s
        progress = True
        while progress and s.status in (Status.RUNNING, Status.AWAITING_GENESIS):
            progress = False
            for player, buf in list(self._future.items()):
                msg = buf.get(s.next_seq.get(player, 0))
                if msg is not None and self._due(msg):
                    del buf[msg.envelope.seq]
                    self._judge(msg)
                    progress = True
                    break

    def _judge(self, msg: SignedMessage) -> None:
        """Judge a sender's next message against the step its ``prev`` names."""
        s, env = self._s, msg.envelope
        if env.prev != s.step.prev:
            # A part of the sender's for that step would have made this a second message.
            raise CheatError(env.sender, f"sent {env.step} for a step it had no part in", (msg,))
        self._accept(msg)

    def _accept(self, msg: SignedMessage) -> None:
        s, env = self._s, msg.envelope
        step = s.step
        if env.sender not in step.senders:
            raise CheatError(env.sender, f"sent {env.step} out of turn", (msg,))
        if env.hand != step.hand or env.step != step.name:
            why = f"sent {env.step} of hand {env.hand} during {step}"
            raise CheatError(env.sender, why, (msg,))
        if env.kind != step.kind:
            raise CheatError(env.sender, f"sent a {env.kind} message in {step}", (msg,))
        first = step.got.get(env.sender)
        if first is not None:  # waiting behind its first, while a verdict is held (`end`)
            raise CheatError(env.sender, ONE_STEP, pair(first, msg))
        step.parsed[env.sender] = self._check(msg)
        step.got[env.sender] = msg
        s.next_seq[env.sender] = env.seq + 1
        waiting = [
            m for m in self._future.get(env.sender, {}).values() if m.envelope.prev == step.prev
        ]
        if waiting:  # a second message for this step came first, under a later number
            second = min(waiting, key=lambda m: m.envelope.seq)
            raise CheatError(env.sender, ONE_STEP, pair(msg, second))
        if s.me is not None and env.sender != s.me:
            s.relays.append(msg)
        nolead = said(s).get(env.sender)
        if nolead is not None:  # it led after saying the card was not its (rollcall.py)
            raise CheatError(env.sender, ONE_STEP, pair(nolead, msg))
        if step.any_one:
            step.senders = (env.sender,)
        if step.complete:
            self._commit(step)

    def _nolead(self, msg: SignedMessage) -> None:
        """A player's word that the lead card is not its (rollcall.py): taken, and passed on,
        only while this peer waits on the first lead; kept if that step is still to come."""
        s, env = self._s, msg.envelope
        told = said(s).get(env.sender) if env.prev == s.step.prev else None
        part = self._part(env.sender, env.prev)
        if part is not None and not roll_call_step(s, part.envelope.step):
            part = None  # a nolead elsewhere is junk, dropped whichever came first (take_nolead)
        for other in (part, told):
            if other is not None and other.raw != msg.raw:
                # Its lead (or any part) of that very step, or another nolead of its for it
                # under another number: two messages for one step.
                s.frames.add(msg.raw)
                raise CheatError(env.sender, ONE_STEP, pair(other, msg))
        if env.sender in s.table or early(s, msg):
            return
        if muted_part(s, msg) and not self._evidence:
            self._dropped += 1  # the round's seat's word, after voting: only as evidence
            self._keep_muted(msg)
            return
        if not take_nolead(s, msg):
            self._dropped += 1
            return
        s.frames.add(msg.raw)
        if s.me is not None and env.sender != s.me:
            s.relays.append(msg)
        self._everyone_said()

    def _everyone_said(self) -> bool:
        """Complete the roll call's step on the ``nolead``s once every player has said one (one
        lied); whether it did. Not while this peer's own seat is voted on in it: the voters take
        its ``nolead`` only as a vote's evidence, so it waits, as they do, for the round."""
        s = self._s
        if s.status is not Status.RUNNING or not everyone_said(s):
            return False
        r = s.round  # a round voting on this seat in this step, and still open: wait
        if (
            r is not None
            and (r.prev, r.about) == (s.step.prev, s.me)
            and r.state is not RoundState.PRESENT
        ):
            return False
        complete(s, s.step)
        self._commit(s.step)
        return True

    def _check(self, msg: SignedMessage) -> object:
        """The step's own checks; any fault they find is a cheat by the sender."""
        env, kind = msg.envelope, self._s.step.kind
        try:
            return RULES[kind].check(self._s, env.sender, env.body)
        except (DeckCheatError, IllegalActionError, CoinFlipCheatError, GenesisError) as e:
            raise CheatError(env.sender, _reason(e), (msg,)) from None
        except DeckError as e:
            raise CheatError(env.sender, f"bad {kind} message: {e}", (msg,)) from None

    def _commit(self, step: Step) -> None:
        """The step is complete: its entries go into the log, the next step begins."""
        s = self._s
        s.steps[step.prev] = StepRecord({p: m.raw for p, m in step.got.items()})
        for m in step.in_order():
            s.log(m, part=True)
        self._round_done(step)
        if nobody_made(step):
            no_lead(s, step)  # every player said the card was not its: one lied
        else:
            RULES[step.kind].advance(s, step)
        self._void_numbers(s)
        self._play_table()
        self._send_own()
        if self._early and self._s.genesis is not None:
            early, self._early = self._early, []
            for msg in early:  # each on the whole path: a cheat among them stops none after it
                self.receive(msg)
        self._vote_left()
        self._offer()
        self._rejoin()
        if s.later and s.status is Status.RUNNING:
            later, s.later = s.later, []
            for msg in later:
                if msg.envelope.kind == NOLEAD:
                    self._nolead(msg)
                else:
                    self._takeover(msg)

    def _round_done(self, step: Step) -> None:
        """The step's round, as the step completes: its votes answered with the parts this
        peer took, and the seats whose own part came noted (``GameState.part_came``)."""
        s = self._s
        r = s.round
        if r is None or r.prev != step.prev:
            return
        if r.state is RoundState.VOTING:
            # A vote came before the seat's part did: the voter took that part only as a
            # vote's evidence, so this peer answers it with the part, as for a late vote,
            # unless it voted on that seat itself. A vote on another seat of the step stops
            # none of it: the voters wait on this peer's word about each seat.
            if s.me not in r.votes:
                self._answer(step.prev, r.about)
            self._answer_others(step, r)
        for seat in step.got.keys() & {r.about, *r.others}:
            s.part_came(seat)

    def _void_numbers(self, s: GameState) -> None:
        """A seat back from the table: the numbers it signed under before it was taken over
        are void, here as in the state."""
        for player in s.returned:
            self._future.pop(player, None)
            self._seen = {k: v for k, v in self._seen.items() if k[0] != player}
            self._dropped_words = {k: v for k, v in self._dropped_words.items() if k[0] != player}
            s.numbers.pop(player, None)
        s.returned = []

    # -- takeover ------------------------------------------------------------------------------

    def _play_table(self) -> None:
        """Compute the parts of the current step that seats taken over owe: every peer does,
        alike, so they are neither sent nor logged."""
        s = self._s
        if s.status is not Status.RUNNING or not s.table:
            return
        step = s.step
        for player in step.senders:
            if player not in s.table or step.has(player):
                continue
            boundary = step.kind in BOUNDARY_STEPS
            body = table_part(s, player) if boundary else table_body(s, player)
            if body is None:
                continue
            if player == s.me and s.flow is not None:
                s.flow.followed = True  # its deck follows the table's parts
                if step.kind is StepKind.PASS_COMMIT:
                    s.flow.choose_pass(s.table[player].passes[step.hand])
            try:
                step.parsed[player] = RULES[step.kind].check(s, player, body)
            except (DeckCheatError, DeckError, IllegalActionError) as e:
                # A seat the table plays cannot cheat: what it computes fails only on a deck
                # another seat spoiled, which the hand's audit names.
                raise AssertionError(f"the table's own {step} does not check: {e}") from e
            step.table.add(player)
            if step.any_one:
                step.senders = (player,)
            if step.complete:
                self._commit(step)
                return

    def _accused(self, player: int) -> bool:
        """Whether this peer's accusation of ``player`` stands in the step's round and may
        still be decided: about the round's own seat, or about a second seat while a void may
        still come (void.pending). A defence of it does not keep this peer from accusing it
        once its own clock runs out."""
        s = self._s
        r = s.round
        if r is None or r.prev != s.step.prev or s.me is None:
            return False
        mine = votes_about(r, player).get(s.me)
        if mine is None or defence(mine):
            return False
        if r.state is RoundState.PRESENT:
            return False  # decided: the seat was there, and a clock that runs out again ends it
        return player == r.about or pending(s, r)

    def _may_vote(self, player: int) -> bool:
        s = self._s
        if not able(s) or s.me is None or player in (s.me, *s.table) or s.me in s.table:
            return False
        if not 0 <= player < s.players:
            return False
        r = s.round
        if r is None or r.prev != s.step.prev:
            return True
        mine = r.votes.get(s.me)
        ok = mine is None or defence(mine)
        return r.about == player and r.state is RoundState.VOTING and ok

    def _vote(self, player: int, ending: str) -> None:
        """Vote, once per seat, step and kind (a defence, an accusation): the vote is saved with
        the choices before it leaves, so a peer restarted in the round sends the same bytes
        again, never a second, different vote of that kind."""
        s = self._s
        msg = self._signed_vote(player, lambda: vote_body(s, player, ending), other=False)
        s.voted.add(s.step.prev)
        s.outbox.append(msg)
        self.receive(msg)

    def _signed_vote(
        self, player: int, body: Callable[[], dict[str, Any]], *, other: bool
    ) -> SignedMessage:
        """This peer's vote on ``player`` in the current step: the one it saved, else a new one,
        saved. The round may have turned to another seat since its first vote (void.promote):
        the first vote, about another seat, is kept, and this one saved with the others."""
        s = self._s
        prev = s.step.prev
        first = s.choices.get(VOTE)
        firsts = [first["frame"]] if isinstance(first, dict) and first.get("prev") == prev else []
        saved = s.choices.get(_OTHERS)
        frames = saved["frames"] if isinstance(saved, dict) and saved.get("prev") == prev else []
        made = body()
        for raw in (*firsts, *frames):
            mine = decode_frame(raw)
            same = (mine.envelope.body.get("ending") == HERE) == (made["ending"] == HERE)
            if mine.envelope.body.get("player") == player and same:
                return mine  # a defence and an accusation of one seat are two votes
        msg = self._round_message(VOTE, made, prev)
        if other or firsts:
            s.choices[_OTHERS] = {"prev": prev, "frames": [*frames, msg.raw]}
        else:
            s.choices[VOTE] = {"prev": prev, "frame": msg.raw}
        return msg

    def _vote_left(self) -> None:
        """A seat whose player signed that it leaves is voted on at once, in every step until
        it is taken over."""
        s = self._s
        for player in sorted(s.left):
            if s.status is Status.RUNNING and self._may_vote(player):
                self._vote(player, "left")

    def _left(self, msg: SignedMessage) -> bool:
        """A player's signed leave, once its seat can be taken over: noted, passed on and voted
        on, instead of ending the game."""
        s, env = self._s, msg.envelope
        body = env.body
        if not able(s) or body.get("ending") != "left" or body.get("culprit") != env.sender:
            return False
        if env.hand == 0:
            # Signed before the seats were drawn (the seating is hand 0): it ends the game at
            # every peer, whichever step each has reached, as at the peers still seating.
            return False
        if env.sender == s.me or not isinstance(body.get("reason"), str):
            return False
        if s.me is None and not self._evidence:
            return False  # the audit of the leaver's own log, which ends with its leave
        if env.sender not in s.left:
            s.left[env.sender] = msg.raw
            if s.me is not None:
                s.relays.append(msg)
        self._vote_left()
        return True

    def _take_evidence(self, raw: bytes, about: int) -> Evidence:
        """One frame a vote carries, judged as if it had come alone: the seat's part of the
        step, its leave, or nothing of either."""
        s = self._s
        try:
            frame = decode_frame(raw)
        except WireError:
            return Evidence.NOTHING
        env = frame.envelope
        if env.sender != about:
            return self._lead_evidence(frame)
        if env.kind in TAKEOVER_KINDS:
            return self._round_evidence(frame, about)
        self._take_as_evidence(frame)
        if env.kind == "abort":
            return Evidence.LEFT if s.left.get(about) == frame.raw else Evidence.NOTHING
        if env.kind == NOLEAD:
            told = said(s).get(about)
            return Evidence.PART if told is not None and told.raw == frame.raw else Evidence.NOTHING
        part = s.step.got.get(about)
        return Evidence.PART if part is not None and part.raw == frame.raw else Evidence.NOTHING

    def _lead_evidence(self, frame: SignedMessage) -> Evidence:
        """Another player's part of a roll call (its lead), carried by a vote about a seat gone
        there: the peer that took it answered with it, since voters take it no other way. It
        completes the step (a PART), or is nothing."""
        s, env = self._s, frame.envelope
        if env.prev != s.step.prev or env.step != s.step.name or not awaits_holder(s):
            return Evidence.NOTHING
        self._take_as_evidence(frame)
        got = s.step.got.get(env.sender)
        done = s.step.prev != env.prev or (got is not None and got.raw == frame.raw)
        return Evidence.PART if done else Evidence.NOTHING

    def _takeover(self, msg: SignedMessage) -> None:
        """A vote or a recovery share: taken into the step's round, then this peer acts on the
        round as it now stands (its own answer, its share, a second seat's defence)."""
        s, env = self._s, msg.envelope
        if env.kind == VOTE:
            if self._take_vote(msg):
                return
        elif take_share(s, msg) is not None:
            self._seated()
            return
        if self._s is not s:
            return  # a vote's evidence had this peer follow the others: its new state took all
        r = s.round
        if r is None or r.prev != s.step.prev or s.status is not Status.RUNNING:
            return
        if self._act_on_round(r) or s is not self._s:
            return  # seated, or it followed: its state was rebuilt
        self._answer_second_seats(r)
        if not self._everyone_said():  # the round about this seat is over: its own word counts
            self._send_own()  # a part held back while a void could come (void.holding)
        if s is self._s and s.round is r and r.state is RoundState.PRESENT and r.muted:
            muted, r.muted = r.muted, []
            for part in muted:  # decided there: the parts it took only as evidence count now
                self.receive(part)

    def _take_vote(self, msg: SignedMessage) -> bool:
        """Take a vote into its round; whether that was all (it followed, or a re-deal)."""
        s, env = self._s, msg.envelope
        check_vote(s, msg)  # malformed: a cheat at every peer, the one it names included
        about, prev = env.body.get("player"), env.prev
        recent = list(s.steps)[-_AHEAD:] if about == s.me else []
        if about == s.me and prev not in s.mute and prev in recent and s.me in s.steps[prev].got:
            # Voted on in a step it completed with its own part: it follows only once the
            # others have voted it out without that part, never on one peer's word.
            if self._voted_out(prev, msg):
                self._follow(prev, list(s.against.pop(prev).values()))
            return True
        take_vote(s, msg, self._take_evidence)
        if env.prev != s.step.prev and s.completed(env.prev):
            self._answer_late(env.prev, env.body.get("player"))
        return self._redeal()

    def _act_on_round(self, r: Round) -> bool:
        """What the round now asks of this peer: to follow (the seat voted out is its own), to
        share toward the seat's recovery, or to answer a vote with what it holds of the seat.
        Whether a share seated the seat (all is done)."""
        s = self._s
        if r.state is RoundState.RECOVERING and r.about == s.me:
            # This peer is back, but the others have agreed it was gone: its seat is the
            # table's now. It follows the game, signing nothing, blaming no one.
            if r.prev not in s.mute:
                self._follow(r.prev, [r.votes[p] for p in sorted(r.votes)])
        elif r.state is RoundState.RECOVERING:
            early, r.early = r.early, []
            for share in early:  # shown before this peer decided the round
                if take_share(s, share) is not None:
                    self._seated()
                    return True
            self._share(r.about)
        elif r.state is RoundState.VOTING and s.me not in r.votes and self._holds_answer(r):
            # It holds the seat's part (at a roll call, its nolead), or its leave: it answers at
            # once, with them; with the part, as a defence, which its own clock may still turn
            # into an accusation.
            self._vote(r.about, "left" if r.about in s.left else HERE)
        return False

    def _holds_answer(self, r: Round) -> bool:
        """Whether this peer may vote on the round's seat and holds what answers for it: its
        part of the step, its leave, its nolead, or (a second seat in trouble) what it owes."""
        s = self._s
        if not self._may_vote(r.about):
            return False
        held = s.step.has(r.about) or r.about in s.left or r.about in said(s)
        return held or bool(r.others and owed(s, r.about))

    def _answer_second_seats(self, r: Round) -> None:
        """Answer at once for each second seat in trouble whose owed part or leave this peer
        holds, once."""
        s = self._s
        for other in sorted(r.others):
            if s.me in r.others[other] or s.round is not r:
                continue
            if not self._may_vote_other(other, defend=True):
                continue
            if owed(s, other) or other in s.left:
                # It holds what the second seat owes, or its leave: it answers at once.
                self._vote_other(other, "left" if other in s.left else HERE)

    def _keep_muted(self, msg: SignedMessage) -> None:
        """Keep a part taken only as a vote's evidence, to take again should the round be
        decided present: its relayed copies may all have come before that."""
        r = self._s.round
        if r is not None and len(r.muted) < self._s.players:
            r.muted.append(msg)

    def _voted_out(self, prev: bytes, vote: SignedMessage) -> bool:
        """Whether ``vote``, about this seat in the step at ``prev`` that it completed with its
        own part, is the last the others needed to take the seat over: every survivor has
        accused it, and none carried that part (the round's rule, ``decide``). A vote that
        carried it, or a defence, shows the others had it: the seat was there."""
        s = self._s
        assert s.me is not None
        body = vote.envelope.body
        mine = s.steps[prev].got[s.me]
        evidence = body.get("evidence")
        votes = s.against.setdefault(prev, {})
        if body.get("ending") == HERE or (isinstance(evidence, list) and mine in evidence):
            votes.clear()
            s.cleared.add(prev)
            return False
        if prev in s.cleared:
            return False
        votes.setdefault(vote.envelope.sender, vote)
        recent = set(list(s.steps)[-_AHEAD:])
        for old in [k for k in s.against if k not in recent]:
            del s.against[old]
        s.cleared &= recent
        return all(p in votes for p in survivors(s, s.me))

    def _seated(self) -> None:
        """A seat has just been taken over: the table makes its part of the step, and this
        peer its own. At a roll call the seat was awaited until now: if every other player has
        said the card is not its, one lied, and the step completes with those ``nolead``s."""
        self._play_table()
        if not self._everyone_said():
            self._send_own()

    def _redeal(self) -> bool:
        """Open the seats whose secrets the votes say are lost, void the hand and deal the next
        (redeal.py); whether it did."""
        s = self._s
        turned = promote(s)
        if turned is not None:
            decide(s, turned)  # the round is about the other seat now
        seats = due(s)
        if seats is None:
            return False
        open_seats(s, seats)
        self._play_table()
        self._send_own()
        self._vote_left()
        self._offer()
        return True

    def _may_vote_other(self, player: int, *, defend: bool = False) -> bool:
        """Whether this peer may vote on ``player``, a second seat in trouble in the step of an
        open round: one that owes its vote or share in it, or its part of the step."""
        s = self._s
        r = s.round
        if not able(s) or s.me is None or s.me in s.table or r is None or r.prev != s.step.prev:
            return False
        if r.state is RoundState.PRESENT or player == r.about:
            return False
        if not defend and any(shown(s, r, t) for t in trouble(s, r)):
            return False
        if player == s.me or player in s.table or not 0 <= player < s.players:
            return False
        mine = r.others.get(player, {}).get(s.me)
        return mine is None or defence(mine)

    def _vote_other(self, player: int, ending: str) -> None:
        """Vote on a second seat in trouble in this step, with what this peer holds of it; saved
        with the choices before it leaves, as the first vote is."""
        s = self._s

        def body() -> dict[str, Any]:
            evidence = [s.left[player]] if player in s.left else []
            held = owed(s, player)
            if held is not None:
                evidence.append(held.raw)
            return {"player": player, "ending": ending, "evidence": evidence}

        msg = self._signed_vote(player, body, other=True)
        s.voted.add(s.step.prev)
        s.outbox.append(msg)
        self.receive(msg)

    def _take_as_evidence(self, frame: SignedMessage) -> None:
        """Take a frame a vote carries as if it had come alone, unless it has come already."""
        if frame.raw not in self._s.frames:
            self._evidence = True
            try:
                self._receive(frame)
            finally:
                self._evidence = False

    def _round_evidence(self, frame: SignedMessage, about: int) -> Evidence:
        """A vote or share the seat signed in the step, carried by a vote about it: taken as if
        it had come alone; ANSWER if it is valid (the seat is alive in the round). Judged on
        the frame alone, not on this peer's round, which may have turned (void.promote)."""
        r = self._s.round
        if r is None or frame.envelope.prev != r.prev:
            return Evidence.NOTHING
        self._take_as_evidence(frame)
        return Evidence.ANSWER if frame.raw in self._s.frames else Evidence.NOTHING

    def _answer_late(self, prev: bytes, about: object) -> None:
        """A vote for a step this peer completed with the seat's part: the voter took that
        part only as evidence once it had voted, so this peer answers, for that step, with it."""
        if prev not in self._s.voted:
            self._answer(prev, about)

    def _answer(self, prev: bytes, about: object) -> None:
        """Defend ``about`` for the step at ``prev`` with its part there, if this peer took it."""
        s = self._s
        if s.me is None or not isinstance(about, int) or about == s.me:
            return
        raw = s.part(prev, about) or self._roll_call_part(prev)
        if raw is None or s.me in s.table:
            return
        s.voted.add(prev)
        self._defend(prev, about, raw)

    def _defend(self, prev: bytes, about: int, raw: bytes) -> SignedMessage:
        """Send a defence of ``about`` for the step at ``prev``, carrying ``raw``, its part."""
        s = self._s
        body = {"player": about, "ending": HERE, "evidence": [raw]}
        msg = self._round_message(VOTE, body, prev)
        s.frames.add(msg.raw)
        s.outbox.append(msg)
        return msg

    def _answer_others(self, step: Step, r: Round) -> None:
        """The same for a second seat in trouble whose part this peer took in the step and has
        not voted on: a peer that voted on it before the part came took the part only as a
        vote's evidence, and waits for it."""
        s = self._s
        if s.me is None or s.me in s.table:
            return
        for other in sorted(r.others):
            part = step.got.get(other)
            if other == s.me or part is None or s.me in r.others[other]:
                continue
            r.others[other][s.me] = self._defend(step.prev, other, part.raw)
            s.voted.add(step.prev)  # one defence of the seat in this step, never a second

    def _roll_call_part(self, prev: bytes) -> bytes | None:
        """The part that completed the roll call at ``prev`` (its lead, or its fourth
        exposure), whoever made it: voters there took it only as a vote's evidence."""
        s = self._s
        for player in s.everyone():
            raw = s.part(prev, player)
            if raw is not None and roll_call_step(s, decode_frame(raw).envelope.step):
                return raw
        return None

    def _follow(self, prev: bytes, votes: list[SignedMessage]) -> None:
        """The others voted this seat out in the step at ``prev``. It may hold its own part of
        that step, which they decided without: so it rebuilds its state from the log before the
        step, muted in it, takes the votes again and follows, the table playing its seat once
        the shares come. Its log stays the others'."""
        s = self._s
        start = s.index[prev]
        entries = s.read(0, start)
        # The others' messages from that step on may hold in their history too: taken again.
        since = [decode_frame(raw) for raw in s.read(start, s.count)]
        parts = [m for m in (*since, *s.step.got.values()) if m.envelope.sender != s.me]
        held = [*parts, *s.later, *(m for buf in self._future.values() for m in buf.values())]
        views = s.views
        self._s = GameState(s.game_id, s.host_key, s.identity, self._secret, s.choices)
        self._s.views = views
        self._s.history, self._s.window = s.history, s.window
        self._s.min_proof_rounds = s.min_proof_rounds
        self._s.mute = s.mute | {prev}
        self._seen, self._future, self._early, self._vouched = {}, {}, [], set()
        self._dropped_words = {}
        logged = [decode_frame(raw) for raw in entries]
        self._replay_own(logged)
        for msg in logged:
            self.receive(msg)
        self._replaying, self._replaying_rounds = {}, {}
        self.drain()  # all of it is on disk already
        self.take_relays()
        for msg in [*votes, *held]:
            self.receive(msg)

    def _offer(self) -> None:
        """While the table plays this seat and it has a fresh secret, ask it back for the
        coming hand, once per hand."""
        s = self._s
        if s.status is not Status.RUNNING or next_hand(s) == self._offered:
            return
        if s.step.kind in (StepKind.REKEY, StepKind.WELCOME):
            return  # its reclaim for this hand is being taken: the next comes if refused
        msg = sign_offer(s)
        sit = sign_sit(s) if msg is None else None
        if sit is not None:
            self._offered = next_hand(s)
            s.outbox.append(sit)  # a newcomer's ask for the coming hand (sitdown.py)
            take_sit(s, sit)
        if msg is not None:
            self._offered = next_hand(s)
            s.outbox.append(msg)
            s.frames.add(msg.raw)
            take_offer(s, msg)

    def _rejoin(self) -> None:
        """This seat's escrow of its fresh secret, once every present player has sent its own
        in ``rekey``: the others carry it in ``welcome``."""
        msg = sign_rejoin(self._s)
        if msg is not None:
            self._s.outbox.append(msg)
            self._s.frames.add(msg.raw)
            take_rejoin(self._s, msg)

    def _share(self, about: int) -> None:
        """Show this player's escrow share of the seat the survivors agreed to take over."""
        s = self._s
        r = s.round
        if s.me is None or r is None or s.me in r.shares or s.me not in survivors(s, about):
            return
        share = s.shares.get(about)
        if share is None:
            return
        body = {"player": about, "share": share}
        msg = self._round_message(RECOVER, body, r.prev)
        s.outbox.append(msg)
        self.receive(msg)

    # -- sending -------------------------------------------------------------------------------

    def _send_own(self) -> None:
        """Send this peer's message for the current step if it needs no decision from the seat."""
        s = self._s
        if s.me is None or s.me not in s.step.senders or s.me in s.step.got:
            return
        if s.status is not Status.RUNNING or s.silent or holding(s):
            return
        logged = self._replaying.get((s.me, s.step.prev, s.step.name))
        saved = dict(s.choices) if logged is not None else None  # send rules replace, never mutate
        body = RULES[s.step.kind].send(s)
        if saved is not None:
            # Making a part saves what it chose (a seats part, the reclaims it held): replaying
            # an earlier step, that would overwrite the choice saved for the step under way.
            s.choices.clear()
            s.choices.update(saved)
        if body is None:
            return
        if logged is not None:
            # Replaying its log, this peer takes its own part as it made it then, from the
            # log: signed again now, it could differ (a seats part names the reclaims it held,
            # which no log holds) and be a second message under its number.
            self.receive(logged)
            return
        self._send(s.step.name, body)

    def _round_message(self, kind: str, body: dict[str, Any], prev: bytes) -> SignedMessage:
        """This player's vote or share in a takeover round. Replaying its log, the one the log
        holds: round messages carry the number of its next part without using it up, and its
        own part of the step, taken from the log at once, may have been made after the round
        the first time, so one signed again now could carry a later number."""
        s = self._s
        logged = self._replaying_rounds.get(_round_key(s.me, kind, prev, body))
        return logged if logged is not None else s.sign(kind, kind, body, prev)

    def _send(self, step_name: str, body: dict[str, Any]) -> None:
        """Sign this player's message for the current step (``step_name``, as the wire names
        it) and take it through the same path as anyone's."""
        step = self._s.step
        if step_name != step.name:
            raise ProtocolError(f"a player sends only for the current step, not {step_name}")
        msg = self._s.sign(step.name, step.kind, body, step.prev)
        self._s.outbox.append(msg)
        self.receive(msg)


def _decoded(raw: bytes) -> SignedMessage | None:
    """A log entry's message; None for one that does not decode (the replay skips it)."""
    try:
        return decode_frame(raw)
    except WireError:
        return None


def _round_key(sender: object, kind: str, prev: bytes, body: dict[str, Any]) -> tuple[Any, ...]:
    player, ending = body.get("player"), body.get("ending")
    return (sender, kind, prev, player if isinstance(player, int) else None,
            ending if isinstance(ending, str) else None)  # fmt: skip


def _reason(e: Exception) -> str:
    if isinstance(e, DeckCheatError | CoinFlipCheatError):
        return e.reason
    if isinstance(e, IllegalActionError):
        return e.rule
    return str(e)
