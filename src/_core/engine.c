/* balout rules core. See engine.h and RULES.md (shared/) for the rules. */
#include "engine.h"
#include <string.h>
#if HAVE_PDEP
#include <cpuid.h>
#endif


/* [is_trump][rank], ranks 7 8 9 T J Q K A */
const int8_t RANK_POINTS[2][8] = {
    {0, 0, 0, 10, 2, 3, 4, 11},
    {0, 0, 14, 10, 20, 3, 4, 11},
};
/* trick strength, 0 = weakest: plain A T K Q J 9 8 7, trump J 9 A T K Q 8 7 */
const int8_t RANK_POWER[2][8] = {
    {0, 1, 2, 6, 3, 4, 5, 7},
    {0, 1, 6, 4, 7, 2, 3, 5},
};

/* value of a run of 3, 4, 5+: balout and belote; baloot hokm; baloot sun */
static const int16_t RUN_SCORE[3][3] = {{20, 50, 100}, {2, 5, 10}, {4, 10, 20}};

/* per trump suit (4 = no trump): card points and trick power of each card
   (16+ for a trump, 8+ for a plain card when it follows the led suit) */
int8_t CARD_POINTS[5][NCARDS];
int8_t CARD_POWER[5][NCARDS];

/* per trump suit (4 = no trump): the cards of the same suit that beat card c */
uint32_t STRONGER[5][NCARDS];

uint8_t SELECT_IN_BYTE[256][8];
int cpu_fast_pdep = 0;

/* ranks (as an 8-bit pattern) whose trump strength beats rank r */
static uint8_t TRUMP_ABOVE[8];
static int initialised = 0;

int detect_fast_pdep(void)
{
#if HAVE_PDEP
    unsigned a, b, c, d;
    if (__get_cpuid_max(0, NULL) < 7)
        return 0;
    __cpuid_count(7, 0, a, b, c, d);
    if (!(b & (1u << 8))) /* BMI2 */
        return 0;
    __cpuid(0, a, b, c, d);
    int amd = (b == 0x68747541u && d == 0x69746e65u && c == 0x444d4163u)   /* AuthenticAMD */
              || (b == 0x6f677948u && d == 0x6e65476eu && c == 0x656e6975u); /* HygonGenuine */
    if (!amd)
        return 1;
    __cpuid(1, a, b, c, d);
    unsigned family = (a >> 8) & 0xF;
    if (family == 0xF)
        family += (a >> 20) & 0xFF;
    return family >= 0x19;
#else
    return 0;
#endif
}

void engine_init(void)
{
    if (initialised)
        return;
    cpu_fast_pdep = detect_fast_pdep();
    for (int r = 0; r < 8; r++) {
        uint8_t m = 0;
        for (int q = 0; q < 8; q++)
            if (RANK_POWER[1][q] > RANK_POWER[1][r])
                m |= (uint8_t)(1u << q);
        TRUMP_ABOVE[r] = m;
    }
    for (int t = 0; t < 5; t++)
        for (int card = 0; card < NCARDS; card++) {
            int is_trump = SUIT_OF(card) == t;
            CARD_POINTS[t][card] = RANK_POINTS[is_trump][RANK_OF(card)];
            CARD_POWER[t][card] = (int8_t)((is_trump ? 16 : 8) + RANK_POWER[is_trump][RANK_OF(card)]);
        }
    for (int t = 0; t < 5; t++)
        for (int card = 0; card < NCARDS; card++) {
            uint32_t m = 0;
            int tr = SUIT_OF(card) == t;
            for (int o = SUIT_OF(card) * 8; o < SUIT_OF(card) * 8 + 8; o++)
                if (RANK_POWER[tr][RANK_OF(o)] > RANK_POWER[tr][RANK_OF(card)])
                    m |= BIT(o);
            STRONGER[t][card] = m;
        }
    for (int p = 0; p < 256; p++)
        for (int b = 0, k = 0; b < 8; b++)
            if ((p >> b) & 1)
                SELECT_IN_BYTE[p][k++] = (uint8_t)b;
    initialised = 1;
}

static inline int popcount32(uint32_t x) { return __builtin_popcount(x); }

/* ---------------------------------------------------------------- dealing */

/* the first deal: three cards to each seat from the dealer's right, then two */
static const int DEAL_CHUNKS[2] = {3, 2};

static void deal_first(Hand *h)
{
    int pos = 0;
    for (int k = 0; k < 2; k++)
        for (int i = 1; i <= 4; i++) {
            int seat = (h->dealer + i) & 3;
            for (int j = 0; j < DEAL_CHUNKS[k]; j++)
                h->hand[seat] |= BIT(h->deck[pos++]);
        }
    h->offer = (int8_t)h->deck[20];
}

