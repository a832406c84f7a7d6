/* Batch simulation: native policies and whole hands / matches in C loops.
 *
 * Policies only read what the seat to act may know: its own hand, the
 * offer, the cards played so far and the trick in progress.
 */
#include "sim.h"
#include <string.h>

#define ALL_CARDS 0xFFFFFFFFu

/* --------------------------------------------------------------- random */

/* position of the k-th set bit of m (k < popcount(m)) */
static inline int nth_bit64(uint64_t m, uint32_t k)
{
    uint32_t lo = (uint32_t)m, n_lo = (uint32_t)__builtin_popcount(lo);
    int high = k >= n_lo;
    return high ? 32 + select_bit32((uint32_t)(m >> 32), k - n_lo) : select_bit32(lo, k);
}

static int random_act(const Hand *h, Rng *g)
{
    uint64_t m = hand_legal(h);
    return nth_bit64(m, rng_below(g, (uint32_t)__builtin_popcountll(m)));
}

static inline int random_card(uint32_t legal, Rng *g, int pdep)
{
    uint32_t k = rng_below(g, (uint32_t)__builtin_popcount(legal));
    return pdep ? select_bit32_pdep(legal, k) : select_bit32(legal, k);
}

/* The play phase under random play: the same draws and the same result as
   hand_step(policy_act(...)) card by card, but a trick at a time with the
   trick in registers (the engine's trick_* functions: core.c compiles
   engine.c and this file as one unit). Compiled with and without pdep. */
static inline __attribute__((always_inline)) void play_out_random_with(Hand *h, Rng *g, int pdep)
{
    Rng r = *g;
    Trick t = trick_load(h);
    int n = h->nactions, last = 0;
    while (t.len != 0 && !last) { /* the rest of a trick begun elsewhere */
        int c = random_card(trick_legal(h, &t), &r, pdep);
        h->actions[n++] = (uint8_t)c;
        last = trick_play(h, &t, c);
    }
    while (!last) {
        int c = random_card(h->hand[t.seat], &r, pdep);
        h->actions[n++] = (uint8_t)c;
        trick_lead(h, &t, c);
#pragma GCC unroll 3
        for (int i = 1; i < 4; i++) {
            c = random_card(trick_legal(h, &t), &r, pdep);
            h->actions[n++] = (uint8_t)c;
            trick_follow(h, &t, c);
        }
        last = trick_end(h, &t);
    }
    trick_store(h, &t);
    h->nactions = (int16_t)n;
    h->phase = PHASE_DONE;
    h->to_act = -1;
    *g = r;
    finish(h);
}

static __attribute__((noinline)) void play_out_random_pdep(Hand *h, Rng *g) { play_out_random_with(h, g, 1); }
static __attribute__((noinline)) void play_out_random_portable(Hand *h, Rng *g) { play_out_random_with(h, g, 0); }

static void play_out_random(Hand *h, Rng *g)
{
    if (h->undecided) { /* declarations by choice interrupt the play */
        while (h->phase == PHASE_PLAY) {
            uint32_t m = legal_cards(h);
            int c = select_bit32(m, rng_below(g, (uint32_t)__builtin_popcount(m)));
            h->actions[h->nactions++] = (uint8_t)c;
            play_card(h, c);
        }
    } else if (cpu_fast_pdep) {
        play_out_random_pdep(h, g);
    } else {
        play_out_random_portable(h, g);
    }
}

/* --------------------------------------------------------------- greedy */

/* Contract strength of a holding with trump suit s, in half points. */
static int trump_strength(uint32_t cards, int s)
{
    static const int8_t w[8] = {1, 1, 6, 3, 8, 2, 2, 4}; /* 7 8 9 T J Q K A */
    int v = 0;
    uint32_t t = (cards >> (8 * s)) & 0xFF;
    for (int r = 0; r < 8; r++)
        if ((t >> r) & 1)
            v += w[r];
    for (int o = 0; o < 4; o++)
        if (o != s && ((cards >> (8 * o + RA)) & 1))
            v += 3;
    return v;
}

