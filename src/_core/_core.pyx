# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, binding=False, embedsignature=True
"""Native core of balout: the HandState type over the C rules engine.

The rules live in engine.c; this module exposes them with as little Python
as possible per step. Argument checking of the slow paths (strings, numpy
integers, bad values) is delegated to balout.actions / balout.errors.
"""
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcmp, memcpy
from cpython.long cimport PyLong_AsLongAndOverflow

cdef extern from *:
    int __builtin_ctzll(unsigned long long) nogil
    int __builtin_popcountll(unsigned long long) nogil

engine_init()


# Ctrl-C during a long native loop (PIMC, flat Monte Carlo, ISMCTS, worlds):
# the loop asks stop_requested every few hundred milliseconds; in the main
# thread that runs Python's signal handlers, and a KeyboardInterrupt they
# raise stays set until the loop returns and _raise_if_stopped raises it.
cdef extern from "Python.h":
    unsigned long PyThread_get_thread_ident() nogil
    int _check_signals "PyErr_CheckSignals"()   # no `except`: the error stays set
    void *PyErr_Occurred()

cdef unsigned long _main_thread = PyThread_get_thread_ident()


cdef int _stop_requested() noexcept nogil:
    if PyThread_get_thread_ident() != _main_thread:  # signals reach the main thread only
        return 0
    with gil:
        return _check_signals() != 0


cdef int _raise_if_stopped() except -1:
    return -1 if PyErr_Occurred() != NULL else 0


stop_requested = _stop_requested

PHASES = ("auction", "doubling", "declare", "play", "done")
NUM_DISTINCT_ACTIONS = NUM_ACTIONS
MAX_HAND_ACTIONS = MAX_ACTIONS       # the most actions a hand can hold
RULE_FIELDS = (
    "variant", "first_lead", "forced_take_on_jack", "overtrump_when_cutting",
    "undertrump", "partner_winning_frees", "declarations", "litige_pot",
    "capot", "sun_overcall", "doubling", "declaration_order",
    "contract_counts_declarations", "three_multiplier", "target",
)


cdef Rules make_rules(tuple t) except *:
    cdef Rules r
    (r.variant, r.first_lead, r.forced_take_on_jack, r.overtrump_when_cutting,
     r.undertrump, r.partner_winning_frees, r.declarations, r.litige_pot,
     r.capot, r.sun_overcall, r.doubling, r.declaration_order,
     r.contract_counts_declarations, r.three_multiplier, r.target) = t
    return r


cdef inline list mask_to_list(uint64_t m):
    cdef list out = []
    while m:
        out.append(__builtin_ctzll(m))
        m &= m - 1
    return out


cdef object _to_action = None   # balout.actions.to_action: names and other objects to action ids