static void deal_rest(Hand *h)
{
    int pos = 21;
    for (int i = 1; i <= 4; i++) {
        int seat = (h->dealer + i) & 3;
        int n = 3;
        if (seat == h->receiver) {
            h->hand[seat] |= BIT(h->offer);
            n = 2;
        }
        for (int j = 0; j < n; j++)
            h->hand[seat] |= BIT(h->deck[pos++]);
    }
    for (int s = 0; s < 4; s++)
        h->dealt[s] = h->hand[s];
}

void deck_dealing(const Hand *h, const uint32_t dealt[NSEATS], uint8_t deck[NCARDS])
{
    uint32_t rest[NSEATS];
    for (int s = 0; s < 4; s++)
        rest[s] = dealt[s] & ~(s == h->receiver ? BIT(h->offer) : 0u);
    int pos = 0;
    for (int k = 0; k < 2; k++) /* as deal_first: any five of a seat's cards */
        for (int i = 1; i <= 4; i++) {
            int seat = (h->dealer + i) & 3;
            for (int j = 0; j < DEAL_CHUNKS[k]; j++) {
                deck[pos++] = (uint8_t)__builtin_ctz(rest[seat]);
                rest[seat] &= rest[seat] - 1;
            }
        }
    deck[pos++] = (uint8_t)h->offer;
    for (int i = 1; i <= 4; i++) { /* as deal_rest: the receiver's two, the others' three */
        int seat = (h->dealer + i) & 3;
        for (; rest[seat]; rest[seat] &= rest[seat] - 1)
            deck[pos++] = (uint8_t)__builtin_ctz(rest[seat]);
    }
}

/* ----------------------------------------------------------- declarations */

/* which row of RUN_SCORE values the runs */
static inline int run_scale(const Rules *r, int kind)
{
    return r->variant != VARIANT_BALOOT ? 0 : kind == KIND_SUN ? 2 : 1;
}

static int run_value(const Rules *r, int kind, int len)
{
    return RUN_SCORE[run_scale(r, kind)][len >= 5 ? 2 : len - 3];
}

static int carre_value(const Rules *r, int kind, int rank)
{
    if (r->variant == VARIANT_BALOOT) {
        if (rank == RA)
            return kind == KIND_SUN ? 40 : 10;
        if (rank >= RT && rank <= RK)
            return kind == KIND_SUN ? 20 : 10;
        return 0;
    }
    static const int16_t v[8] = {0, 0, 150, 100, 200, 100, 100, 100};
    return v[rank];
}

/* Strength of one declaration; larger is stronger. */
static int32_t decl_key(const Rules *r, int value, int len, int top, int trump_run)
{
    if (r->variant == VARIANT_BALOOT)
        return (value << 4) | top;
    int32_t k = (len << 5) | (top << 1) | trump_run;
    if (r->declaration_order == ORDER_VALUE_FIRST)
        k |= value << 9;
    return k;
}

/* Add the runs of `cards` (maximal sequences of 3+ cards of a suit) to
   declaration d, with bit operations on the whole mask; 8 cards hold at
   most two runs. */
static inline void add_runs(uint32_t cards, const Rules *r, int kind, int trump, Decl *d)
{
    /* cards that start three in sequence in their suit */
    uint32_t s3 = cards & (cards >> 1) & (cards >> 2) & 0x3F3F3F3Fu;
    if (!s3)
        return;
    uint32_t in_runs = s3 | (s3 << 1) | (s3 << 2);
    uint32_t lows = in_runs & ~((in_runs << 1) & 0xFEFEFEFEu);
    uint32_t tops = in_runs & ~((in_runs >> 1) & 0x7F7F7F7Fu);
    d->cards |= in_runs;
    for (; tops; tops &= tops - 1, lows &= lows - 1) { /* run by run, from the lowest */
        int low = __builtin_ctz(lows), top = __builtin_ctz(tops), len = top - low + 1;
        int v = run_value(r, kind, len);
        int32_t k = decl_key(r, v, len, RANK_OF(top), SUIT_OF(top) == trump);
        d->value += v;
        if (k > d->key)
            d->key = k;
        if (len >= 5)
            d->hundred_cards |= (2u << top) - (1u << low);
    }
}