static int sun_strength(uint32_t cards)
{
    int v = 0;
    for (int s = 0; s < 4; s++) {
        uint32_t p = (cards >> (8 * s)) & 0xFF;
        if ((p >> RA) & 1)
            v += 4 + ((p >> RT) & 1) * 2;
        else if ((p >> RT) & 1)
            v += 1;
        if ((p >> RK) & 1)
            v += 1;
    }
    return v;
}

#define TAKE_AT 13
#define SUN_AT 12

/* The greedy bid of a seat holding `cards` (its first five), from the
   public state of the auction: the offer, the round and what is legal. */
static int greedy_bid_cards(uint32_t cards, int offer, int round, uint64_t legal)
{
    int offer_suit = SUIT_OF(offer);
    uint32_t with_offer = cards | BIT(offer);
    if ((legal >> ACT_SUN) & 1) {
        int at = round == 3 ? SUN_AT + 2 : SUN_AT;
        if (sun_strength(with_offer) >= at)
            return ACT_SUN;
    }
    if ((legal >> ACT_TAKE) & 1 && trump_strength(with_offer, offer_suit) >= TAKE_AT)
        return ACT_TAKE;
    if ((legal >> ACT_HOKM) & 1 && trump_strength(with_offer, offer_suit) >= TAKE_AT)
        return ACT_HOKM;
    int best = -1, best_v = TAKE_AT;
    for (int s = 0; s < 4; s++) {
        int a = (legal >> (ACT_TAKE_SUIT + s)) & 1 ? ACT_TAKE_SUIT + s
              : (legal >> (ACT_HOKM_SUIT + s)) & 1 ? ACT_HOKM_SUIT + s : -1;
        if (a < 0)
            continue;
        int v = trump_strength(with_offer, s);
        if (v >= best_v) {
            best_v = v;
            best = a;
        }
    }
    if (best >= 0)
        return best;
    if ((legal >> ACT_PASS) & 1)
        return ACT_PASS;
    return __builtin_ctzll(legal); /* forced take */
}

static int greedy_bid(const Hand *h, uint64_t legal)
{
    return greedy_bid_cards(h->hand[h->to_act], h->offer, h->round, legal);
}

static int greedy_double(const Hand *h, uint64_t legal)
{
    uint32_t cards = h->hand[h->to_act];
    int strong = h->kind == KIND_SUN ? sun_strength(cards) >= 16
                                     : trump_strength(cards, h->trump) >= 18;
    int raise = __builtin_ctzll(legal & ~(1ull << ACT_PASS));
    if (raise == ACT_GAHWA)
        strong = strong && trump_strength(cards, h->trump) >= 24;
    return strong ? raise : ACT_PASS;
}

/* power of a card in its own suit's order (trump order for trumps) */
static inline int own_power(int c, int trump)
{
    return RANK_POWER[SUIT_OF(c) == trump][RANK_OF(c)];
}

static inline int points_of(int c, int trump)
{
    return RANK_POINTS[SUIT_OF(c) == trump][RANK_OF(c)];
}

/* Is c the highest card of its suit that is still out (in hands)? */
static inline int is_master(int c, uint32_t out, int trump)
{
    return !(out & STRONGER[trump >= 0 ? trump : 4][c]);
}

static int lowest(uint32_t m, int trump)
{
    int best = -1, bv = 1 << 30;
    while (m) {
        int c = __builtin_ctz(m);
        int v = points_of(c, trump) * 16 + own_power(c, trump) + (SUIT_OF(c) == trump ? 256 : 0);
        if (v < bv) {
            bv = v;
            best = c;
        }
        m &= m - 1;
    }
    return best;
}