cdef class HandState:
    """One hand: auction, doubling, declarations, play and scoring.

    Low-level type; use balout.State, which adds construction from names,
    views and records. Actions are integers (0..31 cards, 32.. decisions).
    """

    def _setup(self, str variant, object options, tuple rules not None, bytes deck not None,
               int dealer, int score0, int score1, int pot):
        # callers (balout.State) validate every argument first
        cdef Rules r = make_rules(rules)
        cdef const uint8_t *d = deck
        self.variant = variant
        self.options = options
        hand_new(&self.h, &r, d, dealer, score0, score1, pot)

    # ------------------------------------------------------------ stepping

    cpdef list legal_actions(self):
        """Legal actions of the seat to act, as sorted integers."""
        return mask_to_list(hand_legal(&self.h))

    def legal_mask(self):
        """Legal actions as a bit mask over action ids (cards are bits 0-31)."""
        return hand_legal(&self.h)

    def apply_action(self, action):
        """Apply an action (int id, or a string such as 'TS', 'take:H')."""
        global _to_action
        cdef int overflow = 0
        cdef long a = -1
        if type(action) is int or (isinstance(action, int) and not isinstance(action, bool)):  # a Card too
            a = PyLong_AsLongAndOverflow(action, &overflow)
            if overflow:
                a = -1
        else:
            if _to_action is None:  # imported once: balout.actions imports this module
                from balout.actions import to_action
                _to_action = to_action
            a = _to_action(self, action)
        if a < 0 or a >= NUM_ACTIONS or hand_apply(&self.h, <int>a) != OK:
            from balout.errors import illegal_action
            raise illegal_action(self, action, a)

    push = apply_action

    def undo(self):
        """Take back the last action (auction, doubling or card)."""
        if hand_undo(&self.h) != OK:
            from balout.errors import BaloutError
            raise BaloutError("nothing to undo: no action has been applied to this hand")

    pop = undo

    cpdef bint is_terminal(self):
        return self.h.phase == PHASE_DONE

    def current_player(self):
        """Seat to act, or -1 when the hand is over."""
        return self.h.to_act

    def clone(self):
        cdef HandState c = type(self).__new__(type(self))
        c.h = self.h
        c.variant = self.variant
        c.options = self.options
        return c

    def with_hands(self, hands):
        """A copy whose current hands are `hands` (4 masks): the same cards in
        total and the same number per seat. For worlds of a search."""
        cdef HandState c
        masks = [int(m) for m in hands]
        if len(masks) != 4:
            raise ValueError("four hands, one mask per seat")
        total = 0
        for s in range(4):
            if not 0 <= masks[s] < (1 << 32) or bin(masks[s]).count("1") != bin(self.h.hand[s]).count("1"):
                raise ValueError(f"hand {s} must have {bin(self.h.hand[s]).count('1')} cards")
            if total & masks[s]:
                raise ValueError("a card is in two hands")
            total |= masks[s]
        if total != (self.h.hand[0] | self.h.hand[1] | self.h.hand[2] | self.h.hand[3]):
            raise ValueError("the hands must hold the same cards as this state's hands")
        c = self.clone()
        for s in range(4):
            c.h.hand[s] = masks[s]
        return c

    def initial_state(self):
        """A copy of this hand as it was dealt, before any action."""
        c = self.clone()
        hand_reset(&(<HandState>c).h)
        return c

    def __copy__(self):
        return self.clone()

    def __deepcopy__(self, memo):
        return self.clone()

    def __eq__(self, other):
        if not isinstance(other, HandState):
            return NotImplemented
        cdef HandState o = other
        return self.variant == o.variant and memcmp(&self.h, &o.h, sizeof(Hand)) == 0

    __hash__ = None

    def __reduce__(self):
        return (_rebuild, (type(self), self.variant, dict(self.options), self._rules_tuple(),
                           self.deck, self.dealer, tuple(self.match_before), self.pot_before,
                           bytes(self.action_history)))

    # ------------------------------------------------------------ reading

    def _rules_tuple(self):
        cdef dict r = self.h.rules
        return tuple(r[f] for f in RULE_FIELDS)

    @property
    def phase_id(self):
        return self.h.phase

    @property
    def phase(self):
        """'auction', 'doubling', 'declare', 'play' or 'done'."""
        return PHASES[self.h.phase]

    @property
    def to_act(self):
        return self.h.to_act

    @property
    def dealer(self):
        return self.h.dealer

    @property
    def deck(self):
        return bytes(self.h.deck[:32])

    @property
    def offer_id(self):
        return self.h.offer

    @property
    def auction_round(self):
        """1 or 2; 3 while the other players may still overcall a Hokm."""
        return self.h.round

    @property
    def bidder(self):
        """Seat that took the contract (the ashkal caller), or -1."""
        return self.h.bidder

    @property
    def kind_id(self):
        return self.h.kind

    @property
    def trump_id(self):
        return self.h.trump

    @property
    def receiver(self):
        """Seat that receives the offer once the contract is fixed, or -1."""
        return self.h.receiver

    @property
    def multiplier(self):
        return self.h.multiplier

    @property
    def gahwa(self):
        return bool(self.h.gahwa)

    @property
    def last_raiser(self):
        return self.h.last_raiser

    @property
    def hand_masks(self):
        """Current holding of each seat as 32-bit masks."""
        return tuple(self.h.hand[s] for s in range(4))

    @property
    def dealt_masks(self):
        """Each seat's full 8 cards once the deal is complete (else zeros)."""
        return tuple(self.h.dealt[s] for s in range(4))

    @property
    def played_mask(self):
        return self.h.played

    @property
    def leader(self):
        return self.h.leader

    @property
    def trick_ids(self):
        """Cards of the trick in progress, in playing order."""
        return tuple(self.h.trick[i] for i in range(self.h.trick_len))

    @property
    def winning_seat(self):
        """Seat currently winning the trick in progress, or -1."""
        return self.h.win_seat if self.h.trick_len else -1

    @property
    def tricks_played(self):
        return self.h.ntricks

    @property
    def trick_winners(self):
        return tuple(self.h.trick_winners[i] for i in range(self.h.ntricks))

    @property
    def card_points(self):
        return (self.h.card_points[0], self.h.card_points[1])

    @property
    def tricks_won(self):
        return (self.h.tricks_won[0], self.h.tricks_won[1])

    @property
    def belote_seat(self):
        return self.h.belote_seat

    @property
    def declaration_values(self):
        """Value of each seat's best set of declarations (before comparison)."""
        return tuple(self.h.seat_decl_value[s] for s in range(4))

    @property
    def declaration_cards(self):
        """Cards used by each seat's declarations, as masks."""
        return tuple(self.h.seat_decl_cards[s] for s in range(4))

    @property
    def declared_seats(self):
        """Seats whose declarations count (bit mask)."""
        return self.h.declared

    @property
    def undecided_seats(self):
        """Seats that still have to choose whether to declare (bit mask)."""
        return self.h.undecided

    @property
    def scoring_declarations(self):
        """(team, value) of the declarations that score, team -1 if none."""
        return (self.h.decl_team, self.h.decl_value)

    @property
    def match_before(self):
        return (self.h.match_before[0], self.h.match_before[1])

    @property
    def pot_before(self):
        return self.h.pot_before

    @property
    def action_history(self):
        """Every action applied to this hand, in order."""
        return tuple(self.h.actions[i] for i in range(self.h.nactions))

    @property
    def rules_tuple(self):
        return self._rules_tuple()

    def _result(self):
        """Raw result: outcome id, decl team/value, belote, capot, match winner,
        card points, hand score, match score, litige pot."""
        cdef Result r = self.h.result
        return (r.outcome, r.decl_team, r.decl_value, r.belote_team, r.capot_team,
                r.match_winner, (r.card_points[0], r.card_points[1]),
                (r.hand_score[0], r.hand_score[1]),
                (r.match_score[0], r.match_score[1]), r.litige_pot)