void hand_declarations(uint32_t cards, const Rules *r, int kind, int trump, Decl *out)
{
    int carre_rank[2], nc = 0;
    uint32_t fours = cards & (cards >> 8) & (cards >> 16) & (cards >> 24) & 0xFF;
    while (fours) {
        int rank = __builtin_ctz(fours);
        fours &= fours - 1;
        if (carre_value(r, kind, rank) > 0 && nc < 2)
            carre_rank[nc++] = rank;
    }
    if (nc == 0) { /* most hands */
        Decl d = {0, -1, 0, 0};
        add_runs(cards, r, kind, trump, &d);
        *out = d;
        return;
    }
    *out = (Decl){0, -1, 0, 0};
    /* each subset of carrés, then the maximal runs in what they leave */
    for (int sub = 0; sub < (1 << nc); sub++) {
        Decl d = {0, -1, 0, 0};
        uint32_t left = cards;
        for (int i = 0; i < nc; i++) {
            if (!((sub >> i) & 1))
                continue;
            uint32_t four = 0x01010101u << carre_rank[i];
            int v = carre_value(r, kind, carre_rank[i]);
            int32_t k = decl_key(r, v, 4, carre_rank[i], 0);
            d.value += v;
            if (k > d.key)
                d.key = k;
            left &= ~four;
            d.cards |= four;
        }
        add_runs(left, r, kind, trump, &d);
        if (d.value > out->value || (d.value == out->value && d.value > 0 && d.key > out->key))
            *out = d;
    }
    if (out->value == 0)
        out->key = -1;
}

static void resolve_declarations(Hand *h)
{
    int32_t best = -1;
    int team = -1;
    h->team_decl_value[0] = h->team_decl_value[1] = 0;
    /* from the first leader in playing order: in Baloot, the first of equal
       projects wins; in the other variants an exact tie scores for nobody */
    int first = (h->dealer + 1) & 3;
    int tie = 0;
    for (int i = 0; i < 4; i++) {
        int s = (first + i) & 3;
        if (!((h->declared >> s) & 1) || h->seat_decl_value[s] <= 0)
            continue;
        h->team_decl_value[s & 1] += h->seat_decl_value[s];
        int32_t k = h->seat_decl_key[s];
        if (k > best) {
            best = k;
            team = s & 1;
            tie = 0;
        } else if (k == best && (s & 1) != team) {
            tie = 1;
        }
    }
    if (tie && h->rules.variant != VARIANT_BALOOT)
        team = -1;
    h->decl_team = (int8_t)team;
    h->decl_value = team >= 0 ? h->team_decl_value[team] : 0;
}

static void fix_declarations(Hand *h)
{
    const Rules *r = &h->rules;
    h->belote_seat = -1;
    if (h->kind == KIND_TRUMP) {
        uint32_t kq = BIT(h->trump * 8 + RK) | BIT(h->trump * 8 + RQ);
        for (int s = 0; s < 4; s++)
            if ((h->dealt[s] & kq) == kq)
                h->belote_seat = (int8_t)s;
    }
    for (int s = 0; s < 4; s++) {
        Decl d;
        if (r->declarations == DECL_OFF) {
            d.value = 0;
            d.key = -1;
            d.cards = d.hundred_cards = 0;
        } else {
            hand_declarations(h->dealt[s], r, h->kind, h->trump, &d);
        }
        h->seat_decl_value[s] = d.value;
        h->seat_decl_key[s] = d.key;
        h->seat_decl_cards[s] = d.cards;
        if (r->variant == VARIANT_BALOOT && s == h->belote_seat) {
            uint32_t kq = BIT(h->trump * 8 + RK) | BIT(h->trump * 8 + RQ);
            if ((d.hundred_cards & kq) == kq)
                h->belote_seat = -1;
        }
    }
    h->declared = 0;
    h->undecided = 0;
    for (int s = 0; s < 4; s++) {
        if (h->seat_decl_value[s] <= 0)
            continue;
        if (r->declarations == DECL_CHOICE)
            h->undecided |= (int8_t)(1 << s);
        else
            h->declared |= (int8_t)(1 << s);
    }
    resolve_declarations(h);
}

/* -------------------------------------------------------------- the phases */

static void enter_turn(Hand *h)
{
    if (h->phase == PHASE_PLAY && ((h->undecided >> h->to_act) & 1))
        h->phase = PHASE_DECLARE;
}

static void start_play(Hand *h)
{
    h->phase = PHASE_PLAY;
    if (h->rules.first_lead == LEAD_AFTER_TAKER)
        h->leader = (int8_t)NEXT(h->bidder);
    else
        h->leader = (int8_t)NEXT(h->dealer);
    h->to_act = h->leader;
    enter_turn(h);
}

/* May the next raise (1 double, 2 three, 3 four, 4 gahwa) be made? */
static int raise_allowed(const Hand *h, int level)
{
    if (!h->rules.doubling || level > 4)
        return 0;
    int sun = h->kind == KIND_SUN;
    if (level == 1) {
        if (!sun)
            return 1;
        int by = h->bidder & 1;
        return h->match_before[by] >= 100 && h->match_before[by ^ 1] < 100;
    }
    if (level == 2 || level == 4)
        return !sun;
    return 1;
}