static int greedy_lead(const Hand *h, uint32_t legal, uint32_t out)
{
    int seat = h->to_act, trump = h->trump;
    if (trump >= 0 && (seat & 1) == (h->bidder & 1) && (out & ~h->hand[seat] & SUIT_MASK(trump))) {
        uint32_t t = legal & SUIT_MASK(trump);
        while (t) {
            int c = __builtin_ctz(t);
            if (is_master(c, out, trump))
                return c;
            t &= t - 1;
        }
    }
    int best = -1, bv = -1;
    uint32_t m = legal;
    while (m) {
        int c = __builtin_ctz(m);
        m &= m - 1;
        if (SUIT_OF(c) == trump || !is_master(c, out, trump))
            continue;
        int v = points_of(c, trump);
        if (v > bv) {
            bv = v;
            best = c;
        }
    }
    if (best >= 0)
        return best;
    /* a low card of the longest plain suit */
    int bs = -1, bl = 0;
    for (int s = 0; s < 4; s++) {
        if (s == trump)
            continue;
        int n = __builtin_popcount(legal & SUIT_MASK(s));
        if (n > bl) {
            bl = n;
            bs = s;
        }
    }
    return lowest(bs >= 0 ? legal & SUIT_MASK(bs) : legal, trump);
}

static int greedy_follow(const Hand *h, uint32_t legal, uint32_t out)
{
    int seat = h->to_act, trump = h->trump;
    int led = SUIT_OF(h->trick[0]);
    int last = h->trick_len == 3;
    int partner_wins = h->win_seat == ((seat + 2) & 3);
    int win_card = h->trick[(h->win_seat - h->leader) & 3];
    if (partner_wins && (last || (is_master(win_card, out, trump) && SUIT_OF(win_card) == led)
                         || SUIT_OF(win_card) == trump)) {
        /* give points, but keep the high trumps */
        int best = -1, bv = -1;
        uint32_t m = legal;
        while (m) {
            int c = __builtin_ctz(m);
            m &= m - 1;
            if (SUIT_OF(c) == trump && RANK_POWER[1][RANK_OF(c)] >= RANK_POWER[1][RA])
                continue;
            int v = points_of(c, trump);
            if (v > bv) {
                bv = v;
                best = c;
            }
        }
        return best >= 0 ? best : lowest(legal, trump);
    }
    if (partner_wins)
        return lowest(legal, trump);
    /* the opponents win: take it as cheaply as possible */
    int pts = 0;
    for (int i = 0; i < h->trick_len; i++)
        pts += points_of(h->trick[i], trump);
    int cheapest = -1, cv = 1 << 30;
    uint32_t m = legal;
    while (m) {
        int c = __builtin_ctz(m);
        m &= m - 1;
        if (card_power(c, led, trump) <= h->win_power)
            continue;
        int v = card_power(c, led, trump) * 32 + points_of(c, trump);
        if (v < cv) {
            cv = v;
            cheapest = c;
        }
    }
    if (cheapest >= 0 && (last || pts >= 10 || is_master(cheapest, out, trump)))
        return cheapest;
    return lowest(legal, trump);
}

static int greedy_act(const Hand *h)
{
    uint64_t legal = hand_legal(h);
    if (__builtin_popcountll(legal) == 1)
        return __builtin_ctzll(legal);
    switch (h->phase) {
    case PHASE_AUCTION:
        return greedy_bid(h, legal);
    case PHASE_DOUBLING:
        return greedy_double(h, legal);
    case PHASE_DECLARE:
        return ACT_DECLARE;
    default: {
        uint32_t out = ALL_CARDS & ~h->played; /* cards still in someone's hand */
        if (h->trick_len == 0)
            return greedy_lead(h, (uint32_t)legal, out);
        return greedy_follow(h, (uint32_t)legal, out);
    }
    }
}

int policy_act(const Hand *h, int policy, Rng *g)
{
    if (policy == POLICY_GREEDY)
        return greedy_act(h);
    return random_act(h, g);
}

/* ------------------------------------------------------------- the loops */

void rng_for(Rng *g, uint64_t key, uint64_t index)
{
    rng_seed(g, key ^ (index * 0xD1B54A32D192ED03ull + 0x8CB92BA72F3D8DD7ull));
}