def _rebuild(cls, variant, options, rules, deck, dealer, match_before, pot, actions):
    from types import MappingProxyType
    cdef HandState s = cls.__new__(cls)
    s._setup(variant, MappingProxyType(options), rules, deck, dealer, match_before[0], match_before[1], pot)
    for a in actions:
        s.apply_action(a)
    return s


cdef class DeckStream:
    """Deck orders from a seeded xoshiro256** stream (reproducible)."""
    cdef Rng g

    def __cinit__(self, uint64_t seed):
        rng_seed(&self.g, seed)

    def next_deck(self):
        cdef uint8_t deck[32]
        rng_shuffle_deck(&self.g, deck)
        return bytes(deck[:32])

    def below(self, uint32_t n):
        if n == 0:
            raise ValueError("n must be positive")
        return rng_below(&self.g, n)


def declarations_of(uint32_t cards, tuple rules not None, int kind, int trump):
    """(value, key, used cards) of the best declaration set of a hand."""
    cdef Rules r = make_rules(rules)
    cdef Decl d
    hand_declarations(cards, &r, kind, trump, &d)
    return (d.value, d.key, d.cards)


def _use_pdep(on=None):
    """Whether the random play-out picks cards with pdep (where the CPU has a
    fast one); on=False forces the portable path (tests). Not thread-safe."""
    global cpu_fast_pdep
    if on is not None:
        cpu_fast_pdep = 1 if (on and detect_fast_pdep()) else 0
    return bool(cpu_fast_pdep)


def game_points(int raw, bint sun):
    """Baloot game points of the buyers' raw card points."""
    return baloot_game_points(raw, sun)


# ---------------------------------------------------------------- simulation

HAND_ROW_SIZE = sizeof(HandRow)
AGGREGATE_FIELDS = sizeof(Aggregate) // 8
POLICY_COUNT = NUM_POLICIES