static void contract_fixed(Hand *h)
{
    deal_rest(h);
    fix_declarations(h);
    h->multiplier = 1;
    if (h->rules.variant == VARIANT_BALOOT && raise_allowed(h, 1)) {
        h->phase = PHASE_DOUBLING;
        h->to_act = (int8_t)NEXT(h->bidder);
    } else {
        start_play(h);
    }
}

static void finish(Hand *h);

static void cancel(Hand *h)
{
    h->phase = PHASE_DONE;
    h->to_act = -1;
    finish(h);
}

static int ashkal_seat(const Hand *h, int seat)
{
    int rel = (seat - h->dealer) & 3;
    return rel == 3 || rel == 0;
}

static uint64_t auction_legal(const Hand *h)
{
    const uint64_t one = 1;
    int offer_suit = SUIT_OF(h->offer);
    uint64_t m = one << ACT_PASS;
    if (h->rules.variant != VARIANT_BALOOT) {
        if (h->round == 1) {
            if (h->rules.forced_take_on_jack && RANK_OF(h->offer) == RJ && h->spoken == 0)
                return one << ACT_TAKE;
            return m | (one << ACT_TAKE);
        }
        for (int s = 0; s < 4; s++)
            if (s != offer_suit)
                m |= one << (ACT_TAKE_SUIT + s);
        return m;
    }
    if (h->round == 1)
        m |= one << ACT_HOKM;
    else if (h->round == 2)
        for (int s = 0; s < 4; s++)
            if (s != offer_suit)
                m |= one << (ACT_HOKM_SUIT + s);
    m |= one << ACT_SUN;
    if (ashkal_seat(h, h->to_act))
        m |= one << ACT_ASHKAL;
    return m;
}

static void take_contract(Hand *h, int seat, int kind, int trump, int receiver)
{
    h->bidder = (int8_t)seat;
    h->kind = (int8_t)kind;
    h->trump = (int8_t)trump;
    h->receiver = (int8_t)receiver;
    contract_fixed(h);
}

static void auction_apply(Hand *h, int a)
{
    int seat = h->to_act;
    int offer_suit = SUIT_OF(h->offer);
    if (a == ACT_PASS) {
        h->spoken++;
        h->to_act = (int8_t)NEXT(seat);
        if (h->round == 3) {
            if (h->spoken == 3)
                take_contract(h, h->pending_seat, KIND_TRUMP, h->pending_trump, h->pending_seat);
            return;
        }
        if (h->spoken == 4) {
            if (h->round == 2) {
                cancel(h);
                return;
            }
            h->round = 2;
            h->spoken = 0;
            h->to_act = (int8_t)NEXT(h->dealer);
        }
        return;
    }
    if (a == ACT_TAKE)
        take_contract(h, seat, KIND_TRUMP, offer_suit, seat);
    else if (a >= ACT_TAKE_SUIT && a < ACT_TAKE_SUIT + 4)
        take_contract(h, seat, KIND_TRUMP, a - ACT_TAKE_SUIT, seat);
    else if (a == ACT_SUN)
        take_contract(h, seat, KIND_SUN, -1, seat);
    else if (a == ACT_ASHKAL)
        take_contract(h, seat, KIND_SUN, -1, (seat + 2) & 3);
    else { /* hokm, hokm:X */
        int trump = a == ACT_HOKM ? offer_suit : a - ACT_HOKM_SUIT;
        if (!h->rules.sun_overcall) {
            take_contract(h, seat, KIND_TRUMP, trump, seat);
            return;
        }
        h->pending_seat = (int8_t)seat;
        h->pending_trump = (int8_t)trump;
        h->round = 3;
        h->spoken = 0;
        h->to_act = (int8_t)NEXT(seat);
    }
}

static uint64_t doubling_legal(const Hand *h)
{
    return (1ull << ACT_PASS) | (1ull << (ACT_DOUBLE + h->raises));
}

static void doubling_apply(Hand *h, int a)
{
    if (a == ACT_PASS) {
        start_play(h);
        return;
    }
    int level = ++h->raises;
    h->last_raiser = (int8_t)(h->to_act & 1);
    if (level == 1)
        h->multiplier = 2;
    else if (level == 2)
        h->multiplier = h->rules.three_multiplier;
    else if (level == 3)
        h->multiplier = 4;
    else
        h->gahwa = 1;
    if (!raise_allowed(h, level + 1)) {
        start_play(h);
        return;
    }
    /* odd raises by the defence, even by the buyers */
    h->to_act = (int8_t)(level & 1 ? h->bidder : NEXT(h->bidder));
}

/* --------------------------------------------------------------- the play */

/* The trick in progress as scalars. play_card_core loads it from the Hand and
   stores it back around each card; the random play-out loop (sim.c) keeps it
   in registers for the whole hand. Both play by the same trick_* functions. */
