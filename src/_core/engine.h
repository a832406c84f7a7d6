/* balout rules core: one hand of Moroccan Balout, café Belote or Gulf Baloot.
 *
 * Cards are bits of a 32-bit mask: card = suit * 8 + rank, with ranks in
 * sequence order 7 8 9 T J Q K A (0..7) and suits S H D C (0..3).
 * Actions are small integers: 0..31 play a card, 32.. are auction, doubling
 * and declaration decisions. Legal actions are a 64-bit mask of action ids.
 *
 * Everything here is plain C with no allocation, safe to call without the GIL.
 * Callers validate seats, cards and actions before calling: the functions
 * trust their arguments' ranges (the Python layer checks them).
 */
#ifndef BALOUT_ENGINE_H
#define BALOUT_ENGINE_H

#include <stdint.h>

#define NCARDS 32
#define NSEATS 4
#define NTRICKS 8
#define MAX_ACTIONS 96

enum { SUIT_S = 0, SUIT_H, SUIT_D, SUIT_C };
enum { R7 = 0, R8, R9, RT, RJ, RQ, RK, RA };

enum {
    ACT_PASS = 32,
    ACT_TAKE = 33,
    ACT_TAKE_SUIT = 34, /* 34..37: take:S take:H take:D take:C (round 2) */
    ACT_HOKM = 38,
    ACT_HOKM_SUIT = 39, /* 39..42: hokm:S .. hokm:C (round 2) */
    ACT_SUN = 43,
    ACT_ASHKAL = 44,
    ACT_DOUBLE = 45,
    ACT_THREE = 46,
    ACT_FOUR = 47,
    ACT_GAHWA = 48,
    ACT_DECLARE = 49,
    NUM_ACTIONS = 50
};

enum { VARIANT_BALOUT = 0, VARIANT_BELOTE = 1, VARIANT_BALOOT = 2 };

enum { PHASE_AUCTION = 0, PHASE_DOUBLING, PHASE_DECLARE, PHASE_PLAY, PHASE_DONE };

enum { KIND_NONE = 0, KIND_TRUMP = 1, KIND_SUN = 2 };

enum { LEAD_AFTER_TAKER = 0, LEAD_AFTER_DEALER = 1 };
enum { DECL_AUTO = 0, DECL_OFF = 1, DECL_CHOICE = 2 };
enum { CAPOT_PLUS100 = 0, CAPOT_250 = 1, CAPOT_KABOOT = 2 };
enum { ORDER_LENGTH_FIRST = 0, ORDER_VALUE_FIRST = 1 };

enum {
    OUTCOME_NONE = -1,
    OUTCOME_MADE = 0,
    OUTCOME_FAILED = 1,
    OUTCOME_LITIGE = 2,
    OUTCOME_CANCELLED = 3
};

/* apply_action return codes */
enum { OK = 0, ERR_OVER = 1, ERR_ILLEGAL = 2 };

/* Resolved rule options (validated by the Python layer). */
typedef struct {
    int8_t variant;
    int8_t first_lead;
    int8_t forced_take_on_jack;
    int8_t overtrump_when_cutting;
    int8_t undertrump;
    int8_t partner_winning_frees;
    int8_t declarations;
    int8_t litige_pot;
    int8_t capot;
    int8_t sun_overcall;
    int8_t doubling;
    int8_t declaration_order;
    int8_t contract_counts_declarations;
    int8_t three_multiplier;
    int16_t target;
} Rules;

typedef struct {
    int8_t outcome;
    int8_t decl_team;
    int8_t belote_team;
    int8_t capot_team;
    int8_t match_winner;   /* -1 while the match goes on */
    int16_t decl_value;
    int16_t card_points[2];
    int32_t hand_score[2];
    int32_t match_score[2]; /* after this hand */
    int32_t litige_pot;     /* after this hand */
} Result;