def sim_chunk(tuple rules not None, const int8_t[::1] policies not None, uint64_t key, uint64_t start,
              int64_t n, unsigned char[::1] rows=None, int64_t[::1] agg=None):
    """Simulate hands [start, start+n) without the GIL.

    rows: a buffer of n * HAND_ROW_SIZE bytes (or None); agg: an int64 buffer
    of AGGREGATE_FIELDS sums, added to (or None). Callers check the sizes.
    """
    cdef Rules r = make_rules(rules)
    cdef HandRow *rp = NULL
    cdef Aggregate *ap = NULL
    if policies.shape[0] != 4:
        raise ValueError("four policies, one per seat")
    if rows is not None:
        if rows.shape[0] < n * <int64_t>sizeof(HandRow):
            raise ValueError("row buffer too small")
        rp = <HandRow *>&rows[0]
    if agg is not None:
        if agg.shape[0] != AGGREGATE_FIELDS:
            raise ValueError("aggregate buffer has the wrong size")
        ap = <Aggregate *>&agg[0]
    with nogil:
        sim_hands(&r, &policies[0], key, start, n, rp, ap)


def sim_matches_chunk(tuple rules not None, const int8_t[::1] policies not None, uint64_t key,
                      uint64_t start, int8_t[::1] winner not None, int32_t[::1] nhands not None,
                      int32_t[::1] score0 not None, int32_t[::1] score1 not None, int32_t max_hands):
    """Simulate whole matches [start, start+len(winner)) without the GIL."""
    cdef Rules r = make_rules(rules)
    cdef int64_t n = winner.shape[0]
    if policies.shape[0] != 4:
        raise ValueError("four policies, one per seat")
    if nhands.shape[0] != n or score0.shape[0] != n or score1.shape[0] != n:
        raise ValueError("output arrays differ in length")
    if n == 0:
        return
    with nogil:
        sim_matches(&r, &policies[0], key, start, n, &winner[0], &nhands[0], &score0[0],
                    &score1[0], max_hands)


def sim_hand_state(HandState state not None, const int8_t[::1] policies not None, uint64_t key,
                   uint64_t index, int dealer, int score0=0, int score1=0, int pot=0):
    """Replay hand `index` of a run into `state` (already set up with the run's rules)."""
    cdef Rules r = state.h.rules
    if policies.shape[0] != 4:
        raise ValueError("four policies, one per seat")
    sim_hand(&state.h, &r, &policies[0], key, index, dealer, score0, score1, pot)
    return state


def policy_action(HandState state not None, int policy, uint64_t seed):
    """The action a native policy picks in this state (seeded for `random`)."""
    cdef Rng g
    if not 0 <= policy < NUM_POLICIES:
        raise ValueError(f"policy ids are 0..{NUM_POLICIES - 1}")
    if state.h.phase == PHASE_DONE:
        raise ValueError("the hand is over")
    rng_seed(&g, seed)
    return policy_act(&state.h, policy, &g)


cdef class HandStream:
    """The random stream of hand `index` of a run: its deck, then the draws of
    the native `random` policy, exactly as the native loop uses them."""
    cdef Rng g
    cdef uint8_t deck_ids[32]

    def __cinit__(self, uint64_t key, uint64_t index):
        rng_for(&self.g, key, index)
        rng_shuffle_deck(&self.g, self.deck_ids)

    def deck(self):
        return bytes(self.deck_ids[:32])

    def act(self, HandState state not None, int policy):
        """The action native policy `policy` picks for the seat to act."""
        if not 0 <= policy < NUM_POLICIES:
            raise ValueError(f"policy ids are 0..{NUM_POLICIES - 1}")
        if state.h.phase == PHASE_DONE:
            raise ValueError("the hand is over")
        return policy_act(&state.h, policy, &self.g)


def hand_row(HandState state not None):
    """The simulation row of a finished hand (see balout.simulate.HAND_DTYPE)."""
    cdef HandRow row
    row_of(&state.h, &row)
    return (<char *>&row)[:sizeof(HandRow)]


# ---------------------------------------------------------------- search

from libc.stdlib cimport malloc, free


cdef int _check_play(HandState state) except -1:
    if state.h.phase != PHASE_PLAY and state.h.phase != PHASE_DECLARE:
        from balout.errors import BaloutError
        raise BaloutError(f"the position must be in the play phase, not {PHASES[state.h.phase]!r}")
    return 0


cdef int _check_seat(int seat) except -1:
    """The one bounds check on a seat before the core indexes by it."""
    if not 0 <= seat < 4:
        from balout.errors import OptionError
        raise OptionError(f"seat must be from 0 to 3, got {seat}")
    return 0