typedef struct {
    int seat;       /* to act */
    int len;        /* cards in the trick */
    int leader;
    int led;        /* suit led, once len > 0 */
    int win_seat;   /* the trick's winner so far, once len > 0 */
    int win_power;
    int win_card;
    int points;     /* card points in the trick */
    int ntricks;    /* complete tricks */
    uint32_t played;
} Trick;

static inline Trick trick_load(const Hand *h)
{
    Trick t;
    t.seat = h->to_act;
    t.len = h->trick_len;
    t.leader = h->leader;
    t.led = SUIT_OF(h->trick[0]) & 3; /* garbage but in range when leading */
    t.win_seat = h->win_seat;
    t.win_power = h->win_power;
    t.win_card = h->trick[(h->win_seat - h->leader) & 3] & 31;
    t.points = h->trick_points;
    t.ntricks = h->ntricks;
    t.played = h->played;
    return t;
}

static inline void trick_store(Hand *h, const Trick *t)
{
    h->to_act = (int8_t)t->seat;
    h->trick_len = (int8_t)t->len;
    h->leader = (int8_t)t->leader;
    h->win_seat = (int8_t)t->win_seat;
    h->win_power = (int8_t)t->win_power;
    h->trick_points = (int8_t)t->points;
    h->ntricks = (int8_t)t->ntricks;
    h->played = t->played;
}

/* The cards of `hand` that may follow to a trick led in suit `led` and won so
   far by win_card (of power win_power, by the partner or not). Branches, not
   selects: they are well predicted and let the next card start early. */
static inline uint32_t follow_legal(const Rules *r, int trump, uint32_t hand, int led,
                                    int win_power, int win_card, int partner_wins)
{
    uint32_t follow = hand & SUIT_MASK(led);
    if (trump < 0) /* Sun: follow suit if you can, else anything */
        return follow ? follow : hand;
    uint32_t trumps = hand & SUIT_MASK(trump);
    /* trumps that beat the trick's winner; every trump if no trump is in it */
    uint32_t above = (uint32_t)TRUMP_ABOVE[RANK_OF(win_card)] << (8 * trump);
    uint32_t beat = trumps & (win_power >= 16 ? above : ~0u);
    if (follow) /* trump led: beat the highest trump if you can */
        return led == trump && beat ? beat : follow;
    /* void in the led suit: trump, overtrump, unless freed by the partner */
    if (!trumps || (partner_wins && r->partner_winning_frees))
        return hand;
    if (partner_wins) /* only an opponent's trump must be beaten */
        return trumps;
    if (beat)
        return r->overtrump_when_cutting ? beat : trumps;
    return r->undertrump ? trumps : hand;
}

static inline uint32_t trick_legal(const Hand *h, const Trick *t)
{
    uint32_t hand = h->hand[t->seat];
    if (t->len == 0)
        return hand;
    return follow_legal(&h->rules, h->trump, hand, t->led, t->win_power, t->win_card,
                        t->win_seat == ((t->seat + 2) & 3));
}

static inline uint32_t legal_cards(const Hand *h)
{
    Trick t = trick_load(h);
    return trick_legal(h, &t);
}

/* The seat to act plays card c: the card and the trick so far. */
static inline void trick_card(Hand *h, Trick *t, int c)
{
    int seat = t->seat;
    h->hand[seat] &= ~BIT(c);
    t->played |= BIT(c);
    h->played_by[seat] |= BIT(c);
    h->trick[t->len++] = (int8_t)c;
    t->seat = NEXT(seat);
}

static inline void trick_lead(Hand *h, Trick *t, int c)
{
    int ti = h->trump >= 0 ? h->trump : 4;
    t->led = SUIT_OF(c);
    t->win_seat = t->seat;
    t->win_power = CARD_POWER[ti][c];
    t->win_card = c;
    t->points = CARD_POINTS[ti][c];
    trick_card(h, t, c);
}

/* The power of card c in a trick: only a card of the led suit or a trump
   may win (counts = those cards), any other has power 0. A select, not a
   branch: which card wins is a coin flip under random play. */
static inline int trick_power(int ti, uint32_t counts, int c)
{
    return CARD_POWER[ti][c] & -(int)((counts >> c) & 1);
}

static inline void trick_follow(Hand *h, Trick *t, int c)
{
    int ti = h->trump >= 0 ? h->trump : 4;
    uint32_t counts = SUIT_MASK(t->led) | (h->trump >= 0 ? SUIT_MASK(h->trump) : 0);
    int power = trick_power(ti, counts, c);
    int better = power > t->win_power;
    t->win_seat = better ? t->seat : t->win_seat;
    t->win_power = better ? power : t->win_power;
    t->win_card = better ? c : t->win_card;
    t->points += CARD_POINTS[ti][c];
    trick_card(h, t, c);
}