typedef struct {
    Rules rules;
    /* fixed at creation */
    uint8_t deck[NCARDS];
    int8_t dealer;
    int32_t match_before[2];
    int32_t pot_before;

    /* auction */
    int8_t phase;
    int8_t to_act;
    int8_t offer;
    int8_t round;          /* 1, 2; 3 = window for a Sun overcall of a Hokm */
    int8_t spoken;         /* speakers so far in the current round/window */
    int8_t bidder;         /* taker / buyer; the ashkal caller */
    int8_t kind;
    int8_t trump;          /* -1 in Sun or before the contract */
    int8_t receiver;       /* seat that receives the offer */
    int8_t pending_seat;   /* hokm bidder while others may overcall */
    int8_t pending_trump;

    /* doubling */
    int8_t multiplier;
    int8_t raises;         /* 0 none, 1 double, 2 three, 3 four, 4 gahwa */
    int8_t last_raiser;    /* team, -1 */
    int8_t gahwa;

    /* declarations, fixed when the deal is complete */
    int8_t declared;       /* bit per seat: its declarations count */
    int8_t undecided;      /* bit per seat: choice mode, still to decide */
    int8_t belote_seat;
    int16_t seat_decl_value[NSEATS];
    int32_t seat_decl_key[NSEATS];
    uint32_t seat_decl_cards[NSEATS];
    int8_t decl_team;      /* team whose declarations score, -1 */
    int16_t decl_value;    /* their total */
    int16_t team_decl_value[2];

    /* play */
    uint32_t hand[NSEATS];
    uint32_t dealt[NSEATS];  /* full hands once the deal is complete */
    uint32_t played;
    uint32_t played_by[NSEATS];
    int8_t leader;
    int8_t trick_len;
    int8_t ntricks;
    int8_t win_seat;
    int8_t win_power;
    int8_t trick[NSEATS];
    int8_t trick_winners[NTRICKS];
    int16_t card_points[2];
    int8_t tricks_won[2];
    int8_t trick_points;

    /* history, for undo and records */
    int16_t nactions;
    uint8_t actions[MAX_ACTIONS];
    Result result;
} Hand;

#define BIT(c) (1u << (c))
#define SUIT_MASK(s) (0xFFu << ((s) * 8))
#define SUIT_OF(c) ((c) >> 3)
#define RANK_OF(c) ((c) & 7)
#define NEXT(s) (((s) + 1) & 3)

/* one-time table initialisation (idempotent) */
void engine_init(void);

/* tables, exported for the wrappers */
extern const int8_t RANK_POINTS[2][8];   /* [is_trump][rank] */
extern const int8_t RANK_POWER[2][8];    /* [is_trump][rank], 0 = weakest */
extern int8_t CARD_POINTS[5][NCARDS];     /* [trump suit or 4][card] */
extern int8_t CARD_POWER[5][NCARDS];
extern uint32_t STRONGER[5][NCARDS];      /* [trump suit or 4][card]: same-suit cards that beat it */
extern uint8_t SELECT_IN_BYTE[256][8];    /* [pattern][k]: position of its k-th set bit */

/* position of the k-th set bit of m (k < popcount(m)), without branches:
   per-byte popcounts and their running sums (one multiply) locate the byte,
   a table the bit inside it */
static inline int select_bit32(uint32_t m, uint32_t k)
{
    uint32_t b = m - ((m >> 1) & 0x55555555u);
    b = (b & 0x33333333u) + ((b >> 2) & 0x33333333u);
    b = (b + (b >> 4)) & 0x0F0F0F0Fu;
    uint32_t sums = b * 0x01010101u;                 /* byte i: set bits in bytes 0..i */
    /* bytes whose running sum is <= k (all of them below the answer's byte) */
    uint32_t le = ((k * 0x01010101u) | 0x80808080u) - sums;
    int byte = __builtin_popcount(le & 0x80808080u);
    uint32_t before = ((sums << 8) >> (8 * byte)) & 0xFF;
    return 8 * byte + SELECT_IN_BYTE[(m >> (8 * byte)) & 0xFF][k - before];
}