def information_set(HandState state not None, int seat):
    """What `seat` knows of the hidden cards: dict of masks and counts."""
    cdef InfoSet info
    _check_seat(seat)
    infoset_build(&state.h, seat, &info)
    return {"seat": seat, "own": info.own, "unseen": info.unseen,
            "count": tuple(info.count[s] for s in range(4)), "stock": info.stock,
            "known": tuple(info.known[s] for s in range(4)),
            "forbidden": tuple(info.forbidden[s] for s in range(4)),
            "declared": {s: info.decl_cards[s] for s in range(4) if info.decl_shown >> s & 1}}


cdef class WorldSampler:
    """Uniform deals of the hidden cards consistent with a seat's information."""
    cdef Sampler *sp
    cdef HandState base
    cdef readonly int seat

    def __cinit__(self, HandState state not None, int seat):
        cdef InfoSet info
        _check_seat(seat)
        self.sp = <Sampler *>malloc(sizeof(Sampler))
        if self.sp == NULL:
            raise MemoryError()
        infoset_build(&state.h, seat, &info)
        sampler_init(self.sp, &info)
        self.base = state
        self.seat = seat

    def __dealloc__(self):
        free(self.sp)

    @property
    def count(self):
        """Number of consistent deals (a float: it can exceed 2**53 only in theory)."""
        return self.sp.total

    def draw(self, Py_ssize_t n, uint64_t seed, double bid_weight=1.0, double play_weight=1.0):
        """n worlds as an (n, 4) uint32 array of hand masks; bid_weight < 1
        weighs them by the auction, play_weight < 1 by the opponents' plays
        (see mc_evaluate)."""
        import numpy as np
        if self.sp.total <= 0:
            from balout.errors import BaloutError
            raise BaloutError("no deal is consistent with this information set")
        _check_weight(bid_weight)
        _check_weight(play_weight, "play_weight")
        out = np.zeros((n, 4), np.uint32)
        cdef uint32_t[:, ::1] o = out
        cdef Rng g
        cdef Py_ssize_t i
        cdef int s
        cdef uint32_t hands[4]
        cdef Hand world
        cdef int tries = INFER_TRIES
        rng_seed(&g, seed)
        with nogil:
            for i in range(n):
                if (i & 65535) == 65535 and _stop_requested():
                    break
                if bid_weight < 1.0 or play_weight < 1.0:
                    inference_after(determinize_weighted(&self.base.h, self.seat, self.sp, &g, bid_weight,
                                                         play_weight, tries, &world), &play_weight, &tries)
                    for s in range(4):
                        o[i, s] = world.hand[s]
                    continue
                sampler_draw(self.sp, &g, hands)
                o[i, 0] = hands[0]
                o[i, 1] = hands[1]
                o[i, 2] = hands[2]
                o[i, 3] = hands[3]
        _raise_if_stopped()
        return out

    def resample(self, uint64_t seed):
        """A copy of the state that the seat cannot tell from it (see
        resample in search.h); BaloutError if none was found."""
        cdef Rng g
        rng_seed(&g, seed)
        return self._resample(&g)

    cdef HandState _resample(self, Rng *g):
        cdef HandState c = self.base.clone()
        cdef int ok
        with nogil:
            ok = resample(&self.base.h, self.seat, self.sp, g, &c.h)
        if not ok:
            from balout.errors import BaloutError
            raise BaloutError(f"no hand that seat {self.seat} cannot tell from this one replays its history")
        return c

    def worlds(self, Py_ssize_t n, uint64_t seed, double bid_weight=1.0, double play_weight=1.0):
        """n states, each the hand with the hidden cards of one drawn world
        (see draw), dealt from a deck of its own (see deal_world in
        search.h); a world whose replay does not show what the real hand
        shows is replaced by a uniform one (resample)."""
        rows = self.draw(n, seed, bid_weight, play_weight)
        cdef uint32_t[:, ::1] r = rows
        cdef uint32_t hands[4]
        cdef HandState c
        cdef Rng g
        cdef Py_ssize_t i
        cdef int ok
        rng_seed(&g, seed ^ 0x9E3779B97F4A7C15)
        out = []
        for i in range(n):
            hands[0], hands[1], hands[2], hands[3] = r[i, 0], r[i, 1], r[i, 2], r[i, 3]
            c = self.base.clone()
            with nogil:
                ok = deal_world(&self.base.h, self.seat, hands, &g, &c.h)
            out.append(c if ok else self._resample(&g))
        return out


