/* Information sets, the determinization sampler and the double-dummy solver.
 * Compiled inside core.c after engine.c: it calls the engine's legal_cards
 * and play_card_core directly, so the search plays by the same rules. */
#include "search.h"
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------ information sets */

/* Cards that seat p cannot hold, given that it played c in the trick of h
 * (h is the state just before the play). The engine's legality is the
 * oracle: a duty (follow, trump, over-trump) is triggered by one card, so x
 * is excluded exactly when c would be illegal from the hand {c, x}. */
static uint32_t excluded_by_play(const Hand *h, int c, uint32_t candidates)
{
    if (h->trick_len == 0)
        return 0;
    Hand t = *h;
    uint32_t out = 0;
    int p = h->to_act;
    int led = SUIT_OF(h->trick[0]);
    candidates &= SUIT_MASK(led) | (h->trump >= 0 ? SUIT_MASK(h->trump) : 0);
    candidates &= ~BIT(c);
    while (candidates) {
        int x = __builtin_ctz(candidates);
        candidates &= candidates - 1;
        t.hand[p] = BIT(c) | BIT(x);
        if (!(legal_cards(&t) & BIT(c)))
            out |= BIT(x);
    }
    return out;
}

void infoset_build(const Hand *h, int seat, InfoSet *info)
{
    memset(info, 0, sizeof *info);
    info->seat = (int8_t)seat;
    info->own = h->hand[seat];
    uint32_t in_hands = h->hand[0] | h->hand[1] | h->hand[2] | h->hand[3];
    info->unseen = in_hands & ~h->hand[seat];
    for (int s = 0; s < 4; s++)
        info->count[s] = (int8_t)__builtin_popcount(h->hand[s]);
    if (h->bidder < 0)
        return; /* auction: nothing is known of the hidden cards yet */

    /* the offer went to a known seat */
    if (h->receiver >= 0 && h->receiver != seat && (in_hands & BIT(h->offer)))
        info->known[h->receiver] |= BIT(h->offer);

    /* replay the hand: every card played by another seat may exclude cards */
    Hand t = *h;
    hand_reset(&t);
    for (int i = 0; i < h->nactions; i++) {
        int a = h->actions[i];
        if (t.phase == PHASE_PLAY && a < NCARDS) {
            int p = t.to_act;
            if (p != seat)
                info->forbidden[p] |= excluded_by_play(&t, a, info->unseen);
            /* belote is announced with the first of K/Q of trump its holder
               plays: that card shows the other half, or, with no
               announcement, that the player does not hold it */
            if (p != seat && h->trump >= 0) {
                uint32_t kq = BIT(h->trump * 8 + RK) | BIT(h->trump * 8 + RQ);
                if ((kq & BIT(a)) && (kq & ~BIT(a) & ~t.played)) {
                    if (p == h->belote_seat)
                        info->known[p] |= kq & ~BIT(a) & in_hands;
                    else
                        info->forbidden[p] |= kq & ~BIT(a);
                }
            }
        }
        hand_step(&t, a);
    }
    /* declarations are shown once the first trick is over: their cards, and
       (declaring being automatic) that the rest of the hand declares nothing
       more; with declaring by choice only the seats that declared show */
    if (h->ntricks >= 1 && h->rules.declarations != DECL_OFF) {
        info->rules = h->rules;
        info->kind = h->kind;
        info->trump = h->trump;
        for (int s = 0; s < 4; s++) {
            int declared = (h->declared >> s) & 1;
            if (s == seat || (!declared && h->rules.declarations == DECL_CHOICE))
                continue;
            info->decl_shown |= (uint8_t)(1 << s);
            info->decl_value[s] = declared ? h->seat_decl_value[s] : 0;
            info->decl_cards[s] = declared ? h->seat_decl_cards[s] : 0;
            info->played_by[s] = h->played_by[s];
            info->known[s] |= info->decl_cards[s] & in_hands;
        }
    }
    for (int s = 0; s < 4; s++) {
        info->known[s] &= info->unseen;
        info->forbidden[s] &= info->unseen & ~info->known[s];
    }
}

/* -------------------------------------------------------------- sampler */

