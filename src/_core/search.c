/* Information sets, the determinization sampler and the double-dummy solver.
 * Compiled inside core.c after engine.c: it calls the engine's legal_cards
 * and play_card_core directly, so the search plays by the same rules. */
#include "search.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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
    if (h->bidder < 0) {
        /* the auction: the seat has seen its five cards and the offer, no
           more; the other cards may be in any hand or still in the stock */
        info->unseen = ~(h->hand[seat] | BIT(h->offer));
        info->stock = (int8_t)(__builtin_popcount(info->unseen) - __builtin_popcount(in_hands & ~h->hand[seat]));
        return;
    }

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
    /* with declaring by choice, a seat holding a declaration is asked to
       decide at its first turn to play: from then on it is public whether it
       holds one (a seat that was not asked declares nothing) */
    if (h->rules.declarations == DECL_CHOICE) {
        info->rules = h->rules;
        info->kind = h->kind;
        info->trump = h->trump;
        for (int s = 0; s < 4; s++) {
            int turn_came = h->played_by[s] || (h->phase == PHASE_DECLARE && h->to_act == s);
            if (s == seat || !turn_came || (info->decl_shown >> s & 1))
                continue;
            info->played_by[s] = h->played_by[s];
            if (h->seat_decl_value[s] > 0)
                info->decl_some |= (uint8_t)(1 << s);
            else
                info->decl_shown |= (uint8_t)(1 << s);  /* value 0: it declares nothing */
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
    if (sp->need[0] + sp->need[1] + sp->need[2] + info->stock != sp->nfree)
        ok = 0;
    int n = sp->nfree;
    if (info->stock > 0) {
        /* the auction: nothing is known, any split of the unseen cards
           between the three hands and the stock */
        double total = 1.0;
        for (int i = 0, left = n; i < 3; left -= sp->need[i], i++)
            for (int j = 0; j < sp->need[i]; j++)
                total = total * (left - j) / (j + 1);
        sp->total = ok ? total : 0.0;
        return sp->total;
    }
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
    for (uint32_t m = info->decl_some; m; m &= m - 1) {
        int s = __builtin_ctz(m);
        Decl d;
        hand_declarations(hands[s] | info->played_by[s], &info->rules, info->kind, info->trump, &d);
        if (d.value <= 0)
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
    if (info->stock > 0) { /* the auction: a uniform split, the rest stays in the stock */
        int8_t cards[NCARDS];
        memcpy(cards, sp->free_cards, (size_t)sp->nfree);
        for (int i = 0, k = 0; i < 3; i++)
            for (int j = 0; j < sp->need[i]; j++, k++) {
                int r = k + (int)rng_below(g, (uint32_t)(sp->nfree - k));
                int8_t t = cards[k];
                cards[k] = cards[r];
                cards[r] = t;
                hands[sp->others[i]] |= BIT(cards[k]);
            }
        return;
    }
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

/* h with its hands replaced by `hands` */
static void world_of(const Hand *h, const uint32_t hands[NSEATS], Hand *out)
{
    *out = *h;
    for (int s = 0; s < 4; s++)
        out->hand[s] = hands[s];
    redeclare(out);
}

void sampler_world(const Sampler *sp, Rng *g, const Hand *h, Hand *out)
{
    uint32_t hands[NSEATS];
    sampler_draw(sp, g, hands);
    world_of(h, hands, out);
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
    memset(s->killer, -1, sizeof s->killer);
    memset(s->leads, -1, sizeof s->leads);
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
    memset(s->killer, -1, sizeof s->killer);
    memset(s->leads, -1, sizeof s->leads);
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
static uint8_t SHAPE_PACK[2][256][256]; /* [trump suit?][present][held] -> held on relative ranks */
static uint64_t SHAPE_POINTS[2][256];   /* [trump suit?][present] -> their points, weakest first, a byte each */
static uint8_t LEAST_POINTS[2][256][9]; /* [trump suit?][held][k] -> points of the k cheapest held cards */
static int ztables_ready;

static void ztables_init(void)
{
    if (ztables_ready)
        return;
    for (int p = 0; p < 8; p++)
        for (int l = 0; l < 8; l++) {
            int red = 0, prev = -1;
            for (int b = 0; b < 3; b++) {
                if (!(p >> b & 1))
                    continue;
                if ((l & p) >> b & 1 && prev >= 0 && ((l >> prev) & 1))
                    red |= 1 << b;
                prev = b;
            }
            ZRED[p][l] = (uint8_t)red;
        }
    for (int t = 0; t < 2; t++)
        for (int p = 0; p < 256; p++)
            for (int h = 0; h < 256; h++) {
                int k = 0, out = 0;
                for (int r = 0; r < 8; r++) {
                    int b = ORDER[t][r];
                    if (p >> b & 1) {
                        out |= (h >> b & 1) << k;
                        k++;
                    }
                }
                SHAPE_PACK[t][p][h] = (uint8_t)out;
            }
    for (int t = 0; t < 2; t++)
        for (int p = 0; p < 256; p++) {
            uint64_t pts = 0;
            for (int r = 0, k = 0; r < 8; r++) {
                int b = ORDER[t][r];
                if (p >> b & 1) /* suit 0's cards, trump (index 0) or not (4) */
                    pts |= (uint64_t)CARD_POINTS[t ? 0 : 4][b] << (8 * k++);
            }
            SHAPE_POINTS[t][p] = pts;
        }
    for (int t = 0; t < 2; t++)
        for (int h = 0; h < 256; h++) {
            int pts[8], n = 0;
            for (int b = 0; b < 8; b++)
                if (h >> b & 1) {
                    int v = CARD_POINTS[t ? 0 : 4][b], j = n++;
                    for (; j > 0 && pts[j - 1] > v; j--)
                        pts[j] = pts[j - 1];
                    pts[j] = v;
                }
            int sum = 0;
            LEAST_POINTS[t][h][0] = 0;
            for (int k = 0; k < 8; k++) {
                sum += k < n ? pts[k] : 0;
                LEAST_POINTS[t][h][k + 1] = (uint8_t)sum;
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

/* The search's own position: copied, not made and unmade, and holding only
   what the search reads. Cards are played by node_play (below). */
typedef struct {
    uint32_t hand[4];
    uint32_t in_trick;   /* cards of the trick in progress */
    int8_t seat, len, leader, led, win_seat, win_power, win_card, trick_pts, ntricks;
    int16_t p0;          /* team 0's points in complete tricks */
    int16_t rest;        /* points not yet in a complete trick, the last trick's 10 included */
} Node;

/* what stays fixed during a search */
typedef struct {
    Solver *S;
    const Rules *rules;
    int trump, ti;
    uint32_t trumps;     /* the trump suit's cards (0 in Sun) */
    const uint8_t (*pack[4])[256]; /* each suit's SHAPE_PACK (trump or plain order) */
} Ctx;

static void node_of(const Hand *h, int total, Node *n)
{
    for (int s = 0; s < 4; s++)
        n->hand[s] = h->hand[s];
    n->in_trick = 0;
    for (int i = 0; i < h->trick_len; i++)
        n->in_trick |= BIT(h->trick[i]);
    n->seat = h->to_act;
    n->len = h->trick_len;
    n->leader = h->leader;
    n->led = h->trick_len ? SUIT_OF(h->trick[0]) : 0;
    n->win_seat = h->win_seat;
    n->win_power = h->win_power;
    n->win_card = h->trick_len ? h->trick[(h->win_seat - h->leader) & 3] : 0;
    n->trick_pts = h->trick_len ? h->trick_points : 0;
    n->ntricks = h->ntricks;
    n->p0 = h->card_points[0];
    n->rest = (int16_t)(total - h->card_points[0] - h->card_points[1]);
}

static void ctx_of(Solver *S, const Hand *h, Ctx *X)
{
    X->S = S;
    X->rules = &h->rules;
    X->trump = h->trump;
    X->ti = h->trump >= 0 ? h->trump : 4;
    X->trumps = h->trump >= 0 ? SUIT_MASK(h->trump) : 0;
    for (int s = 0; s < 4; s++)
        X->pack[s] = SHAPE_PACK[s == h->trump];
}

/* k = n after the seat to act plays c (k may be n) */
static inline void node_play(const Ctx *X, const Node *n, int c, Node *k)
{
    int seat = n->seat, len = n->len;
    if (k != n)
        *k = *n;
    k->hand[seat] &= ~BIT(c);
    k->in_trick |= BIT(c);
    if (len == 0) {
        k->led = (int8_t)SUIT_OF(c);
        k->leader = k->win_seat = (int8_t)seat;
        k->win_power = CARD_POWER[X->ti][c];
        k->win_card = (int8_t)c;
        k->trick_pts = CARD_POINTS[X->ti][c];
    } else {
        int power = trick_power(X->ti, SUIT_MASK(k->led) | X->trumps, c);
        if (power > k->win_power) {
            k->win_seat = (int8_t)seat;
            k->win_power = (int8_t)power;
            k->win_card = (int8_t)c;
        }
        k->trick_pts = (int8_t)(k->trick_pts + CARD_POINTS[X->ti][c]);
    }
    k->seat = (int8_t)NEXT(seat);
    k->len = (int8_t)(len + 1);
    if (len == 3) { /* the trick to its winner, who leads next */
        int w = k->win_seat, pts = k->trick_pts + (k->ntricks == NTRICKS - 1 ? 10 : 0);
        if ((w & 1) == 0)
            k->p0 = (int16_t)(k->p0 + pts);
        k->rest = (int16_t)(k->rest - pts);
        k->len = 0;
        k->in_trick = 0;
        k->trick_pts = 0;
        k->leader = k->seat = (int8_t)w;
        k->ntricks++;
    }
}

static inline uint32_t node_legal(const Ctx *X, const Node *n)
{
    uint32_t hand = n->hand[n->seat];
    if (n->len == 0)
        return hand;
    return follow_legal(X->rules, X->trump, hand, n->led, n->win_power, n->win_card,
                        n->win_seat == ((n->seat + 2) & 3));
}

static inline uint32_t node_present(const Node *n)
{
    return n->hand[0] | n->hand[1] | n->hand[2] | n->hand[3] | n->in_trick;
}

static uint32_t distinct_moves(const Node *n, int trump, uint32_t legal)
{
    uint32_t g = zero_group(trump);
    uint32_t lz = legal & g;
    if (__builtin_popcount(lz) <= 1)
        return legal;
    uint32_t p = node_present(n) & g, red = 0;
    for (int s = 0; s < 4; s++)
        red |= (uint32_t)ZRED[(p >> (8 * s)) & 7][(lz >> (8 * s)) & 7] << (8 * s);
    return legal & ~red;
}

/* Could a hand still to play beat card c, were c to win the trick so far?
   (A stronger card of c's suit when it follows the led suit; void in it, a
   stronger trump, or any trump over a plain card.) For ordering only. */
static inline int beats(const Ctx *X, const Node *n, uint32_t hand, int c)
{
    if (hand & SUIT_MASK(n->led))
        return SUIT_OF(c) == n->led && (hand & STRONGER[X->ti][c]);
    return SUIT_OF(c) == X->trump ? (hand & STRONGER[X->ti][c]) != 0 : (hand & X->trumps) != 0;
}

/* Second in hand: does the next hand hold a card of the led suit stronger
   than the partner's strongest of it? For ordering only. */
static inline int next_tops_partner(const Ctx *X, const Node *n)
{
    uint32_t partner = n->hand[(n->seat + 2) & 3] & SUIT_MASK(n->led);
    if (!partner)
        return 0;
    int best = __builtin_ctz(partner);
    for (uint32_t m = partner & (partner - 1); m; m &= m - 1)
        if (CARD_POWER[X->ti][__builtin_ctz(m)] > CARD_POWER[X->ti][best])
            best = __builtin_ctz(m);
    return (n->hand[(n->seat + 1) & 3] & STRONGER[X->ti][best]) != 0;
}

/* The cards of the suits in which h holds a card. */
static inline uint32_t suits_held(uint32_t h)
{
    h |= h >> 1;
    h |= h >> 2;
    h |= h >> 4; /* bit 0 of each byte: any card of the byte's suit */
    return (h & 0x01010101u) * 0xFFu;
}

/* The cards of the suits a lead of which the partner of the seat to act
   may take (with a master, a card no opponent beats, while an opponent
   still holds the suit; or with a trump, void in the suit), and of those
   an opponent may ruff (void in the suit, with a trump). Masters are
   looked for only in the plain suits of `moves`. */
static inline void lead_suits(const Ctx *X, const Node *n, uint32_t moves, uint32_t opponents, uint32_t *takes, uint32_t *ruffed)
{
    int seat = n->seat;
    uint32_t partner = n->hand[(seat + 2) & 3], left = n->hand[(seat + 1) & 3], right = n->hand[(seat + 3) & 3];
    uint32_t t = 0, r = 0;
    if (partner & X->trumps)
        t = ~suits_held(partner);
    if (left & X->trumps)
        r |= ~suits_held(left);
    if (right & X->trumps)
        r |= ~suits_held(right);
    for (uint32_t m = partner & suits_held(opponents) & suits_held(moves) & ~X->trumps; m; m &= m - 1) {
        int c = __builtin_ctz(m);
        if (!(opponents & STRONGER[X->ti][c]))
            t |= SUIT_MASK(SUIT_OF(c));
    }
    *takes = t;
    *ruffed = r;
}

/* Order the moves (the table's best card, if any, is tried before them).
 * A leader: its masters; its other cards, first in the suits its partner
 * may take, then those its partner holds a stronger card of; master trumps
 * and masters of a suit the opponents are out of; low cards an opponent may
 * ruff; other trumps; masters an opponent may ruff. In Sun, within each of
 * these, the suits the next hand (then the last) is out of come later.
 * A follower whose side wins the trick (second in hand: whose partner may
 * beat the lead, unless the next hand tops the partner's strongest card of
 * the led suit; third: whose partner wins and the last hand cannot beat
 * it): the most points first, but masters against the other side last
 * (they would win a trick of their own); second in hand, the cards that win
 * the trick and that the next hand cannot beat before all. Otherwise its
 * trick winners, the most points first (second and third in hand: those the
 * next hand cannot beat, then the masters, their points are safe; last in
 * hand, where any winner wins: masters last), then the rest, the fewest
 * points first. */
static int order_moves(const Ctx *X, const Node *n, uint32_t moves, int8_t *out)
{
    int count = 0, keys[8];
    int seat = n->seat, trump = X->trump, ti = X->ti;
    int ours = n->len > 0 && ((n->win_seat ^ seat) & 1) == 0;
    if (n->len == 1) /* second in hand: as good as ours if the partner, last, may beat the lead */
        ours = beats(X, n, n->hand[(seat + 2) & 3], n->win_card) && !next_tops_partner(X, n);
    else if (n->len == 2 && ours) /* third: not ours while the last hand may beat the partner */
        ours = !beats(X, n, n->hand[(seat + 1) & 3], n->win_card);
    uint32_t others = (n->hand[0] | n->hand[1] | n->hand[2] | n->hand[3]) & ~n->hand[seat];
    uint32_t opponents = n->hand[(seat + 1) & 3] | n->hand[(seat + 3) & 3];
    uint32_t counts = SUIT_MASK(n->led) | X->trumps;
    uint32_t takes = 0, ruffable = 0;
    if (n->len == 0)
        lead_suits(X, n, moves, opponents, &takes, &ruffable);
    while (moves) {
        int c = __builtin_ctz(moves);
        moves &= moves - 1;
        int pts = CARD_POINTS[ti][c];
        int power = CARD_POWER[ti][c];
        int key, master; /* master: nobody holds a stronger card of its suit */
        if (n->len == 0) {
            /* tiers, best first (see above; double dummy a trump lead is
               rarely the best card); masters the most points first, the
               rest from the weakest */
            int tier, ruffed = (ruffable >> c) & 1;
            master = !(others & STRONGER[ti][c]);
            if (SUIT_OF(c) == trump)
                tier = master ? 3 : 1;
            else if (master)
                tier = ruffed ? 0 : !(opponents & SUIT_MASK(SUIT_OF(c))) ? 3 : 7;
            else if ((takes >> c) & 1)
                tier = ruffed ? 5 : 6;
            else
                tier = ruffed ? 2 : 4;
            key = tier * 256 + (master ? pts * 4 + power : 128 - power * 4 - pts);
            uint32_t suit = SUIT_MASK(SUIT_OF(c));
            if (tier == 4 && (STRONGER[ti][c] & n->hand[(seat + 2) & 3]))
                key += 64; /* the partner may win it */
            if (trump < 0) { /* Sun: a hand out of the suit throws what it likes */
                if (!(n->hand[(seat + 1) & 3] & suit))
                    key -= 32;
                if (!master && !(n->hand[(seat + 3) & 3] & suit))
                    key -= 16;
            }
        } else {
            int p = trick_power(ti, counts, c);
            int safe = p > n->win_power && n->len < 3 && !beats(X, n, n->hand[(seat + 1) & 3], c);
            if (ours)
                key = 500 + pts * 8 - (SUIT_OF(c) == trump) * 64 - !(opponents & STRONGER[ti][c]) * 128 +
                      (n->len == 1 && safe) * 256;
            else if (p > n->win_power) {
                master = !(others & STRONGER[ti][c]);
                if (n->len < 3)
                    key = safe && !master ? 2100 + pts * 8 - p : master ? 2000 + pts : 1000 + pts * 8 - p;
                else /* last: any winner wins; keep the masters */
                    key = master ? 1000 - p * 8 : 2000 + pts * 8 - p;
            } else
                key = 200 - pts * 8 - power;
        }
        int j = count++;
        while (j > 0 && keys[j - 1] < key) {
            keys[j] = keys[j - 1];
            out[j] = out[j - 1];
            j--;
        }
        keys[j] = key;
        out[j] = (int8_t)c;
    }
    return count;
}

/* A table index from a key: every bit of the key reaches the index (the
   top half of a product). */
static inline uint32_t key_index(uint64_t lo, uint64_t hi, int leader)
{
    uint64_t x = (lo ^ (hi + (uint64_t)leader) * 0xC2B2AE3D27D4EB4Full) * 0x9E3779B97F4A7C15ull;
    x ^= x >> 32;
    x *= 0xD6E8FEB86659FD93ull;
    return (uint32_t)(x >> 32);
}

/* Team 0's final points when every hand holds at most one card: the rest
   of the hand is forced. */
/* Team 0's points from the last trick, one card in each hand h, led by
   `leader` (the last trick's 10 included). */
static inline int forced_last_trick(const Ctx *X, const uint32_t *h, int leader)
{
    int w = leader, ti = X->ti;
    int c = __builtin_ctz(h[w]);
    uint32_t counts = SUIT_MASK(SUIT_OF(c)) | X->trumps;
    int best = CARD_POWER[ti][c], pts = CARD_POINTS[ti][c] + 10;
    for (int i = 1; i < 4; i++) {
        int s = (leader + i) & 3;
        c = __builtin_ctz(h[s]);
        int p = trick_power(ti, counts, c);
        if (p > best) {
            best = p;
            w = s;
        }
        pts += CARD_POINTS[ti][c];
    }
    return (w & 1) == 0 ? pts : 0;
}

static int last_trick(const Ctx *X, const Node *n)
{
    if (n->len == 0 && n->ntricks == NTRICKS - 1) /* the usual case, at the last lead */
        return n->p0 + forced_last_trick(X, n->hand, n->leader);
    Node k = *n;
    while (k.ntricks < NTRICKS)
        node_play(X, &k, __builtin_ctz(k.hand[k.seat]), &k);
    return k.p0;
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

/* The least points the three other hands add to k tricks led in suit s:
   each must follow with its cheapest cards of the suit while it has some. */
static inline int followed(const Node *n, int L, int s, int tr, int k)
{
    int pts = 0;
    for (int i = 1; i < 4; i++)
        pts += LEAST_POINTS[tr][(n->hand[(L + i) & 3] >> (8 * s)) & 0xFF][k];
    return pts;
}

/* The tricks a hand takes in suit s by leading it from its k masters, when
 * no other hand holds a trump: once no other hand holds more than k cards of
 * s, its other cards of s win too (every other hand is out of the suit). */
static inline int suit_tricks(const Node *n, int seat, int s, int k)
{
    int len = __builtin_popcount(n->hand[seat] & SUIT_MASK(s));
    if (!k || k == len)
        return k;
    for (int i = 1; i < 4; i++)
        if (__builtin_popcount(n->hand[(seat + i) & 3] & SUIT_MASK(s)) > k)
            return k;
    return len;
}

/* The partner's quick tricks after the leader's, when no hand but the
 * partner's holds a trump (always in Sun): the leader leads a low card to a
 * suit whose master the partner holds (an entry), and the partner cashes its
 * masters, every other hand following with its cheapest cards (the
 * leader's first, the entry, among them) or throwing. While the leader
 * cashes, the partner keeps the entry (it holds at least one more card);
 * with trumps it follows each of the leader's suits (quick_points stops at
 * its length); in Sun, if it has to throw a master away, the card still
 * lands with its side, and every trick left is the side's. Returns the
 * partner's tricks, adds their points to *pts. */
static inline int partner_masters(const Ctx *X, const Node *n, int L, int *pts)
{
    int ti = X->ti;
    uint32_t mine = n->hand[L], partner = n->hand[(L + 2) & 3];
    uint32_t opponents = n->hand[(L + 1) & 3] | n->hand[(L + 3) & 3];
    uint32_t masters = 0;
    for (uint32_t m = partner; m; m &= m - 1) {
        int c = __builtin_ctz(m);
        if (!(STRONGER[ti][c] & (mine | opponents)))
            masters |= BIT(c);
    }
    if (!(masters & suits_held(mine)))
        return 0;
    int P = (L + 2) & 3, tricks = 0;
    for (int s = 0; s < 4; s++) {
        uint32_t won = masters & SUIT_MASK(s);
        int ks = suit_tricks(n, P, s, __builtin_popcount(won));
        if (!ks)
            continue;
        if (ks > __builtin_popcount(won))
            won = partner & SUIT_MASK(s);
        for (; won; won &= won - 1)
            *pts += CARD_POINTS[ti][__builtin_ctz(won)];
        *pts += followed(n, P, s, s == X->trump, ks);
        tricks += ks;
    }
    return tricks;
}

/* Quick tricks: card points the leading side is sure to take by cashing
 * the leader's masters (cards no other hand can beat), trumps first, then
 * side suits while every other hand still holding a trump must follow; in
 * Sun, with the suits' other cards once the other hands are out of them
 * (suit_tricks); then, if no other hand but the partner's holds a trump,
 * the partner's (above). */
static int quick_points(const Ctx *X, const Node *n)
{
    int L = n->leader, trump = X->trump, ti = X->ti;
    uint32_t mine = n->hand[L];
    uint32_t others = 0;
    for (int i = 1; i < 4; i++)
        others |= n->hand[(L + i) & 3];
    int pts = 0;
    int ktrump = trump >= 0 ? cash_masters(mine & SUIT_MASK(trump), others, ti, 8, &pts) : 0;
    if (ktrump)
        pts += followed(n, L, trump, 1, ktrump);
    int tricks = ktrump;
    for (int s = 0; s < 4; s++) {
        uint32_t m = mine & SUIT_MASK(s);
        if (s == trump || !m)
            continue;
        int cap = 8;
        if (trump >= 0)
            for (int i = 1; i < 4; i++) {
                uint32_t oh = n->hand[(L + i) & 3];
                if (__builtin_popcount(oh & SUIT_MASK(trump)) > ktrump) {
                    int len = __builtin_popcount(oh & SUIT_MASK(s));
                    if (len < cap)
                        cap = len;
                }
            }
        int before = pts, k = cash_masters(m, others, ti, cap, &pts);
        if (trump < 0 && suit_tricks(n, L, s, k) > k) { /* every card of the suit wins */
            k = __builtin_popcount(m);
            pts = before + LEAST_POINTS[0][(m >> (8 * s)) & 0xFF][k];
        }
        if (k)
            pts += followed(n, L, s, 0, k);
        tricks += k;
    }
    if (tricks < NTRICKS - n->ntricks && !((mine | n->hand[(L + 1) & 3] | n->hand[(L + 3) & 3]) & X->trumps))
        tricks += partner_masters(X, n, L, &pts);
    if (tricks >= NTRICKS - n->ntricks)
        pts += 10;
    return pts;
}

/* Sure trump points at a trick start: the run of the strongest trumps that
 * one side holds lands with that side whatever is played (a trick holding
 * one of them is won by that side's strongest card in it). Returns the
 * run's points, *side the side holding it (0 or 1; -1: no trump left). */
static inline int sure_trumps(const Ctx *X, const Node *n, int *side)
{
    int t = X->trump;
    uint32_t side0 = (n->hand[0] | n->hand[2]) >> (8 * t) & 0xFF;
    uint32_t present = (side0 | (n->hand[1] | n->hand[3]) >> (8 * t)) & 0xFF;
    if (!present)
        return *side = -1, 0;
    /* side 0's trumps on relative ranks, weakest first; the top run */
    int k = __builtin_popcount(present);
    uint32_t full = (1u << k) - 1, x = SHAPE_PACK[1][present][side0];
    int top = x >> (k - 1) & 1;
    uint32_t other = (top ? ~x : x) & full; /* the other side's ranks */
    int from = other ? 32 - __builtin_clz(other) : 0; /* the run's weakest rank */
    *side = !top;
    return (int)((SHAPE_POINTS[1][present] >> (8 * from)) * 0x0101010101010101ull >> 56);
}

/* Shapes. Two trick starts of one shape (the same seat leads, and the k-th
 * strongest present card of each suit is in the same hand in both) play
 * alike: every comparison between cards, so every legal set and trick
 * winner, is the same. Each card's points land with the side that wins its
 * trick, so team 0's future points in the second position exceed those in
 * the first by at most the k-th cards' points that it has more of (the sum
 * over the k-th cards of b - a where b > a), and fall short by at most those
 * it has fewer of: bounds on one position, widened by these, bound the
 * other. */
static inline void shape_key(const Ctx *X, const Node *n, uint32_t present, uint64_t *lo, uint64_t *hi)
{
    /* a card's hand as two bits (odd hands; hands 2 and 3), packed per suit
       to relative ranks (16 bits a suit), and the suits' lengths */
    uint32_t odd = n->hand[1] | n->hand[3], high = n->hand[2] | n->hand[3];
    uint64_t l = 0;
    for (int s = 0; s < 4; s++) {
        const uint8_t *pack = X->pack[s][(present >> (8 * s)) & 0xFF];
        l |= (uint64_t)(pack[(odd >> (8 * s)) & 0xFF] | pack[(high >> (8 * s)) & 0xFF] << 8) << (16 * s);
    }
    /* the suits' lengths, a byte each */
    uint32_t c = present - ((present >> 1) & 0x55555555u);
    c = (c & 0x33333333u) + ((c >> 2) & 0x33333333u);
    *lo = l;
    *hi = (c + (c >> 4)) & 0x0F0F0F0Fu;
}

/* the difference in points between two sets of present cards of one shape:
   per suit, the sum of absolute differences of two rows of bytes */
static inline int shape_gap(const Ctx *X, uint32_t a, uint32_t b)
{
    int gap = 0;
    for (int s = 0; s < 4; s++) {
        int pa = (a >> (8 * s)) & 0xFF, pb = (b >> (8 * s)) & 0xFF;
        if (pa == pb)
            continue;
        uint64_t x = SHAPE_POINTS[s == X->trump][pa], y = SHAPE_POINTS[s == X->trump][pb];
#if defined(__SSE2__)
        gap += _mm_cvtsi128_si32(_mm_sad_epu8(_mm_cvtsi64_si128((long long)x), _mm_cvtsi64_si128((long long)y)));
#else
        for (; x | y; x >>= 8, y >>= 8)
            gap += abs((int)(x & 0xFF) - (int)(y & 0xFF));
#endif
    }
    return gap;
}

/* a card as suit * 8 + its rank among the present cards of its suit, and back */
static inline int shape_card(const Ctx *X, uint32_t present, int c)
{
    int s = SUIT_OF(c);
    const int8_t *order = ORDER[s == X->trump];
    for (int r = 0, k = 0; r < 8; r++) {
        if (order[r] == RANK_OF(c))
            return 8 * s + k;
        k += present >> (8 * s + order[r]) & 1;
    }
    return -1;
}

static inline int shape_uncard(const Ctx *X, uint32_t present, int sc)
{
    if (sc < 0)
        return -1;
    int s = sc >> 3;
    const int8_t *order = ORDER[s == X->trump];
    for (int r = 0, k = 0; r < 8; r++)
        if (present >> (8 * s + order[r]) & 1)
            if (k++ == (sc & 7))
                return 8 * s + order[r];
    return -1;
}

/* The bounds the table gives a trick start, from the entries of its shape
 * in its bucket of two (one cache line), widened by each one's differences
 * in points; *lower and *upper (team 0's points from here) come in as the
 * trivial bounds and are only narrowed. Returns the entry to write after
 * the search: this position's own, else one of an older search, else the
 * one with fewer cards left (its subtree is the cheaper to search again).
 * *best gets the best card of the position's own entry, else of another of
 * its shape, as suit * 8 + relative rank (-1 if none). */
static inline TTEntry *tt_probe(Solver *S, const Ctx *X, uint64_t lo, uint64_t hi, int leader, uint32_t present,
                                int rest, int *lower, int *upper, int *best, int *hit)
{
    TTEntry *b = &S->table[key_index(lo, hi, leader) & S->mask & ~1u], *own = NULL;
    *hit = 0;
    for (int i = 0; i < 2; i++) {
        TTEntry *q = &b[i];
        if (q->stamp != S->stamp || q->lo != lo || q->hi != hi || q->leader != leader)
            continue;
        /* the k-th cards' points that this position has more (up) and
           fewer (down) of than the entry's */
        int gap = shape_gap(X, q->present, present), diff = rest - q->rest;
        int up = (gap + diff) / 2, down = (gap - diff) / 2;
        if (q->lower - down > *lower)
            *lower = q->lower - down;
        if (q->upper + up < *upper)
            *upper = q->upper + up;
        if (q->present == present)
            own = q;
        if (q->present == present || !*hit)
            *best = q->best;
        *hit = 1;
    }
    if (own)
        return own;
    if (b[0].stamp != S->stamp)
        return &b[0];
    if (b[1].stamp != S->stamp)
        return &b[1];
    return __builtin_popcount(b[0].present) <= __builtin_popcount(b[1].present) ? &b[0] : &b[1];
}

/* Write a trick start's entry: its key, cards and bounds, and its best card. */
static inline void tt_store(const Ctx *X, TTEntry *e, const Node *n, uint64_t lo, uint64_t hi, uint32_t present,
                            int lower, int upper, int chosen)
{
    e->lo = lo;
    e->hi = hi;
    e->present = present;
    e->stamp = X->S->stamp;
    e->lower = (int16_t)lower;
    e->upper = (int16_t)upper;
    e->rest = n->rest;
    e->leader = n->leader;
    e->best = (int8_t)(chosen >= 0 ? shape_card(X, present, chosen) : -1);
}

/* Twin cards: two cards of one suit in one hand with no present card
 * between them in the suit's order. The games after either are the same up
 * to swapping the two (each compares alike with every other card, so the
 * legal cards and the tricks' winners are the same), and the two cards'
 * points land in tricks the same sides win: the values differ by at most
 * the difference of their points. Returns 1 if a twin of c among the cards
 * tried before it (tried[j] of value v[j]) shows that c fails the window
 * (at most alpha for the maximizing side, at least beta for the other),
 * with *bound the twin's bound on c. */
static inline int twin_fails(const Ctx *X, const Node *n, int c, const int8_t *tried, const int *v, int ntried,
                             int maxing, int alpha, int beta, int *bound)
{
    int ti = X->ti;
    uint32_t sc = STRONGER[ti][c], present = 0;
    for (int j = 0; j < ntried; j++) {
        int d = tried[j];
        if (SUIT_OF(d) != SUIT_OF(c))
            continue;
        if (!present)
            present = node_present(n);
        uint32_t sd = STRONGER[ti][d];
        uint32_t between = (sc >> d & 1) ? sc & ~sd & ~BIT(d) : sd & ~sc & ~BIT(c);
        if (present & between)
            continue;
        int gap = abs(CARD_POINTS[ti][c] - CARD_POINTS[ti][d]);
        int b = maxing ? v[j] + gap : v[j] - gap;
        if (maxing ? b <= alpha : b >= beta) {
            *bound = b;
            return 1;
        }
    }
    return 0;
}

/* The last two tricks, every hand holding at most two cards: fail-soft
   alpha-beta on bare masks, the last trick forced. Seat i of the trick
   (from its leader) is to play; the trick so far is in led (the led suit),
   ws, wp, wc (the winning seat, its power and card) and pts. Too small a
   tree for the table, the ordering or the twins to pay: skipping the
   table's probe and write here costs more instructions than it saves but
   less time (the table's lines are not fetched). */
static int two_tricks(const Ctx *X, const Node *n, uint32_t *h, int i, int led, int ws, int wp, int wc, int pts,
                      int alpha, int beta)
{
    int ti = X->ti;
    X->S->nodes++;
    if (i == 4) /* the next-to-last trick to ws, who leads the last */
        return n->p0 + ((ws & 1) == 0 ? pts : 0) + forced_last_trick(X, h, ws);
    int seat = (n->leader + i) & 3;
    uint32_t legal = i == 0 ? h[seat] : follow_legal(X->rules, X->trump, h[seat], led, wp, wc, ws == ((seat + 2) & 3));
    int maxing = (seat & 1) == 0, value = maxing ? -1 : 1 << 20;
    for (; legal; legal &= legal - 1) {
        int c = __builtin_ctz(legal), v;
        h[seat] &= ~BIT(c);
        if (i == 0) {
            v = two_tricks(X, n, h, 1, SUIT_OF(c), seat, CARD_POWER[ti][c], c, CARD_POINTS[ti][c], alpha, beta);
        } else {
            int power = trick_power(ti, SUIT_MASK(led) | X->trumps, c), better = power > wp;
            v = two_tricks(X, n, h, i + 1, led, better ? seat : ws, better ? power : wp, better ? c : wc,
                           pts + CARD_POINTS[ti][c], alpha, beta);
        }
        h[seat] |= BIT(c);
        if (maxing) {
            if (v > value && (value = v) > alpha && (alpha = v) >= beta)
                break;
        } else if (v < value && (value = v) < beta && alpha >= (beta = v)) {
            break;
        }
    }
    return value;
}

/* ab's last two tricks, from their start or from the middle of the first */
static int last_two_tricks(const Ctx *X, const Node *n, int alpha, int beta)
{
    if (n->p0 >= beta || n->p0 + n->rest <= alpha) {
        X->S->nodes++;
        return n->p0 >= beta ? n->p0 : n->p0 + n->rest;
    }
    uint32_t h[4] = {n->hand[0], n->hand[1], n->hand[2], n->hand[3]};
    if (n->len == 0) /* the usual case, apart so that the compiler specializes it */
        return two_tricks(X, n, h, 0, 0, 0, 0, 0, 0, alpha, beta);
    return two_tricks(X, n, h, n->len, n->led, n->win_seat, n->win_power, n->win_card, n->trick_pts, alpha, beta);
}

/* Move card c, if it is among order[pos..count-1], to order[pos]. */
static inline void promote(int8_t *order, int pos, int count, int c)
{
    for (int j = pos; j < count; j++)
        if (order[j] == c) {
            for (; j > pos; j--)
                order[j] = order[j - 1];
            order[pos] = (int8_t)c;
            return;
        }
}

/* Dynamic leads, where the static order misses which suit to lead more
 * often than anything else. When a lead cuts after another lead failed,
 * the solver remembers it twice: by the leader's and its partner's cards
 * (a small table hashed on them: the few collisions act as killers), and
 * by trick and seat (the killer). A trick start without the table's card
 * then tries the lead remembered for its side's cards first, the static
 * order's first card, then the killer; once the table's card fails, the
 * killer comes next. */
static inline int8_t *remembered_lead(Solver *S, const Node *n)
{
    uint64_t x = ((uint64_t)n->hand[n->seat] << 32 | n->hand[(n->seat + 2) & 3]) ^ (uint64_t)n->seat;
    x *= 0x9E3779B97F4A7C15ull;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    return &S->leads[x >> (64 - 10)];
}

/* Fail-soft alpha-beta on team 0's final points, with the table holding
   bounds on team 0's future points at trick starts (three tricks left or more). */
static int ab(const Ctx *X, const Node *n, int alpha, int beta)
{
    if (n->ntricks == NTRICKS - 2)
        return last_two_tricks(X, n, alpha, beta);
    Solver *S = X->S;
    S->nodes++;
    int p0 = n->p0, rest = n->rest;
    if (n->ntricks >= NTRICKS - 1)
        return last_trick(X, n);
    if (p0 >= beta)
        return p0;
    if (p0 + rest <= alpha)
        return p0 + rest;
    TTEntry *e = NULL;
    uint64_t lo = 0, hi = 0;
    uint32_t present = 0;
    int best = -1, lower = 0, upper = rest;
    if (n->len == 0) {
        int hit;
        present = node_present(n);
        shape_key(X, n, present, &lo, &hi);
        e = tt_probe(S, X, lo, hi, n->leader, present, rest, &lower, &upper, &best, &hit);
        if (hit) {
            if (p0 + lower >= beta)
                return p0 + lower;
            if (p0 + upper <= alpha)
                return p0 + upper;
            if (lower == upper)
                return p0 + lower;
            if (p0 + lower > alpha)
                alpha = p0 + lower;
            if (p0 + upper < beta)
                beta = p0 + upper;
            best = shape_uncard(X, present, best);
        } else {
            /* the leading side's quick tricks bound the value from its
               side, a side's sure trumps from that side (after the probe:
               a hit is cheaper) */
            int q = quick_points(X, n);
            int side = -1, t = X->trump >= 0 ? sure_trumps(X, n, &side) : 0;
            if (side == (n->leader & 1)) { /* both bound the leading side's points */
                if (t > q)
                    q = t;
            } else if (side == 0) {
                if (p0 + t >= beta)
                    return p0 + t;
            } else if (side == 1 && p0 + rest - t <= alpha) {
                return p0 + rest - t;
            }
            if ((n->leader & 1) == 0) {
                if (p0 + q >= beta)
                    return p0 + q;
            } else if (p0 + rest - q <= alpha) {
                return p0 + rest - q;
            }
        }
    }
    int a0 = alpha, b0 = beta;
    int maxing = (n->seat & 1) == 0;
    int8_t order[8];
    int count = 0;
    uint32_t legal = node_legal(X, n), later = 0;
    if (n->ntricks >= NTRICKS - 3 && n->len > 0) {
        /* a follower in the last three tricks: ordering costs more than it saves */
        for (; legal; legal &= legal - 1)
            order[count++] = (int8_t)__builtin_ctz(legal);
    } else if (!(legal & (legal - 1))) {
        order[count++] = (int8_t)__builtin_ctz(legal);
    } else if (best >= 0 && (legal >> best & 1)) {
        /* the table's best card alone: the others are ordered only if it
           does not cut */
        order[count++] = (int8_t)best;
        later = legal;
    } else {
        count = order_moves(X, n, distinct_moves(n, X->trump, legal), order);
        if (n->len == 0) {
            promote(order, 1, count, S->killer[n->ntricks][n->seat]);
            promote(order, 0, count, *remembered_lead(S, n));
        }
    }
    int value = maxing ? -1 : 1 << 20, chosen = -1;
    /* twins are worth checking where subtrees are large */
    int twins = n->ntricks <= NTRICKS - 3;
    int8_t tried[8];
    int tried_v[8];
    uint32_t tried_cards = 0;
    for (int i = 0; i < count; i++) {
        int v;
        if (!((tried_cards & SUIT_MASK(SUIT_OF(order[i]))) &&
              twin_fails(X, n, order[i], tried, tried_v, i, maxing, alpha, beta, &v))) {
            Node k;
            node_play(X, n, order[i], &k);
            v = ab(X, &k, alpha, beta);
        }
        if (twins) {
            tried[i] = order[i];
            tried_v[i] = v;
            tried_cards |= BIT(order[i]);
        }
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
        if (alpha >= beta) {
            if (n->len == 0 && i > 0) { /* the order missed: remember */
                S->killer[n->ntricks][n->seat] = order[i];
                *remembered_lead(S, n) = order[i];
            }
            break;
        }
        if (i + 1 == count && later) {
            count += order_moves(X, n, distinct_moves(n, X->trump, later) & ~BIT(order[0]), order + count);
            if (n->len == 0)
                promote(order, 1, count, S->killer[n->ntricks][n->seat]);
            later = 0;
        }
    }
    if (e) { /* this position's entry, with the bounds it had and this search's */
        int f = value - p0;
        if (value <= a0) {
            if (f < upper)
                upper = f;
        } else if (value >= b0) {
            if (f > lower)
                lower = f;
        } else {
            lower = upper = f;
        }
        /* every card failed: the one that failed least says little, so the
           table's card stays */
        if (best >= 0 && (maxing ? value <= a0 : value >= b0))
            chosen = best;
        tt_store(X, e, n, lo, hi, present, lower, upper, chosen);
    }
    return value;
}

/* The root of a search: the position of h (declaring changes no card
   points, so a hand waiting for declarations is searched as in play). */
static void search_root(Solver *s, const Hand *h, Ctx *X, Node *n)
{
    solver_bind(s, h);
    ctx_of(s, h, X);
    node_of(h, hand_total(h), n);
}

int solver_reaches(Solver *s, const Hand *h, int team, int target)
{
    Ctx X;
    Node n;
    search_root(s, h, &X, &n);
    int total = hand_total(h);
    /* a zero-window search on team 0's points answers the question */
    if (team == 0)
        return ab(&X, &n, target - 1, target) >= target;
    int cap = total - target; /* team 1 reaches target iff team 0 ends <= cap */
    return ab(&X, &n, cap, cap + 1) <= cap;
}

/* Team 0's final points clamped to lo..hi, by zero-window searches that
   halve the range the value may lie in (fail-soft results narrow it
   further), the table keeping the bounds between them: fewer nodes than one
   full-window search. */
static int ab_exact(const Ctx *X, const Node *n, int lo, int hi)
{
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        int v = ab(X, n, mid - 1, mid);
        if (v >= mid)
            lo = v < hi ? v : hi;
        else
            hi = v > lo ? v : lo;
    }
    return lo;
}

/* The value of a position clamped to a..b (a if it is at most a, b if at
 * least b): its first card's (in the search's order) clamped value, found
 * the same way, then each other card tested once, by one zero-window
 * search, for beating the best so far, and valued the same way, from that
 * search's bound, only when it does. A failed test refutes one card at one
 * threshold, where each failed probe of halving the range refutes every
 * card. */
static int value_within(const Ctx *X, const Node *n, int a, int b)
{
    if (a >= b)
        return a;
    if (n->ntricks >= NTRICKS - 1)
        return ab_exact(X, n, a, b);
    /* a trick start: the table's bounds narrow a..b, and it keeps the result */
    TTEntry *e = NULL;
    uint64_t lo = 0, hi = 0;
    uint32_t present = 0;
    int first = -1, chosen = -1, lower = 0, upper = n->rest, p0 = n->p0;
    if (n->len == 0) {
        int hit;
        present = node_present(n);
        shape_key(X, n, present, &lo, &hi);
        e = tt_probe(X->S, X, lo, hi, n->leader, present, n->rest, &lower, &upper, &first, &hit);
        if (p0 + lower > a)
            a = p0 + lower;
        if (p0 + upper < b)
            b = p0 + upper;
        if (a >= b)
            return p0 + lower >= b ? b : a;
        first = hit ? shape_uncard(X, present, first) : -1;
    }
    uint32_t moves = distinct_moves(n, X->trump, node_legal(X, n));
    int8_t order[8];
    int count = 0;
    if (first >= 0 && (moves >> first & 1))
        order[count++] = (int8_t)first;
    count += order_moves(X, n, count ? moves & ~BIT(first) : moves, order + count);
    int maxing = (n->seat & 1) == 0, best = maxing ? a : b;
    for (int i = 0; i < count && (maxing ? best < b : best > a); i++) {
        Node k;
        node_play(X, n, order[i], &k);
        int v;
        if (i == 0) {
            v = value_within(X, &k, a, b);
        } else if (maxing) {
            v = ab(X, &k, best, best + 1);
            if (v > best)
                v = value_within(X, &k, v < b ? v : b, b);
        } else {
            v = ab(X, &k, best - 1, best);
            if (v < best)
                v = value_within(X, &k, a, v > a ? v : a);
        }
        if (maxing ? v > best : v < best) {
            best = v;
            chosen = order[i];
        }
    }
    if (e) { /* inside a..b the value itself; at a an upper bound, at b a lower one */
        if (best > a && best - p0 > lower)
            lower = best - p0;
        if (best < b && best - p0 < upper)
            upper = best - p0;
        tt_store(X, e, n, lo, hi, present, lower, upper, chosen);
    }
    return best;
}

static inline int position_value(const Ctx *X, const Node *n)
{
    return value_within(X, n, n->p0, n->p0 + n->rest);
}

int solver_value(Solver *s, const Hand *h)
{
    Ctx X;
    Node n;
    search_root(s, h, &X, &n);
    /* in Sun a deal's cards often have close values, and testing each
       against the best costs more in the hardest deals than halving the
       range for all of them at once (99th percentile of nodes +28%) */
    int v0 = X.trump >= 0 ? position_value(&X, &n) : ab_exact(&X, &n, n.p0, n.p0 + n.rest);
    return (n.seat & 1) == 0 ? v0 : hand_total(h) - v0;
}

uint32_t solver_moves(Solver *s, const Hand *h, int16_t values[NCARDS])
{
    Ctx X;
    Node n;
    search_root(s, h, &X, &n);
    int T = n.seat & 1, total = hand_total(h);
    uint32_t legal = node_legal(&X, &n);
    uint32_t distinct = distinct_moves(&n, X.trump, legal);
    for (uint32_t m = distinct; m; m &= m - 1) {
        int c = __builtin_ctz(m);
        Node k;
        node_play(&X, &n, c, &k);
        int v0 = position_value(&X, &k);
        values[c] = (int16_t)(T == 0 ? v0 : total - v0);
    }
    /* an equivalent card has the value of the one kept for it */
    uint32_t present = node_present(&n);
    for (uint32_t m = legal & ~distinct; m; m &= m - 1) {
        int c = __builtin_ctz(m);
        int s_ = SUIT_OF(c), tr = s_ == X.trump;
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

static void search_copy(const Hand *h, Hand *t)
{
    *t = *h;
    t->undecided = 0; /* declaring changes no card points */
    if (t->phase == PHASE_DECLARE)
        t->phase = PHASE_PLAY;
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

/* a random order of the cards of m into `places` (as many) of the deck */
static void deal_into(uint8_t deck[NCARDS], const int8_t *places, uint32_t m, Rng *g)
{
    uint8_t cards[NCARDS];
    int n = 0;
    for (; m; m &= m - 1)
        cards[n++] = (uint8_t)__builtin_ctz(m);
    for (int i = n - 1; i > 0; i--) {
        int j = (int)rng_below(g, (uint32_t)i + 1);
        uint8_t c = cards[i];
        cards[i] = cards[j];
        cards[j] = c;
    }
    for (int i = 0; i < n; i++)
        deck[places[i]] = cards[i];
}

int determinize(const Hand *h, int seat, const Sampler *sp, Rng *g, Hand *out)
{
    if (h->bidder >= 0) {
        if (!sp || sp->total <= 0)
            return 0;
        sampler_world(sp, g, h, out);
        return 1;
    }
    /* auction: the seat knows its five cards and the offer (deck[20]); the
       unseen cards are taken in card order, not in the deck's, so that the
       world does not depend on where the hidden cards really lie */
    uint32_t mine = h->hand[seat] | BIT(h->offer);
    uint8_t deck[NCARDS];
    int8_t places[NCARDS];
    int n = 0;
    memcpy(deck, h->deck, NCARDS);
    for (int i = 0; i < NCARDS; i++)
        if (!(mine & BIT(deck[i])))
            places[n++] = (int8_t)i;
    deal_into(deck, places, ~mine, g);
    hand_new(out, &h->rules, deck, h->dealer, h->match_before[0], h->match_before[1], h->pot_before);
    for (int i = 0; i < h->nactions; i++)
        hand_step(out, h->actions[i]);
    return 1;
}

/* the belote holder as `seat` sees it: itself, or a holder who has played
   the king or queen of trump (announcing it), else -1 */
static int public_belote(const Hand *h, int seat)
{
    int b = h->belote_seat;
    if (b < 0 || b == seat || h->trump < 0)
        return b == seat ? b : -1;
    uint32_t kq = BIT(h->trump * 8 + RK) | BIT(h->trump * 8 + RQ);
    return (h->played_by[b] & kq) ? b : -1;
}

/* w shows `seat` what h shows it (the actions aside, replayed alike) */
static int shows_alike(const Hand *h, const Hand *w, int seat)
{
    if (h->phase != w->phase || h->to_act != w->to_act || public_belote(h, seat) != public_belote(w, seat))
        return 0;   /* (with declarations by choice, whether a seat is asked to decide shows it has one) */
    if (h->ntricks < 1)
        return 1;
    if (h->declared != w->declared || h->decl_team != w->decl_team || h->decl_value != w->decl_value)
        return 0;
    for (int s = 0; s < 4; s++)
        if ((h->declared >> s & 1) && h->seat_decl_cards[s] != w->seat_decl_cards[s])
            return 0;
    return 1;
}

int deal_world(const Hand *h, int seat, const uint32_t hands[NSEATS], Rng *g, Hand *out)
{
    /* each seat's places in the deck (the offer's aside), the stock's last */
    int8_t places[NSEATS + 1][NCARDS];
    int n[NSEATS + 1] = {0, 0, 0, 0, 0};
    uint32_t held[NSEATS + 1], all = 0;
    int complete = h->bidder >= 0;
    for (int s = 0; s < 4; s++) {
        held[s] = (complete ? h->dealt[s] : h->hand[s]) & ~BIT(h->offer);
        all |= hands[s] | h->played_by[s];
    }
    held[NSEATS] = ~(held[0] | held[1] | held[2] | held[3] | BIT(h->offer));
    for (int p = 0; p < NCARDS; p++)
        for (int s = 0; s <= NSEATS; s++)
            if (p != 20 && (held[s] & BIT(h->deck[p])))
                places[s][n[s]++] = (int8_t)p;
    uint8_t deck[NCARDS];
    memcpy(deck, h->deck, NCARDS);
    for (int s = 0; s < 4; s++)
        if (s != seat) {
            uint32_t m = (hands[s] | h->played_by[s]) & ~BIT(h->offer);
            if (__builtin_popcount(m) != n[s])
                return 0;
            deal_into(deck, places[s], m, g);
        }
    uint32_t stock = ~(all | BIT(h->offer));
    if (__builtin_popcount(stock) != n[NSEATS])
        return 0;
    deal_into(deck, places[NSEATS], stock, g);
    hand_new(out, &h->rules, deck, h->dealer, h->match_before[0], h->match_before[1], h->pot_before);
    int i = 0;
    while (i < h->nactions && hand_apply(out, h->actions[i]) == OK)
        i++;
    return i == h->nactions && shows_alike(h, out, seat);
}

int resample(const Hand *h, int seat, const Sampler *sp, Rng *g, Hand *out)
{
    if (!sp || sp->total <= 0)
        return 0;
    for (int t = 0; t < RESAMPLE_TRIES; t++) {
        uint32_t hands[NSEATS];
        sampler_draw(sp, g, hands);
        if (deal_world(h, seat, hands, g, out))
            return 1;
    }
    return 0;
}

/* ---------------------------------------------------- auction inference */

/* A random k-subset of the cards of m. */
static uint32_t random_subset(uint32_t m, int k, Rng *g)
{
    int8_t cards[NCARDS];
    int n = 0;
    for (; m; m &= m - 1)
        cards[n++] = (int8_t)__builtin_ctz(m);
    uint32_t out = 0;
    for (int i = 0; i < k && i < n; i++) {
        int j = i + (int)rng_below(g, (uint32_t)(n - i));
        int8_t t = cards[i];
        cards[i] = cards[j];
        cards[j] = t;
        out |= BIT(cards[i]);
    }
    return out;
}

/* The public auction of h as the greedy bidder sees it: for each bid of a
 * seat other than `seat`, the round, what was legal and what was bid. It
 * reads no card, so it is the same in every world. */
typedef struct {
    int n;
    int8_t complete, receiver, offer;
    uint8_t bidders;     /* bit per seat with a bid in the trace */
    int8_t seat[MAX_ACTIONS], round[MAX_ACTIONS], bid[MAX_ACTIONS];
    uint64_t legal[MAX_ACTIONS];
} AuctionTrace;

static void auction_trace(const Hand *h, int seat, AuctionTrace *tr)
{
    Hand t = *h;
    hand_reset(&t);
    tr->n = 0;
    tr->bidders = 0;
    tr->complete = h->bidder >= 0;
    tr->receiver = h->receiver;
    tr->offer = h->offer;
    for (int i = 0; i < h->nactions && t.phase == PHASE_AUCTION; i++) {
        int a = h->actions[i];
        if (t.to_act != seat) {
            int k = tr->n++;
            tr->seat[k] = t.to_act;
            tr->bidders |= (uint8_t)(1 << t.to_act);
            tr->round[k] = t.round;
            tr->legal[k] = hand_legal(&t);
            tr->bid[k] = (int8_t)a;
        }
        hand_step(&t, a);
    }
}

/* Bids of the trace that the greedy bidder (the `easy` bot) would not have
 * made holding a world's cards (`hands` and what each seat played). Each
 * seat bid on its first five cards; once the deal is complete they are
 * five of its eight (the offer, dealt later, excluded), which of them
 * unknown: a uniform choice, as the deal makes it. */
static int trace_mismatches(const AuctionTrace *tr, const uint32_t hands[NSEATS],
                            const uint32_t played_by[NSEATS], Rng *g)
{
    uint32_t cards[NSEATS] = {0, 0, 0, 0};
    for (int s = 0; s < 4; s++) {
        if (!(tr->bidders >> s & 1))
            continue;
        cards[s] = hands[s] | played_by[s];
        if (tr->complete) {
            if (s == tr->receiver)
                cards[s] &= ~BIT(tr->offer);
            cards[s] = random_subset(cards[s], 5, g);
        }
    }
    int miss = 0;
    for (int k = 0; k < tr->n; k++)
        miss += greedy_bid_cards(cards[tr->seat[k]], tr->offer, tr->round[k], tr->legal[k]) != tr->bid[k];
    return miss;
}

/* Keep a world with `miss` unexplained bids and `pmiss` unexplained plays? */
static inline int keep_world(int miss, double bid_weight, int pmiss, double play_weight, Rng *g)
{
    if (miss == 0 && pmiss == 0)
        return 1;
    double keep = 1.0;
    for (int i = 0; i < miss; i++)
        keep *= bid_weight;
    for (int i = 0; i < pmiss; i++)
        keep *= play_weight;
    return uniform01(g) < keep;
}

/* Plays of `seat`'s opponents that the greedy player would not have made
 * holding a world's cards: the world's deal replayed from the start. */
static int play_mismatches(const Hand *h, int seat, const uint32_t hands[NSEATS])
{
    if (h->ntricks == 0 && h->trick_len == 0)
        return 0;
    uint32_t dealt[NSEATS];
    for (int s = 0; s < 4; s++)
        dealt[s] = hands[s] | h->played_by[s];
    uint8_t deck[NCARDS];
    deck_dealing(h, dealt, deck);
    Hand t;
    hand_new(&t, &h->rules, deck, h->dealer, h->match_before[0], h->match_before[1], h->pot_before);
    int miss = 0;
    for (int i = 0; i < h->nactions; i++) {
        int a = h->actions[i];
        if (t.phase == PHASE_PLAY && ((t.to_act ^ seat) & 1))
            miss += policy_act(&t, POLICY_GREEDY, NULL) != a;
        if (hand_apply(&t, a) != OK)
            break;
    }
    return miss;
}

int determinize_weighted(const Hand *h, int seat, const Sampler *sp, Rng *g, double bid_weight,
                         double play_weight, int tries, Hand *out)
{
    if (bid_weight >= 1.0 && play_weight >= 1.0)
        return determinize(h, seat, sp, g, out);
    AuctionTrace tr;
    auction_trace(h, seat, &tr);
    int best_miss = 1 << 30;
    if (h->bidder >= 0) {
        /* the deal is complete: draw bare hands, make a world of the one kept */
        if (!sp || sp->total <= 0)
            return 0;
        uint32_t hands[NSEATS], best[NSEATS] = {0, 0, 0, 0};
        for (int k = 0; k < tries; k++) {
            sampler_draw(sp, g, hands);
            int miss = trace_mismatches(&tr, hands, h->played_by, g);
            int pmiss = play_weight < 1.0 ? play_mismatches(h, seat, hands) : 0;
            if (keep_world(miss, bid_weight, pmiss, play_weight, g)) {
                world_of(h, hands, out);
                return 1;
            }
            int rank = miss * 64 + pmiss; /* the bids first, then the plays */
            if (rank < best_miss) {
                best_miss = rank;
                memcpy(best, hands, sizeof best);
            }
        }
        world_of(h, best, out);
        return best_miss >= 64 ? 3 : play_weight < 1.0 ? 2 : 1;
    }
    Hand best;
    for (int k = 0; k < tries; k++) {
        if (!determinize(h, seat, sp, g, out))
            return 0;
        int miss = trace_mismatches(&tr, out->hand, out->played_by, g);
        if (keep_world(miss, bid_weight, 0, 1.0, g))
            return 1;
        if (miss < best_miss) {
            best_miss = miss;
            best = *out;
        }
    }
    *out = best;
    return 3;
}

void inference_after(int got, double *play_weight, int *tries)
{
    if (got >= 2) /* no world explains the plays: stop reading them */
        *play_weight = 1.0;
    if (got == 3) /* nor the auction: fewer draws for the rest of the decision */
        *tries = INFER_TRIES_UNEXPLAINED;
}

double equity_after(const Equity *eq, const Result *r, int team)
{
    if (r->match_winner >= 0)
        return r->match_winner == team ? 1.0 : 0.0;
    int32_t a = r->match_score[team], b = r->match_score[team ^ 1];
    if (a >= eq->target || b >= eq->target) /* tied past the target: the match goes on */
        return 0.5;
    int i = a / eq->step, j = b / eq->step;
    if (i >= eq->n)
        i = eq->n - 1;
    if (j >= eq->n)
        j = eq->n - 1;
    return eq->table[i * eq->n + j];
}

uint64_t evaluate_actions(const Hand *h, int64_t worlds, double time_budget, int policy, Rng *g,
                          double bid_weight, double play_weight, const Equity *eq, double means[NUM_ACTIONS],
                          int64_t *done)
{
    const int timed = time_budget > 0;
    const double deadline = timed ? clock_seconds() + time_budget : 0;
    int64_t k = 0;
    *done = 0;
    if (worlds <= 0 && !timed)
        worlds = 1; /* no budget at all: one world rather than no end */
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
    int tries = INFER_TRIES;
    for (; worlds <= 0 || k < worlds; k++) {
        if (timed && k > 0 && clock_seconds() >= deadline)
            break;
        if ((k & 255) == 255 && should_stop())
            break;
        int got = determinize_weighted(h, seat, sp, g, bid_weight, play_weight, tries, &world);
        if (!got)
            break;
        inference_after(got, &play_weight, &tries);
        uint64_t seed = rng_next(g); /* the same playout stream for every action */
        for (uint64_t m = legal; m; m &= m - 1) {
            int a = __builtin_ctzll(m);
            Rng pg;
            rng_seed(&pg, seed);
            w = world;
            hand_step(&w, a);
            while (w.phase != PHASE_DONE)
                hand_step(&w, policy_act(&w, policy, &pg));
            means[a] += eq ? equity_after(eq, &w.result, team)
                           : (double)(w.result.hand_score[team] - w.result.hand_score[team ^ 1]);
        }
    }
    for (uint64_t m = legal; m; m &= m - 1)
        means[__builtin_ctzll(m)] /= k > 0 ? (double)k : 1.0;
    free(sp);
    *done = k;
    return legal;
}

int (*stop_requested)(void) = NULL;

double clock_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int64_t solver_pimc(Solver *s, const Hand *h, const Sampler *sp, Rng *g, double bid_weight, double play_weight,
                    int64_t max_worlds, double time_budget, int by_score, const Equity *eq, double sums[NCARDS],
                    uint32_t *legal)
{
    const int team = h->to_act & 1, total = hand_total(h);
    const int timed = time_budget > 0;
    const double deadline = timed ? clock_seconds() + time_budget : 0;
    int16_t values[NCARDS];
    Hand world;
    int64_t n = 0;
    int tries = INFER_TRIES;
    *legal = 0;
    if (max_worlds <= 0 && !timed)
        max_worlds = 1; /* no budget at all: one world rather than no end */
    while (max_worlds <= 0 || n < max_worlds) {
        if (timed && n > 0 && clock_seconds() >= deadline)
            break;
        if ((n & 7) == 7 && should_stop())
            break;
        int got = determinize_weighted(h, h->to_act, sp, g, bid_weight, play_weight, tries, &world);
        if (!got)
            break;
        inference_after(got, &play_weight, &tries);
        uint32_t m = solver_moves(s, &world, values);
        *legal = m;
        for (; m; m &= m - 1) {
            int c = __builtin_ctz(m), v = values[c];
            if (eq) {
                Result r;
                hand_result_if(&world, team == 0 ? v : total - v, &r);
                sums[c] += equity_after(eq, &r, team) + v * PIMC_EQUITY_POINTS_WEIGHT;
            } else if (by_score) /* card points only break ties of hand score */
                sums[c] += hand_score_if(&world, team == 0 ? v : total - v, team) + v * PIMC_POINTS_WEIGHT;
            else
                sums[c] += v;
        }
        n++;
    }
    return n;
}