/* After the fourth card: the trick to its winner, who leads next.
   Returns 1 when that was the last trick. */
static inline int trick_end(Hand *h, Trick *t)
{
    int w = t->win_seat;
    h->card_points[w & 1] += (int16_t)(t->points + (t->ntricks == NTRICKS - 1 ? 10 : 0));
    h->tricks_won[w & 1]++;
    h->trick_winners[t->ntricks++] = (int8_t)w;
    t->len = 0;
    t->leader = t->seat = w;
    return t->ntricks == NTRICKS;
}

/* The seat to act plays card c. Returns 1 when that was the last card. */
static inline int trick_play(Hand *h, Trick *t, int c)
{
    if (t->len == 0)
        trick_lead(h, t, c);
    else
        trick_follow(h, t, c);
    return t->len == 4 ? trick_end(h, t) : 0;
}

/* Play card c for the seat to act: the trick, its winner and its points.
   Returns 1 when that was the last card of the hand (scoring not done). */
static inline int play_card_core(Hand *h, int c)
{
    Trick t = trick_load(h);
    int last = trick_play(h, &t, c);
    trick_store(h, &t);
    if (last) {
        h->phase = PHASE_DONE;
        h->to_act = -1;
        return 1;
    }
    if (__builtin_expect(h->undecided != 0, 0))
        enter_turn(h);
    return 0;
}

static inline void play_card(Hand *h, int c)
{
    if (play_card_core(h, c))
        finish(h);
}

/* ---------------------------------------------------------------- scoring */

int baloot_game_points(int raw, int sun)
{
    int q = raw / 10, m = raw % 10;
    if (sun)
        return 2 * q + (m < 5 ? 0 : m == 5 ? 1 : 2);
    return q + (m > 5 ? 1 : 0);
}

static void score_trump_game(Hand *h, Result *res)
{
    const Rules *r = &h->rules;
    int tk = h->bidder & 1, df = tk ^ 1;
    const int16_t *cp = h->card_points;
    int dt = h->decl_team, dv = h->decl_value;
    int bel = h->belote_seat >= 0 ? h->belote_seat & 1 : -1;
    int capot = -1;
    if (r->capot == CAPOT_PLUS100) {
        if (cp[df] == 0)
            capot = tk;
        else if (cp[tk] == 0)
            capot = df;
    } else {
        if (h->tricks_won[tk] == NTRICKS)
            capot = tk;
        else if (h->tricks_won[df] == NTRICKS)
            capot = df;
    }
    int cc = r->contract_counts_declarations;
    int a = cp[tk] + (cc && dt == tk ? dv : 0);
    int b = cp[df] + (cc && dt == df ? dv : 0);
    int made = r->variant == VARIANT_BELOTE ? a >= 82 : a > b;
    int litige = !made && r->litige_pot && a == b;
    int32_t *s = res->hand_score;
    int32_t pot = h->pot_before;
    s[0] = s[1] = 0;
    if (made) {
        for (int t = 0; t < 2; t++)
            s[t] = (r->capot == CAPOT_250 && capot == t) ? 250 : cp[t];
        if (dt >= 0)
            s[dt] += dv;
        s[tk] += pot;
        pot = 0;
        res->outcome = OUTCOME_MADE;
    } else if (litige) {
        s[df] = cp[df] + (dt == df ? dv : 0);
        pot += cp[tk] + (dt == tk ? dv : 0);
        res->outcome = OUTCOME_LITIGE;
    } else {
        s[df] = ((r->capot == CAPOT_250 && capot == df) ? 250 : 162) + (dt >= 0 ? dv : 0);
        s[df] += pot;
        pot = 0;
        res->outcome = OUTCOME_FAILED;
    }
    if (bel >= 0)
        s[bel] += 20;
    if (r->capot == CAPOT_PLUS100 && capot >= 0)
        s[capot] += 100;
    res->decl_team = (int8_t)dt;
    res->decl_value = (int16_t)(dt >= 0 ? dv : 0);
    res->belote_team = (int8_t)bel;
    res->capot_team = (int8_t)capot;
    res->litige_pot = pot;
}