double sampler_init(Sampler *sp, const InfoSet *info)
{
    sp->info = *info;
    int k = 0;
    for (int s = 0; s < 4; s++)
        if (s != info->seat)
            sp->others[k++] = (int8_t)s;
    uint32_t known_all = 0;
    for (int s = 0; s < 4; s++)
        known_all |= info->known[s];
    uint32_t free = info->unseen & ~known_all;
    sp->nfree = 0;
    int ok = 1;
    for (int i = 0; i < 3; i++) {
        int s = sp->others[i];
        int need = info->count[s] - __builtin_popcount(info->known[s]);
        if (need < 0 || need > 8 || (info->known[s] & info->forbidden[s]))
            ok = 0;
        sp->need[i] = (int8_t)(need < 0 ? 0 : need > 8 ? 8 : need);
    }
    for (uint32_t m = free; m; m &= m - 1) {
        int c = __builtin_ctz(m);
        uint8_t allowed = 0;
        for (int i = 0; i < 3; i++)
            if (!(info->forbidden[sp->others[i]] & BIT(c)))
                allowed |= (uint8_t)(1 << i);
        sp->free_cards[sp->nfree] = (int8_t)c;
        sp->allowed[sp->nfree] = allowed;
        sp->nfree++;
    }
    if (sp->need[0] + sp->need[1] + sp->need[2] != sp->nfree)
        ok = 0;
    int n = sp->nfree;
    memset(sp->ways[n], 0, sizeof sp->ways[n]);
    sp->ways[n][0][0] = 1.0;
    for (int i = n - 1; i >= 0; i--) {
        int left = n - i;
        uint8_t al = sp->allowed[i];
        for (int a = 0; a < 9; a++)
            for (int b = 0; b < 9; b++) {
                int c = left - a - b;
                double w = 0;
                if (c >= 0 && c <= 8) {
                    if ((al & 1) && a > 0)
                        w += sp->ways[i + 1][a - 1][b];
                    if ((al & 2) && b > 0)
                        w += sp->ways[i + 1][a][b - 1];
                    if ((al & 4) && c > 0)
                        w += sp->ways[i + 1][a][b];
                }
                sp->ways[i][a][b] = w;
            }
    }
    sp->total = ok ? sp->ways[0][sp->need[0]][sp->need[1]] : 0.0;
    return sp->total;
}

static inline double uniform01(Rng *g) { return (double)(rng_next(g) >> 11) * 0x1.0p-53; }

/* Does the world `hands` show the declarations the information set saw? */
static int declarations_agree(const InfoSet *info, const uint32_t hands[NSEATS])
{
    for (uint32_t m = info->decl_shown; m; m &= m - 1) {
        int s = __builtin_ctz(m);
        Decl d;
        hand_declarations(hands[s] | info->played_by[s], &info->rules, info->kind, info->trump, &d);
        int value = d.value > 0 ? d.value : 0;
        if (value != info->decl_value[s] || (value > 0 && d.cards != info->decl_cards[s]))
            return 0;
    }
    return 1;
}

static void sampler_draw_once(const Sampler *sp, Rng *g, uint32_t hands[NSEATS]);

void sampler_draw(const Sampler *sp, Rng *g, uint32_t hands[NSEATS])
{
    sampler_draw_once(sp, g, hands);
    for (int k = 0; k < SAMPLER_MAX_REDRAWS && !declarations_agree(&sp->info, hands); k++)
        sampler_draw_once(sp, g, hands);
}

static void sampler_draw_once(const Sampler *sp, Rng *g, uint32_t hands[NSEATS])
{
    const InfoSet *info = &sp->info;
    for (int s = 0; s < 4; s++)
        hands[s] = info->known[s];
    hands[info->seat] = info->own;
    int a = sp->need[0], b = sp->need[1];
    for (int i = 0; i < sp->nfree; i++) {
        int c = sp->nfree - i - a - b;
        uint8_t al = sp->allowed[i];
        double w0 = (al & 1) && a > 0 ? sp->ways[i + 1][a - 1][b] : 0;
        double w1 = (al & 2) && b > 0 ? sp->ways[i + 1][a][b - 1] : 0;
        double w2 = (al & 4) && c > 0 ? sp->ways[i + 1][a][b] : 0;
        double r = uniform01(g) * (w0 + w1 + w2);
        int who = r < w0 ? 0 : (r < w0 + w1 ? 1 : 2);
        /* guard against rounding at the top end */
        if (who == 2 && w2 == 0)
            who = w1 > 0 ? 1 : 0;
        if (who == 0)
            a--;
        else if (who == 1)
            b--;
        hands[sp->others[who]] |= BIT(sp->free_cards[i]);
    }
}