void sim_hand(Hand *h, const Rules *r, const int8_t *policies, uint64_t key, uint64_t index,
              int dealer, int32_t s0, int32_t s1, int32_t pot)
{
    Rng g;
    uint8_t deck[NCARDS];
    rng_for(&g, key, index);
    rng_shuffle_deck(&g, deck);
    hand_new(h, r, deck, dealer, s0, s1, pot);
    int all_random = (policies[0] | policies[1] | policies[2] | policies[3]) == POLICY_RANDOM;
    while (h->phase != PHASE_DONE) {
        if (all_random && h->phase == PHASE_PLAY)
            play_out_random(h, &g);
        else
            hand_step(h, policy_act(h, policies[h->to_act], &g));
    }
}

void row_of(const Hand *h, HandRow *row)
{
    const Result *res = &h->result;
    for (int s = 0; s < 4; s++)
        row->dealt[s] = h->dealt[s];
    row->decl_value = res->decl_value;
    row->card_points[0] = res->card_points[0];
    row->card_points[1] = res->card_points[1];
    row->hand_score[0] = (int16_t)res->hand_score[0];
    row->hand_score[1] = (int16_t)res->hand_score[1];
    row->dealer = h->dealer;
    row->offer = h->offer;
    row->kind = h->kind;
    row->trump = h->trump;
    row->bidder = h->bidder;
    row->multiplier = h->multiplier;
    row->gahwa = h->gahwa;
    row->outcome = res->outcome;
    row->decl_team = res->decl_team;
    row->belote = res->belote_team;
    row->capot = res->capot_team;
    row->auction_round = h->bidder >= 0 ? h->round : 0; /* 3: fixed while others could overcall */
    row->tricks_won[0] = h->tricks_won[0];
    row->tricks_won[1] = h->tricks_won[1];
}

void aggregate_add(Aggregate *a, const HandRow *row)
{
    a->hands++;
    a->outcome[row->outcome]++;
    a->kind[row->kind]++;
    a->doubled += row->multiplier > 1;
    a->gahwa += row->gahwa;
    a->dealer[row->dealer]++;
    a->offer_suit[row->offer >> 3]++;
    if (row->bidder >= 0 && (row->bidder & 1) == 0)
        a->taker_team0++;
    if (row->capot >= 0)
        a->capot[row->capot]++;
    if (row->decl_team >= 0) {
        a->decl[row->decl_team]++;
        a->decl_value[row->decl_team] += row->decl_value;
    }
    if (row->belote >= 0)
        a->belote[row->belote]++;
    for (int t = 0; t < 2; t++) {
        int64_t cp = row->card_points[t], hs = row->hand_score[t];
        a->card_points[t] += cp;
        a->card_points_sq[t] += cp * cp;
        a->hand_score[t] += hs;
        a->hand_score_sq[t] += hs * hs;
    }
}

void sim_hands(const Rules *r, const int8_t *policies, uint64_t key, uint64_t start, int64_t n,
               HandRow *rows, Aggregate *agg)
{
    Hand h;
    HandRow row;
    for (int64_t i = 0; i < n; i++) {
        uint64_t index = start + (uint64_t)i;
        sim_hand(&h, r, policies, key, index, (int)(index & 3), 0, 0, 0);
        HandRow *out = rows ? &rows[i] : &row;
        row_of(&h, out);
        if (agg)
            aggregate_add(agg, out);
    }
}

void sim_matches(const Rules *r, const int8_t *policies, uint64_t key, uint64_t start, int64_t n,
                 int8_t *winner, int32_t *nhands, int32_t *score0, int32_t *score1,
                 int32_t max_hands)
{
    Hand h;
    for (int64_t i = 0; i < n; i++) {
        Rng mg;
        rng_for(&mg, key ^ 0x6A09E667F3BCC909ull, start + (uint64_t)i);
        uint64_t match_key = rng_next(&mg);
        int32_t s[2] = {score0[i], score1[i]}, pot = 0;
        int k = 0, w = -1;
        while (k < max_hands && w < 0) {
            sim_hand(&h, r, policies, match_key, (uint64_t)k, k & 3, s[0], s[1], pot);
            s[0] = h.result.match_score[0];
            s[1] = h.result.match_score[1];
            pot = h.result.litige_pot;
            w = h.result.match_winner;
            k++;
        }
        winner[i] = (int8_t)w;
        nhands[i] = k;
        score0[i] = s[0];
        score1[i] = s[1];
    }
}