cdef class DoubleDummy:
    """Exact double-dummy solver (all cards visible) of the play of a hand.

    Values are the final card points (tricks taken and the last trick's 10
    included) of the team to act, under perfect play by both sides.
    A search releases the GIL; one solver searches in one thread at a time
    (its table is not shared), so use one per thread.
    """
    cdef Solver s
    cdef bint busy

    def __cinit__(self, int table_bits=18):
        self.busy = False
        if not 10 <= table_bits <= 26:
            raise ValueError("table_bits must be 10..26")
        if solver_init(&self.s, table_bits) != 0:
            raise MemoryError()

    cdef _enter(self):
        if self.busy:
            raise RuntimeError("this DoubleDummy is searching in another thread; use one per thread")
        self.busy = True

    def __dealloc__(self):
        solver_free(&self.s)

    @property
    def nodes(self):
        return self.s.nodes

    def clear(self):
        self._enter()
        solver_clear(&self.s)
        self.busy = False

    def value(self, HandState state not None):
        cdef int v
        _check_play(state)
        self._enter()
        try:
            with nogil:
                v = solver_value(&self.s, &state.h)
        finally:
            self.busy = False
        return v

    def moves(self, HandState state not None):
        """{card id: value} for every legal card of the seat to act."""
        cdef int16_t values[32]
        cdef uint32_t legal
        _check_play(state)
        self._enter()
        try:
            with nogil:
                legal = solver_moves(&self.s, &state.h, values)
        finally:
            self.busy = False
        return {c: values[c] for c in range(32) if legal >> c & 1}

    def reaches(self, HandState state not None, int team, int target):
        """Can `team` end the hand with at least `target` card points?"""
        cdef int r
        _check_play(state)
        if team not in (0, 1):
            raise ValueError("team must be 0 or 1")
        self._enter()
        try:
            with nogil:
                r = solver_reaches(&self.s, &state.h, team, target)
        finally:
            self.busy = False
        return bool(r)

    def pimc(self, HandState state not None, worlds=20, uint64_t seed=0, double bid_weight=1.0,
             time_budget=None, bint by_score=False, double play_weight=1.0, equity=None):
        """Sum over sampled deals (from the view of the seat to act) of each
        legal card's double-dummy value: (legal mask, sums[32], worlds).

        worlds: the number of deals (None: only the time budget); time_budget:
        seconds (None: only the worlds); with both, the first reached stops
        it, after at least one deal. The deals are one stream from the seed,
        so a run stopped by the clock after n deals sums what worlds=n sums.
        bid_weight < 1 weighs the deals by the auction, play_weight < 1 by
        the opponents' plays (see mc_evaluate).
        by_score: sum what each value is worth instead, the team's hand
        score minus the other's, with 1/1024 of the card points to break ties;
        equity, a (table, step) pair (see mc_evaluate): the chance that the
        team wins the match, with 1e-6 of the card points to break ties."""
        import numpy as np
        cdef Sampler *sp
        cdef InfoSet info
        cdef Rng g
        cdef uint32_t legal = 0
        cdef int64_t cap, done
        cdef double budget
        cdef Equity eq
        cdef Equity *eqp = NULL
        _check_play(state)
        _check_weight(bid_weight)
        _check_weight(play_weight, "play_weight")
        cap, budget = _check_budget(worlds, time_budget)
        if equity is not None:
            eqp = _point_equity(equity, state.h.rules.target, &eq)
        sums = np.zeros(32, np.float64)
        cdef double[::1] acc = sums
        sp = <Sampler *>malloc(sizeof(Sampler))
        if sp == NULL:
            raise MemoryError()
        try:
            infoset_build(&state.h, state.h.to_act, &info)
            if sampler_init(sp, &info) <= 0:
                from balout.errors import BaloutError
                raise BaloutError("no deal is consistent with the information set")
            rng_seed(&g, seed)
            self._enter()
            try:
                with nogil:
                    done = solver_pimc(&self.s, &state.h, sp, &g, bid_weight, play_weight, cap, budget, by_score,
                                       eqp, &acc[0], &legal)
                _raise_if_stopped()
            finally:
                self.busy = False
        finally:
            free(sp)
        return legal, sums, done