/* Declarations and belote of a world follow its own hands, not the real
   ones: the real values of hidden hands must not leak into a search. Seats
   keep their decisions of the choice mode. */
static void redeclare(Hand *w)
{
    if (w->ntricks >= 1) {
        /* the declarations are public once the first trick is over: keep
           them; only who holds K+Q of trump follows the world's hands */
        w->belote_seat = -1;
        if (w->kind == KIND_TRUMP) {
            uint32_t kq = BIT(w->trump * 8 + RK) | BIT(w->trump * 8 + RQ);
            for (int s = 0; s < 4; s++)
                if (((w->hand[s] | w->played_by[s]) & kq) == kq)
                    w->belote_seat = (int8_t)s;
            if (w->rules.variant == VARIANT_BALOOT && w->belote_seat >= 0) {
                /* not both inside a hundred (a run of 5+) of its holder */
                Decl d;
                int b = w->belote_seat;
                hand_declarations(w->hand[b] | w->played_by[b], &w->rules, w->kind, w->trump, &d);
                if ((d.hundred_cards & kq) == kq)
                    w->belote_seat = -1;
            }
        }
        return;
    }
    uint8_t decided = (uint8_t)(w->declared | ~w->undecided);
    uint8_t declared = (uint8_t)w->declared;
    for (int s = 0; s < 4; s++)
        w->dealt[s] = w->hand[s] | w->played_by[s];
    fix_declarations(w);
    if (w->rules.declarations == DECL_CHOICE) {
        /* a seat that decided keeps its decision; the others decide later */
        uint8_t has = 0;
        for (int s = 0; s < 4; s++)
            if (w->seat_decl_value[s] > 0)
                has |= (uint8_t)(1 << s);
        w->declared = (int8_t)(declared & has);
        w->undecided = (int8_t)(has & ~decided & 0xF);
        resolve_declarations(w);
    }
}

void sampler_world(const Sampler *sp, Rng *g, const Hand *h, Hand *out)
{
    uint32_t hands[NSEATS];
    sampler_draw(sp, g, hands);
    *out = *h;
    for (int s = 0; s < 4; s++)
        out->hand[s] = hands[s];
    redeclare(out);
}

/* ------------------------------------------------- double-dummy solver */

static void ztables_init(void);

int solver_init(Solver *s, int table_bits)
{
    ztables_init();
    if (table_bits < 10)
        table_bits = 10;
    if (table_bits > 26)
        table_bits = 26;
    size_t n = (size_t)1 << table_bits;
    /* aligned so that a bucket of two entries is one cache line */
    s->table = (TTEntry *)aligned_alloc(64, n * sizeof(TTEntry));
    if (!s->table)
        return -1;
    memset(s->table, 0, n * sizeof(TTEntry));
    s->mask = (uint32_t)(n - 1);
    s->stamp = 1;
    s->nodes = 0;
    memset(&s->rules, 0, sizeof s->rules);
    s->kind = -1;
    s->trump = -2;
    return 0;
}

void solver_free(Solver *s)
{
    free(s->table);
    s->table = NULL;
}

void solver_clear(Solver *s)
{
    if (++s->stamp == 0) { /* wrapped: really wipe */
        memset(s->table, 0, ((size_t)s->mask + 1) * sizeof(TTEntry));
        s->stamp = 1;
    }
}

/* entries are valid for one contract and one set of rules */
static void solver_bind(Solver *s, const Hand *h)
{
    if (s->kind != h->kind || s->trump != h->trump || memcmp(&s->rules, &h->rules, sizeof(Rules))) {
        solver_clear(s);
        s->kind = h->kind;
        s->trump = h->trump;
        s->rules = h->rules;
    }
}

typedef struct {
    int8_t trick[4];
    int8_t trick_len, leader, to_act, phase, ntricks, win_seat, win_power, trick_points;
    int16_t cp0, cp1;
    int8_t tw0, tw1;
} Undo;

