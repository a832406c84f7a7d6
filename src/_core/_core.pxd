# Declarations of the C rules core (engine.h) and of the HandState type.
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint32_t, uint64_t

cdef extern from "engine.h" nogil:
    enum:
        NCARDS
        NSEATS
        NTRICKS
        MAX_ACTIONS
        NUM_ACTIONS
        ACT_PASS
        PHASE_AUCTION
        PHASE_DOUBLING
        PHASE_DECLARE
        PHASE_PLAY
        PHASE_DONE
        OK
        ERR_OVER
        ERR_ILLEGAL

    ctypedef struct Rules:
        int8_t variant
        int8_t first_lead
        int8_t forced_take_on_jack
        int8_t overtrump_when_cutting
        int8_t undertrump
        int8_t partner_winning_frees
        int8_t declarations
        int8_t litige_pot
        int8_t capot
        int8_t sun_overcall
        int8_t doubling
        int8_t declaration_order
        int8_t contract_counts_declarations
        int8_t three_multiplier
        int16_t target

    ctypedef struct Result:
        int8_t outcome
        int8_t decl_team
        int8_t belote_team
        int8_t capot_team
        int8_t match_winner
        int16_t decl_value
        int16_t card_points[2]
        int32_t hand_score[2]
        int32_t match_score[2]
        int32_t litige_pot

    ctypedef struct Hand:
        Rules rules
        uint8_t deck[32]
        int8_t dealer
        int32_t match_before[2]
        int32_t pot_before
        int8_t phase
        int8_t to_act
        int8_t offer
        int8_t round
        int8_t spoken
        int8_t bidder
        int8_t kind
        int8_t trump
        int8_t receiver
        int8_t pending_seat
        int8_t pending_trump
        int8_t multiplier
        int8_t raises
        int8_t last_raiser
        int8_t gahwa
        int8_t declared
        int8_t undecided
        int8_t belote_seat
        int16_t seat_decl_value[4]
        int32_t seat_decl_key[4]
        uint32_t seat_decl_cards[4]
        int8_t decl_team
        int16_t decl_value
        int16_t team_decl_value[2]
        uint32_t hand[4]
        uint32_t dealt[4]
        uint32_t played
        uint32_t played_by[4]
        int8_t leader
        int8_t trick_len
        int8_t ntricks
        int8_t win_seat
        int8_t win_power
        int8_t trick[4]
        int8_t trick_winners[8]
        int16_t card_points[2]
        int8_t tricks_won[2]
        int16_t nactions
        uint8_t actions[96]
        Result result

    ctypedef struct Decl:
        int16_t value
        int32_t key
        uint32_t cards
        uint32_t hundred_cards

    ctypedef struct Rng:
        uint64_t s[4]

    void engine_init()
    void hand_new(Hand *h, const Rules *r, const uint8_t *deck, int dealer,
                  int32_t score0, int32_t score1, int32_t pot)
    void hand_reset(Hand *h)
    uint64_t hand_legal(const Hand *h)
    int hand_apply(Hand *h, int action)
    int hand_undo(Hand *h)
    void hand_declarations(uint32_t cards, const Rules *r, int kind, int trump, Decl *out)
    int baloot_game_points(int raw, int sun)
    void rng_seed(Rng *g, uint64_t seed)
    uint64_t rng_next(Rng *g)
    uint32_t rng_below(Rng *g, uint32_t n)
    void rng_shuffle_deck(Rng *g, uint8_t *deck)

    int card_power(int c, int led, int trump)
    int cpu_fast_pdep
    int detect_fast_pdep()


cdef extern from "sim.h" nogil:
    enum:
        NUM_POLICIES

    ctypedef struct HandRow:
        int16_t decl_value

    ctypedef struct Aggregate:
        int64_t hands

    void rng_for(Rng *g, uint64_t key, uint64_t index)
    int policy_act(const Hand *h, int policy, Rng *g)
    void sim_hand(Hand *h, const Rules *r, const int8_t *policies, uint64_t key, uint64_t index,
                  int dealer, int32_t s0, int32_t s1, int32_t pot)
    void row_of(const Hand *h, HandRow *row)
    void sim_hands(const Rules *r, const int8_t *policies, uint64_t key, uint64_t start, int64_t n,
                   HandRow *rows, Aggregate *agg)
    void sim_matches(const Rules *r, const int8_t *policies, uint64_t key, uint64_t start, int64_t n,
                     int8_t *winner, int32_t *nhands, int32_t *score0, int32_t *score1,
                     int32_t max_hands)


cdef extern from "search.h" nogil:
    ctypedef struct InfoSet:
        int8_t seat
        uint32_t own
        uint32_t unseen
        int8_t count[4]
        int8_t stock
        uint32_t known[4]
        uint32_t forbidden[4]
        uint8_t decl_shown
        uint8_t decl_some
        int16_t decl_value[4]
        uint32_t decl_cards[4]

    ctypedef struct Sampler:
        double total

    ctypedef struct Solver:
        uint64_t nodes

    void infoset_build(const Hand *h, int seat, InfoSet *info)
    double sampler_init(Sampler *sp, const InfoSet *info)
    void sampler_draw(const Sampler *sp, Rng *g, uint32_t hands[4])
    void sampler_world(const Sampler *sp, Rng *g, const Hand *h, Hand *out)
    int solver_init(Solver *s, int table_bits)
    void solver_free(Solver *s)
    void solver_clear(Solver *s)
    int solver_reaches(Solver *s, const Hand *h, int team, int target)
    int solver_value(Solver *s, const Hand *h)
    uint32_t solver_moves(Solver *s, const Hand *h, int16_t values[32])
    int solver_bruteforce(const Hand *h)
    int determinize_weighted(const Hand *h, int seat, const Sampler *sp, Rng *g, double bid_weight,
                             double play_weight, int tries, Hand *out)
    void inference_after(int got, double *play_weight, int *tries)
    enum: INFER_TRIES
    int deal_world(const Hand *h, int seat, const uint32_t hands[4], Rng *g, Hand *out)
    int resample(const Hand *h, int seat, const Sampler *sp, Rng *g, Hand *out)
    ctypedef struct Equity:
        const float *table
        int32_t n, step, target
    double equity_after(const Equity *eq, const Result *r, int team)
    uint64_t evaluate_actions(const Hand *h, int64_t worlds, double time_budget, int policy, Rng *g,
                              double bid_weight, double play_weight, const Equity *eq, double means[50],
                              int64_t *done)
    int64_t solver_pimc(Solver *s, const Hand *h, const Sampler *sp, Rng *g, double bid_weight, double play_weight,
                        int64_t max_worlds, double time_budget, int by_score, const Equity *eq,
                        double sums[32], uint32_t *legal)
    int (*stop_requested)() noexcept nogil


cdef class HandState:
    cdef Hand h
    cdef readonly str variant
    cdef readonly object options
    cpdef list legal_actions(self)
    cpdef bint is_terminal(self)


cdef extern from "tensor.h" nogil:
    enum:
        DECISION_SLOTS
        NUM_DECISIONS
        IT_HAND
        IT_OFFER
        IT_RECEIVER
        IT_DEALER
        IT_TO_ACT
        IT_PHASE
        IT_DECISIONS
        IT_PLAYS
        IT_SHOWN
        IT_BELOTE
        IT_MATCH
        INFO_TENSOR_SIZE
        OBSERVATION_TENSOR_SIZE

    void view_shown(const Hand *h, int seat, int *decl_seats, int *belote_seat)
    int info_tensor(const Hand *h, int seat, float *out)
    void observation_tensor(const Hand *h, int seat, float *out)