cdef tuple _check_budget(object worlds, object time_budget):
    """(world cap, seconds) for solver_pimc and evaluate_actions, 0 meaning none."""
    if worlds is None and time_budget is None:
        raise ValueError("give a number of worlds, a time budget, or both")
    cap = 0 if worlds is None else _arg_int("worlds", worlds, 1, 1 << 40)
    budget = 0.0 if time_budget is None else _arg_float("time_budget", time_budget, 0.0, True)
    return cap, budget


def _check_weight(double weight, name="bid_weight"):
    if not 0.0 <= weight <= 1.0:
        raise ValueError(f"{name} must be in 0..1, got {weight!r}")


def mc_evaluate(HandState state not None, worlds, int policy, uint64_t seed, double bid_weight=1.0,
                time_budget=None, double play_weight=1.0, equity=None):
    """Flat Monte Carlo from the view of the seat to act: {action: mean of its
    team's hand score minus the other's} over determinizations, each action
    followed by native `policy` play to the end (same worlds for all).
    With equity, a (table, step) pair (see balout.equity.MatchEquity), the
    mean chance that its team wins the match instead.

    worlds: the number of determinizations (None: only the time budget);
    time_budget: seconds (None: only the worlds); with both, the first
    reached stops it, after at least one world. The worlds are one stream
    from the seed (see DoubleDummy.pimc).

    bid_weight (0..1) weighs the worlds by the auction: a world counts
    bid_weight times less for every bid of another seat that the greedy
    bidder would not have made with its cards (1: uniform worlds), and
    play_weight (0..1) by the play: play_weight times less for every card an
    opponent played that the greedy player would not have played with its
    cards. When no world explains the plays, they stop being read."""
    cdef double means[50]
    cdef uint64_t legal
    cdef Rng g
    cdef int64_t cap, done
    cdef double budget
    cdef Equity eq
    cdef Equity *eqp = NULL
    if state.h.phase == PHASE_DONE:
        from balout.errors import BaloutError
        raise BaloutError("the hand is over")
    _check_weight(bid_weight)
    _check_weight(play_weight, "play_weight")
    cap, budget = _check_budget(worlds, time_budget)
    if not 0 <= policy < NUM_POLICIES:
        raise ValueError(f"policy ids are 0..{NUM_POLICIES - 1}")
    if equity is not None:
        eqp = _point_equity(equity, state.h.rules.target, &eq)
    rng_seed(&g, seed)
    with nogil:
        legal = evaluate_actions(&state.h, cap, budget, policy, &g, bid_weight, play_weight,
                                 eqp, means, &done)
    _raise_if_stopped()
    return {a: means[a] for a in range(50) if legal >> a & 1}


cdef Equity *_point_equity(object equity, int target, Equity *eq) except NULL:
    """eq pointed at a checked equity pair's table (the pair, held by the
    caller, keeps the array alive); returns eq."""
    cdef const float[:, ::1] table = _check_equity(equity, target)
    eq.table = &table[0, 0]
    eq.n = <int32_t>table.shape[0]
    eq.step = <int32_t>equity[1]
    eq.target = target
    return eq


def _check_equity(equity, int target):
    """The table of an equity pair (table, step) for a match to `target`: a
    C-contiguous float32 (n, n) array whose n * step reaches the target."""
    import numpy as np
    try:
        table, step = equity
    except (TypeError, ValueError):
        raise TypeError("equity must be a (table, step) pair") from None
    if not isinstance(table, np.ndarray) or table.dtype != np.float32 or table.ndim != 2 \
            or table.shape[0] != table.shape[1] or table.shape[0] < 1 or not table.flags.c_contiguous:
        raise TypeError("the equity table must be a square, C-contiguous float32 array")
    if type(step) is not int or not 1 <= step <= target:
        raise ValueError(f"the equity step must be an int in 1..{target}, got {step!r}")
    if table.shape[0] * step < target or (table.shape[0] - 1) * step >= target:
        raise ValueError(f"an equity table of {table.shape[0]} rows at step {step} does not cover "
                         f"a match to {target} (it needs {-(-target // step)} rows)")
    return table


def bruteforce_value(HandState state not None):
    """Plain minimax of the play (no pruning): the reference for tests."""
    _check_play(state)
    return solver_bruteforce(&state.h)


include "ismcts.pxi"
include "tensor.pxi"