static inline void make_move(Hand *h, int c, Undo *u)
{
    memcpy(u->trick, h->trick, 4);
    u->trick_len = h->trick_len;
    u->leader = h->leader;
    u->to_act = h->to_act;
    u->phase = h->phase;
    u->ntricks = h->ntricks;
    u->win_seat = h->win_seat;
    u->win_power = h->win_power;
    u->trick_points = h->trick_points;
    u->cp0 = h->card_points[0];
    u->cp1 = h->card_points[1];
    u->tw0 = h->tricks_won[0];
    u->tw1 = h->tricks_won[1];
    play_card_core(h, c);
}

static inline void unmake_move(Hand *h, int c, const Undo *u)
{
    h->hand[u->to_act] |= BIT(c);
    h->played &= ~BIT(c);
    h->played_by[u->to_act] &= ~BIT(c);
    memcpy(h->trick, u->trick, 4);
    h->trick_len = u->trick_len;
    h->leader = u->leader;
    h->to_act = u->to_act;
    h->phase = u->phase;
    h->ntricks = u->ntricks;
    h->win_seat = u->win_seat;
    h->win_power = u->win_power;
    h->trick_points = u->trick_points;
    h->card_points[0] = u->cp0;
    h->card_points[1] = u->cp1;
    h->tricks_won[0] = u->tw0;
    h->tricks_won[1] = u->tw1;
}

static inline int hand_total(const Hand *h) { return h->kind == KIND_SUN ? 130 : 162; }

/* ranks from weakest to strongest, plain and trump order */
static const int8_t ORDER[2][8] = {
    {R7, R8, R9, RJ, RQ, RK, RT, RA},
    {R7, R8, RQ, RK, RT, RA, R9, RJ},
};

/* Cards of equal points are all worth 0 and are the weakest of their suit
 * (7 8 9 plain, 7 8 trump): the "zero group". Two legal cards of the group
 * with no other present card between them are equivalent. */
static uint8_t ZRED[8][8];   /* [present group bits][legal group bits] -> redundant */
static uint8_t ZCOMP[8][8];  /* [present][held] -> held bits packed to the bottom */
static uint8_t ZNTH[8][8];   /* [present][i] -> bit index of the i-th present bit */
static int ztables_ready;

static void ztables_init(void)
{
    if (ztables_ready)
        return;
    for (int p = 0; p < 8; p++) {
        int k = 0;
        for (int b = 0; b < 3; b++)
            if (p >> b & 1)
                ZNTH[p][k++] = (uint8_t)b;
        for (int l = 0; l < 8; l++) {
            int red = 0, comp = 0, prev = -1, idx = 0;
            for (int b = 0; b < 3; b++) {
                if (!(p >> b & 1))
                    continue;
                if ((l & p) >> b & 1) {
                    if (prev >= 0 && ((l >> prev) & 1))
                        red |= 1 << b;
                    comp |= 1 << idx;
                }
                prev = b;
                idx++;
            }
            ZRED[p][l] = (uint8_t)red;
            ZCOMP[p][l] = (uint8_t)comp;
        }
    }
    ztables_ready = 1;
}

static inline uint32_t zero_group(int trump)
{
    uint32_t g = 0x07070707u;
    if (trump >= 0)
        g &= ~(0x04u << (8 * trump));
    return g;
}

static inline uint32_t present_cards(const Hand *h)
{
    uint32_t present = h->hand[0] | h->hand[1] | h->hand[2] | h->hand[3];
    for (int i = 0; i < h->trick_len; i++)
        present |= BIT(h->trick[i]);
    return present;
}

static uint32_t distinct_moves(const Hand *h, uint32_t legal)
{
    uint32_t g = zero_group(h->trump);
    uint32_t lz = legal & g;
    if (__builtin_popcount(lz) <= 1)
        return legal;
    uint32_t p = present_cards(h) & g, red = 0;
    for (int s = 0; s < 4; s++)
        red |= (uint32_t)ZRED[(p >> (8 * s)) & 7][(lz >> (8 * s)) & 7] << (8 * s);
    return legal & ~red;
}

/* Order the moves: the table's best first, then cheap trick winners, then
 * the rest by points (highest first when the mover's side wins the trick). */