static int score_baloot(Hand *h, Result *res)
{
    int sun = h->kind == KIND_SUN;
    int full = sun ? 26 : 16, kab = sun ? 44 : 25;
    int by = h->bidder & 1, df = by ^ 1;
    int gp[2], tot[2];
    gp[by] = baloot_game_points(h->card_points[by], sun);
    gp[df] = full - gp[by];
    int pt = h->decl_team, pv = pt >= 0 ? h->decl_value : 0;
    int bal = h->belote_seat >= 0 ? h->belote_seat & 1 : -1;
    int mult = h->multiplier;
    int kaboot = -1;
    if (h->tricks_won[by] == NTRICKS)
        kaboot = by;
    else if (h->tricks_won[df] == NTRICKS)
        kaboot = df;
    for (int t = 0; t < 2; t++)
        tot[t] = gp[t] + (pt == t ? pv : 0) + (bal == t ? 2 : 0);
    int32_t *s = res->hand_score;
    s[0] = s[1] = 0;
    int w;
    res->decl_team = (int8_t)pt;
    res->decl_value = (int16_t)pv;
    if (kaboot >= 0) {
        w = kaboot;
        int own = h->team_decl_value[w];
        s[w] = (kab + own) * mult + (bal == w ? 2 : 0);
        res->decl_team = (int8_t)(own > 0 ? w : -1);
        res->decl_value = (int16_t)own;
    } else if (mult == 1) {
        w = tot[by] >= tot[df] ? by : df;
        if (w == by) {
            s[by] = tot[by];
            s[df] = tot[df];
        } else {
            s[df] = full + pv + (bal >= 0 ? 2 : 0);
        }
    } else {
        int made = tot[by] > tot[df] || (tot[by] == tot[df] && h->last_raiser == df);
        w = made ? by : df;
        s[w] = (full + pv) * mult + (bal >= 0 ? 2 : 0);
    }
    if (h->gahwa) {
        s[w] = h->rules.target;
        s[w ^ 1] = 0;
    }
    res->outcome = w == by ? OUTCOME_MADE : OUTCOME_FAILED;
    res->belote_team = (int8_t)bal;
    res->capot_team = (int8_t)kaboot;
    res->litige_pot = h->pot_before;
    return w;
}

/* The hand's result from its card points (every card played): scores, and
 * the match's scores and winner after it. */
static void score_hand(Hand *h, Result *res)
{
    res->card_points[0] = h->card_points[0];
    res->card_points[1] = h->card_points[1];
    res->match_winner = -1;
    int hand_winner = -1;
    if (h->bidder < 0) {
        res->outcome = OUTCOME_CANCELLED;
        res->hand_score[0] = res->hand_score[1] = 0;
        res->litige_pot = h->pot_before;
    } else if (h->rules.variant == VARIANT_BALOOT) {
        hand_winner = score_baloot(h, res);
    } else {
        score_trump_game(h, res);
    }
    for (int t = 0; t < 2; t++)
        res->match_score[t] = h->match_before[t] + res->hand_score[t];
    if (h->gahwa) {
        res->match_winner = (int8_t)hand_winner;
    } else {
        int32_t a = res->match_score[0], b = res->match_score[1];
        if ((a >= h->rules.target || b >= h->rules.target) && a != b)
            res->match_winner = a > b ? 0 : 1;
    }
}

void hand_result_if(Hand *h, int points0, Result *res)
{
    int total = h->kind == KIND_SUN ? 130 : 162;
    int16_t points[2] = {h->card_points[0], h->card_points[1]};
    int8_t tricks[2] = {h->tricks_won[0], h->tricks_won[1]};
    int all0 = points0 == total && tricks[1] == 0;
    int all1 = points0 == 0 && tricks[0] == 0;
    h->card_points[0] = (int16_t)points0;
    h->card_points[1] = (int16_t)(total - points0);
    h->tricks_won[0] = (int8_t)(all0 ? NTRICKS : all1 ? 0 : NTRICKS / 2);
    h->tricks_won[1] = (int8_t)(NTRICKS - h->tricks_won[0]);
    score_hand(h, res);
    /* the hand as it was: scoring reads it and writes only res */
    h->card_points[0] = points[0];
    h->card_points[1] = points[1];
    h->tricks_won[0] = tricks[0];
    h->tricks_won[1] = tricks[1];
}

int hand_score_if(Hand *h, int points0, int team)
{
    Result res;
    hand_result_if(h, points0, &res);
    return res.hand_score[team] - res.hand_score[team ^ 1];
}

static void finish(Hand *h)
{
    score_hand(h, &h->result);
}

/* ------------------------------------------------------------- public API */