/* 1 if this CPU has a fast pdep (BMI2, except AMD before Zen 3, which
   microcodes it): set by engine_init; tests may clear it */
extern int cpu_fast_pdep;
int detect_fast_pdep(void);

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_PDEP 1
/* select_bit32 in one pdep: only where cpu_fast_pdep (the assembler takes the
   instruction whatever the target flags, so no -mbmi2 build is needed) */
static inline int select_bit32_pdep(uint32_t m, uint32_t k)
{
    uint32_t d;
    __asm__("pdep %2, %1, %0" : "=r"(d) : "r"(1u << k), "r"(m));
    return __builtin_ctz(d);
}
#else
#define HAVE_PDEP 0
#define select_bit32_pdep select_bit32
#endif

/* trick strength of card c: 16+ as a trump, 8+ in the led suit, else 0 */
static inline int card_power(int c, int led, int trump)
{
    int s = SUIT_OF(c);
    if (s == trump)
        return 16 + RANK_POWER[1][RANK_OF(c)];
    if (s == led)
        return 8 + RANK_POWER[0][RANK_OF(c)];
    return 0;
}

/* A deck that deals `dealt` (each seat's eight cards) with h's dealer,
 * offer and receiver: h's deal with other hands. Which five of a seat's
 * cards come first is not fixed by `dealt`; the lowest go first. */
void deck_dealing(const Hand *h, const uint32_t dealt[NSEATS], uint8_t deck[NCARDS]);

void hand_new(Hand *h, const Rules *r, const uint8_t *deck, int dealer,
              int32_t score0, int32_t score1, int32_t pot);
void hand_reset(Hand *h);
uint64_t hand_legal(const Hand *h);
int hand_apply(Hand *h, int action);
/* apply an action known to be legal (no check): for the native loops */
void hand_step(Hand *h, int action);
int hand_undo(Hand *h);

/* Declarations of one 8-card hand: total value, strongest key and cards used. */
typedef struct {
    int16_t value;
    int32_t key;
    uint32_t cards;
    uint32_t hundred_cards; /* cards inside runs of 5+ (baloot rule) */
} Decl;
void hand_declarations(uint32_t cards, const Rules *r, int kind, int trump, Decl *out);

/* Team `team`'s hand score minus the other's, were the hand in play to end
 * with team 0 on `points0` card points (the last trick's 10 included): its
 * contract made or failed, and a capot when a side has every point and the
 * other no trick yet. A double-dummy value is card points; this is what
 * they are worth. h is scored in place and left as it was. */
int hand_score_if(Hand *h, int points0, int team);

/* The whole result of that hand (the match's scores and winner after it
 * included) into res. */
void hand_result_if(Hand *h, int points0, Result *res);

/* Game points of the buyers' raw card points (baloot). */
int baloot_game_points(int raw, int sun);

/* xoshiro256** random stream */
typedef struct { uint64_t s[4]; } Rng;
void rng_seed(Rng *g, uint64_t seed);
void rng_shuffle_deck(Rng *g, uint8_t *deck);

static inline uint64_t rng_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t rng_next(Rng *g)
{
    uint64_t *s = g->s;
    uint64_t result = rng_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rng_rotl(s[3], 45);
    return result;
}

/* unbiased integer in [0, n), Lemire's multiply-and-reject */
static inline uint32_t rng_below(Rng *g, uint32_t n)
{
    uint64_t m = (uint64_t)(uint32_t)(rng_next(g) >> 32) * n;
    if ((uint32_t)m < n) {
        uint32_t floor = (uint32_t)(-n) % n;
        while ((uint32_t)m < floor)
            m = (uint64_t)(uint32_t)(rng_next(g) >> 32) * n;
    }
    return (uint32_t)(m >> 32);
}

#endif