static int order_moves(const Hand *h, uint32_t moves, int best, int8_t *out)
{
    int n = 0, keys[8];
    int seat = h->to_act;
    int trump = h->trump;
    int ti = trump >= 0 ? trump : 4;
    int ours = h->trick_len > 0 && ((h->win_seat ^ seat) & 1) == 0;
    int led = h->trick_len ? SUIT_OF(h->trick[0]) : -1;
    uint32_t others = (h->hand[0] | h->hand[1] | h->hand[2] | h->hand[3]) & ~h->hand[seat];
    while (moves) {
        int c = __builtin_ctz(moves);
        moves &= moves - 1;
        int pts = CARD_POINTS[ti][c];
        int power = CARD_POWER[ti][c];
        int key;
        if (c == best) {
            key = 1 << 20;
        } else if (h->trick_len == 0) {
            /* lead a master (nobody holds a stronger card of its suit) */
            int stronger = (others & STRONGER[ti][c]) != 0;
            key = stronger ? 100 - power * 4 - pts : 1000 + pts * 4 + power;
        } else {
            int s = SUIT_OF(c);
            int p = (s == trump || s == led) ? power : 0;
            if (ours)
                key = 500 + pts * 8 - (s == trump) * 64;
            else if (p > h->win_power)
                key = 1000 - p * 8 + h->trick_points;
            else
                key = 200 - pts * 8 - power;
        }
        int j = n++;
        while (j > 0 && keys[j - 1] < key) {
            keys[j] = keys[j - 1];
            out[j] = out[j - 1];
            j--;
        }
        keys[j] = key;
        out[j] = (int8_t)c;
    }
    return n;
}

/* The entry of a position: one of a bucket of two (one cache line). A new
   position takes an entry of an older search if there is one, else the one
   with fewer cards left (its subtree is the cheaper to search again). */
static inline TTEntry *tt_slot(Solver *s, uint64_t lo, uint64_t hi, int leader, int *found)
{
    /* every bit of the key reaches the index: the top half of a product */
    uint64_t x = (lo ^ (hi + (uint64_t)leader) * 0xC2B2AE3D27D4EB4Full) * 0x9E3779B97F4A7C15ull;
    x ^= x >> 32;
    x *= 0xD6E8FEB86659FD93ull;
    TTEntry *b = &s->table[(uint32_t)(x >> 32) & s->mask & ~1u];
    for (int i = 0; i < 2; i++)
        if (b[i].stamp == s->stamp && b[i].lo == lo && b[i].hi == hi && b[i].leader == leader) {
            *found = 1;
            return &b[i];
        }
    *found = 0;
    if (b[0].stamp != s->stamp)
        return &b[0];
    if (b[1].stamp != s->stamp)
        return &b[1];
    int n0 = __builtin_popcountll(b[0].lo) + __builtin_popcountll(b[0].hi);
    int n1 = __builtin_popcountll(b[1].lo) + __builtin_popcountll(b[1].hi);
    return n0 <= n1 ? &b[0] : &b[1];
}

/* Team 0's final points when every hand holds one card: the last trick is
   forced (the play order still matters for who wins it). */
static int last_trick(const Hand *h)
{
    int8_t cards[4];
    for (int i = 0; i < 4; i++)
        cards[i] = i < h->trick_len ? h->trick[i] : (int8_t)__builtin_ctz(h->hand[(h->leader + i) & 3]);
    int trump = h->trump, ti = trump >= 0 ? trump : 4;
    int led = SUIT_OF(cards[0]), best = -1, who = 0, pts = 10;
    for (int i = 0; i < 4; i++) {
        int s = SUIT_OF(cards[i]);
        int p = (s == trump || s == led) ? CARD_POWER[ti][cards[i]] : 0;
        if (p > best) {
            best = p;
            who = (h->leader + i) & 3;
        }
        pts += CARD_POINTS[ti][cards[i]];
    }
    return h->card_points[0] + ((who & 1) == 0 ? pts : 0);
}

/* Transposition keys on relative ranks: the zero-point cards of a suit are
 * packed to its lowest ranks, so positions that differ only by which of
 * them were played share an entry. */