void hand_reset(Hand *h)
{
    int8_t dealer = h->dealer;
    h->phase = PHASE_AUCTION;
    h->to_act = (int8_t)NEXT(dealer);
    h->round = 1;
    h->spoken = 0;
    h->bidder = -1;
    h->kind = KIND_NONE;
    h->trump = -1;
    h->receiver = -1;
    h->pending_seat = -1;
    h->pending_trump = -1;
    h->multiplier = 1;
    h->raises = 0;
    h->last_raiser = -1;
    h->gahwa = 0;
    h->declared = h->undecided = 0;
    h->belote_seat = -1;
    for (int s = 0; s < 4; s++) {
        h->seat_decl_value[s] = 0;
        h->seat_decl_key[s] = -1;
        h->seat_decl_cards[s] = 0;
        h->hand[s] = 0;
        h->dealt[s] = 0;
        h->played_by[s] = 0;
        h->trick[s] = -1;
    }
    h->decl_team = -1;
    h->decl_value = 0;
    h->team_decl_value[0] = h->team_decl_value[1] = 0;
    h->played = 0;
    h->leader = -1;
    h->trick_len = 0;
    h->ntricks = 0;
    h->win_seat = -1;
    h->win_power = 0;
    h->trick_points = 0;
    for (int i = 0; i < NTRICKS; i++)
        h->trick_winners[i] = -1;
    h->card_points[0] = h->card_points[1] = 0;
    h->tricks_won[0] = h->tricks_won[1] = 0;
    h->nactions = 0;
    memset(h->actions, 0, sizeof h->actions);
    memset(&h->result, 0, sizeof(Result));
    h->result.outcome = OUTCOME_NONE;
    h->result.decl_team = h->result.belote_team = h->result.capot_team = -1;
    h->result.match_winner = -1;
    h->result.match_score[0] = h->match_before[0];
    h->result.match_score[1] = h->match_before[1];
    h->result.litige_pot = h->pot_before;
    deal_first(h);
}

void hand_new(Hand *h, const Rules *r, const uint8_t *deck, int dealer,
              int32_t score0, int32_t score1, int32_t pot)
{
    h->rules = *r;
    memcpy(h->deck, deck, NCARDS);
    h->dealer = (int8_t)dealer;
    h->match_before[0] = score0;
    h->match_before[1] = score1;
    h->pot_before = pot;
    hand_reset(h);
}

uint64_t hand_legal(const Hand *h)
{
    switch (h->phase) {
    case PHASE_PLAY:
        return legal_cards(h);
    case PHASE_AUCTION:
        return auction_legal(h);
    case PHASE_DOUBLING:
        return doubling_legal(h);
    case PHASE_DECLARE:
        return (1ull << ACT_PASS) | (1ull << ACT_DECLARE);
    default:
        return 0;
    }
}

int hand_apply(Hand *h, int a)
{
    if (h->phase == PHASE_DONE)
        return ERR_OVER;
    if (a < 0 || a >= NUM_ACTIONS || !((hand_legal(h) >> a) & 1))
        return ERR_ILLEGAL;
    hand_step(h, a);
    return OK;
}

void hand_step(Hand *h, int a)
{
    h->actions[h->nactions++] = (uint8_t)a;
    switch (h->phase) {
    case PHASE_PLAY:
        play_card(h, a);
        break;
    case PHASE_AUCTION:
        auction_apply(h, a);
        break;
    case PHASE_DOUBLING:
        doubling_apply(h, a);
        break;
    case PHASE_DECLARE: {
        int bit = 1 << h->to_act;
        h->undecided &= (int8_t)~bit;
        if (a == ACT_DECLARE) {
            h->declared |= (int8_t)bit;
            resolve_declarations(h);
        }
        h->phase = PHASE_PLAY;
        break;
    }
    }
}

int hand_undo(Hand *h)
{
    if (h->nactions == 0)
        return ERR_ILLEGAL;
    uint8_t acts[MAX_ACTIONS];
    int n = h->nactions - 1;
    memcpy(acts, h->actions, (size_t)n);
    hand_reset(h);
    for (int i = 0; i < n; i++)
        hand_apply(h, acts[i]);
    return OK;
}

/* ----------------------------------------------------------------- random */

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void rng_seed(Rng *g, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        g->s[i] = splitmix64(&seed);
}

void rng_shuffle_deck(Rng *g, uint8_t *deck)
{
    /* Fisher-Yates; each 64-bit draw gives two 32-bit numbers, reduced to
       [0, i] without bias by Lemire's multiply-and-reject */
    Rng r = *g; /* a local copy stays in registers */
    uint64_t bits = 0;
    for (int i = 0; i < NCARDS; i++)
        deck[i] = (uint8_t)i;
#pragma GCC unroll 32
    for (int i = NCARDS - 1; i > 0; i--) {
        uint32_t n = (uint32_t)i + 1, x;
        if (i & 1) {
            bits = rng_next(&r);
            x = (uint32_t)(bits >> 32);
        } else {
            x = (uint32_t)bits;
        }
        uint64_t m = (uint64_t)x * n;
        if (__builtin_expect((uint32_t)m < n, 0)) {
            uint32_t floor = (uint32_t)(-n) % n;
            while ((uint32_t)m < floor)
                m = (uint64_t)(uint32_t)(rng_next(&r) >> 32) * n;
        }
        int j = (int)(m >> 32);
        uint8_t t = deck[i];
        deck[i] = deck[j];
        deck[j] = t;
    }
    *g = r;
}