static inline void canonical_hands(const Hand *h, uint32_t ch[4], uint8_t zp[4])
{
    uint32_t g = zero_group(h->trump);
    uint32_t p = (h->hand[0] | h->hand[1] | h->hand[2] | h->hand[3]) & g;
    for (int s = 0; s < 4; s++)
        zp[s] = (uint8_t)((p >> (8 * s)) & 7);
    for (int i = 0; i < 4; i++) {
        uint32_t x = h->hand[i], c = x & ~g;
        for (int s = 0; s < 4; s++)
            c |= (uint32_t)ZCOMP[zp[s]][(x >> (8 * s)) & 7] << (8 * s);
        ch[i] = c;
    }
}

static inline int canon_card(int c, int trump, const uint8_t zp[4])
{
    int s = SUIT_OF(c), r = RANK_OF(c);
    if (!((zero_group(trump) >> c) & 1))
        return c;
    return s * 8 + __builtin_popcount(zp[s] & ((1u << r) - 1));
}

static inline int decanon(int c, int trump, const uint8_t zp[4])
{
    if (c < 0 || !((zero_group(trump) >> c) & 1))
        return c;
    int s = SUIT_OF(c);
    return s * 8 + ZNTH[zp[s]][RANK_OF(c)];
}

/* Points of the masters among cards m (no card of `others` beats them),
 * at most cap of them; returns how many. */
static inline int cash_masters(uint32_t m, uint32_t others, int ti, int cap, int *pts)
{
    int k = 0;
    while (m && k < cap) {
        int c = __builtin_ctz(m);
        m &= m - 1;
        if (!(STRONGER[ti][c] & others)) {
            *pts += CARD_POINTS[ti][c];
            k++;
        }
    }
    return k;
}

/* Quick tricks: card points the leading side is sure to take by cashing
 * the leader's masters (cards no other hand can beat), trumps first, then
 * side suits while every other hand still holding a trump must follow. */
static int quick_points(const Hand *h)
{
    int L = h->leader, trump = h->trump, ti = trump >= 0 ? trump : 4;
    uint32_t mine = h->hand[L];
    uint32_t others = 0;
    for (int i = 1; i < 4; i++)
        others |= h->hand[(L + i) & 3];
    int pts = 0;
    int ktrump = trump >= 0 ? cash_masters(mine & SUIT_MASK(trump), others, ti, 8, &pts) : 0;
    int tricks = ktrump;
    for (int s = 0; s < 4; s++) {
        uint32_t m = mine & SUIT_MASK(s);
        if (s == trump || !m)
            continue;
        int cap = 8;
        if (trump >= 0)
            for (int i = 1; i < 4; i++) {
                uint32_t oh = h->hand[(L + i) & 3];
                if (__builtin_popcount(oh & SUIT_MASK(trump)) > ktrump) {
                    int len = __builtin_popcount(oh & SUIT_MASK(s));
                    if (len < cap)
                        cap = len;
                }
            }
        tricks += cash_masters(m, others, ti, cap, &pts);
    }
    if (tricks >= NTRICKS - h->ntricks)
        pts += 10;
    return pts;
}

/* Fail-soft alpha-beta on team 0's final points, with the table holding
   bounds on team 0's future points at trick starts. */
static int ab(Solver *S, Hand *h, int alpha, int beta, int total)
{
    S->nodes++;
    int p0 = h->card_points[0];
    int rest = total - p0 - h->card_points[1];
    if (rest == 0 || h->ntricks == NTRICKS)
        return p0;
    if (h->ntricks == NTRICKS - 1)
        return last_trick(h);
    if (p0 >= beta)
        return p0;
    if (p0 + rest <= alpha)
        return p0 + rest;
    TTEntry *e = NULL;
    int best = -1;
    uint8_t zp[4];
    uint64_t lo = 0, hi = 0;
    if (h->trick_len == 0) {
        uint32_t ch[4];
        canonical_hands(h, ch, zp);
        lo = (uint64_t)ch[0] | (uint64_t)ch[1] << 32;
        hi = (uint64_t)ch[2] | (uint64_t)ch[3] << 32;
        int found;
        e = tt_slot(S, lo, hi, h->leader, &found);
        if (found) {
            int l = p0 + e->lower, u = p0 + e->upper;
            if (l >= beta)
                return l;
            if (u <= alpha)
                return u;
            if (l == u)
                return l;
            if (l > alpha)
                alpha = l;
            if (u < beta)
                beta = u;
            best = decanon(e->best, h->trump, zp);
        } else {
            /* not in the table: the leading side's quick tricks bound the
               value from its side (after the probe: a hit is cheaper) */
            int q = quick_points(h);
            if ((h->leader & 1) == 0) {
                if (p0 + q >= beta)
                    return p0 + q;
            } else if (p0 + rest - q <= alpha) {
                return p0 + rest - q;
            }
            e->stamp = S->stamp;
            e->lo = lo;
            e->hi = hi;
            e->leader = h->leader;
            e->lower = 0;
            e->upper = (int16_t)rest;
            e->best = -1;
        }
    }
    int a0 = alpha, b0 = beta;
    int maxing = (h->to_act & 1) == 0;
    int8_t order[8];
    int n = order_moves(h, distinct_moves(h, legal_cards(h)), best, order);
    int value = maxing ? -1 : 1 << 20, chosen = -1;
    for (int i = 0; i < n; i++) {
        Undo u;
        make_move(h, order[i], &u);
        int v = ab(S, h, alpha, beta, total);
        unmake_move(h, order[i], &u);
        if (maxing) {
            if (v > value) {
                value = v;
                chosen = order[i];
            }
            if (value > alpha)
                alpha = value;
        } else {
            if (v < value) {
                value = v;
                chosen = order[i];
            }
            if (value < beta)
                beta = value;
        }
        if (alpha >= beta)
            break;
    }
    if (e && e->stamp == S->stamp && e->lo == lo && e->hi == hi && e->leader == h->leader) {
        int f = value - p0;
        if (value <= a0) {
            if (f < e->upper)
                e->upper = (int16_t)f;
        } else if (value >= b0) {
            if (f > e->lower)
                e->lower = (int16_t)f;
        } else {
            e->lower = e->upper = (int16_t)f;
        }
        if (chosen >= 0)
            e->best = (int8_t)canon_card(chosen, h->trump, zp);
    }
    return value;
}

static void search_copy(const Hand *h, Hand *t)
{
    *t = *h;
    t->undecided = 0; /* declaring changes no card points */
    if (t->phase == PHASE_DECLARE)
        t->phase = PHASE_PLAY;
}

int solver_reaches(Solver *s, const Hand *h, int team, int target)
{
    Hand t;
    search_copy(h, &t);
    solver_bind(s, &t);
    int total = hand_total(&t);
    /* a zero-window search on team 0's points answers the question */
    if (team == 0)
        return ab(s, &t, target - 1, target, total) >= target;
    int cap = total - target; /* team 1 reaches target iff team 0 ends <= cap */
    return ab(s, &t, cap, cap + 1, total) <= cap;
}

/* Team 0's exact final points: zero-window searches halving the range the
   value may lie in (fail-soft results narrow it further). With the table
   keeping the bounds between them, they visit fewer nodes than one search
   with the full window. */
static int ab_exact(Solver *S, Hand *h, int total)
{
    int lo = h->card_points[0];
    int hi = total - h->card_points[1];
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        int v = ab(S, h, mid - 1, mid, total);
        if (v >= mid)
            lo = v < hi ? v : hi;
        else
            hi = v > lo ? v : lo;
    }
    return lo;
}

int solver_value(Solver *s, const Hand *h)
{
    Hand t;
    search_copy(h, &t);
    solver_bind(s, &t);
    int T = t.to_act & 1;
    int total = hand_total(&t);
    int v0 = ab_exact(s, &t, total);
    return T == 0 ? v0 : total - v0;
}

uint32_t solver_moves(Solver *s, const Hand *h, int16_t values[NCARDS])
{
    Hand t;
    search_copy(h, &t);
    solver_bind(s, &t);
    int T = t.to_act & 1;
    uint32_t legal = legal_cards(&t);
    uint32_t distinct = distinct_moves(&t, legal);
    int total = hand_total(&t);
    for (uint32_t m = distinct; m; m &= m - 1) {
        int c = __builtin_ctz(m);
        Undo u;
        make_move(&t, c, &u);
        int v0 = t.phase == PHASE_DONE ? t.card_points[0] : ab_exact(s, &t, total);
        values[c] = (int16_t)(T == 0 ? v0 : total - v0);
        unmake_move(&t, c, &u);
    }
    /* an equivalent card has the value of the one kept for it */
    for (uint32_t m = legal & ~distinct; m; m &= m - 1) {
        int c = __builtin_ctz(m);
        int s_ = SUIT_OF(c), tr = s_ == t.trump;
        uint32_t present = present_cards(&t);
        /* walk down the trick order to the kept card of its run */
        int k = 0;
        while (ORDER[tr][k] != RANK_OF(c))
            k++;
        for (int j = k - 1; j >= 0; j--) {
            int d = s_ * 8 + ORDER[tr][j];
            if (!(present & BIT(d)))
                continue;
            if (distinct & BIT(d)) {
                values[c] = values[d];
                break;
            }
        }
    }
    return legal;
}

static int bruteforce(Hand *h, int T, int total)
{
    if (h->phase == PHASE_DONE || h->ntricks == NTRICKS)
        return h->card_points[T];
    int maxing = (h->to_act & 1) == T;
    int best = maxing ? -1 : 1 << 20;
    for (uint32_t m = legal_cards(h); m; m &= m - 1) {
        int c = __builtin_ctz(m);
        Undo u;
        make_move(h, c, &u);
        int v = bruteforce(h, T, total);
        unmake_move(h, c, &u);
        if (maxing ? v > best : v < best)
            best = v;
    }
    return best;
}

int solver_bruteforce(const Hand *h)
{
    Hand t;
    search_copy(h, &t);
    return bruteforce(&t, t.to_act & 1, hand_total(&t));
}

/* ------------------------------------------------ Monte Carlo evaluation */

int determinize(const Hand *h, int seat, const Sampler *sp, Rng *g, Hand *out)
{
    if (h->bidder >= 0) {
        if (!sp || sp->total <= 0)
            return 0;
        sampler_world(sp, g, h, out);
        return 1;
    }
    /* auction: the seat knows its five cards and the offer (deck[20]) */
    uint32_t mine = h->hand[seat] | BIT(h->offer);
    uint8_t deck[NCARDS];
    int pos[NCARDS], n = 0;
    uint8_t cards[NCARDS];
    memcpy(deck, h->deck, NCARDS);
    for (int i = 0; i < NCARDS; i++)
        if (!(mine & BIT(deck[i]))) {
            pos[n] = i;
            cards[n++] = deck[i];
        }
    for (int i = n - 1; i > 0; i--) {
        int j = (int)rng_below(g, (uint32_t)i + 1);
        uint8_t t = cards[i];
        cards[i] = cards[j];
        cards[j] = t;
    }
    for (int i = 0; i < n; i++)
        deck[pos[i]] = cards[i];
    hand_new(out, &h->rules, deck, h->dealer, h->match_before[0], h->match_before[1], h->pot_before);
    for (int i = 0; i < h->nactions; i++)
        hand_step(out, h->actions[i]);
    return 1;
}

uint64_t evaluate_actions(const Hand *h, int worlds, int policy, Rng *g, double means[NUM_ACTIONS])
{
    int seat = h->to_act, team = seat & 1;
    uint64_t legal = hand_legal(h);
    for (int a = 0; a < NUM_ACTIONS; a++)
        means[a] = 0;
    if (h->phase == PHASE_DONE || !legal)
        return 0;
    Sampler *sp = NULL;
    if (h->bidder >= 0) {
        InfoSet info;
        sp = (Sampler *)malloc(sizeof(Sampler));
        if (!sp)
            return 0;
        infoset_build(h, seat, &info);
        if (sampler_init(sp, &info) <= 0) {
            free(sp);
            return 0;
        }
    }
    Hand world, w;
    for (int k = 0; k < worlds; k++) {
        if (!determinize(h, seat, sp, g, &world))
            break;
        uint64_t seed = rng_next(g); /* the same playout stream for every action */
        for (uint64_t m = legal; m; m &= m - 1) {
            int a = __builtin_ctzll(m);
            Rng pg;
            rng_seed(&pg, seed);
            w = world;
            hand_step(&w, a);
            while (w.phase != PHASE_DONE)
                hand_step(&w, policy_act(&w, policy, &pg));
            means[a] += (double)(w.result.hand_score[team] - w.result.hand_score[team ^ 1]);
        }
    }
    for (uint64_t m = legal; m; m &= m - 1)
        means[__builtin_ctzll(m)] /= worlds > 0 ? worlds : 1;
    free(sp);
    return legal;
}
