/* A plain C loop playing random `balout` hands: the yardstick of issue #4
 * ("a plain C loop over 32-bit masks doing the same work reaches about
 * 1.6 million hands per second on one core").
 *
 * It shares no code with the extension and takes no shortcut the engine
 * could not: shuffle, deal, auction (uniform over the legal calls),
 * uniformly random legal play under the balout rules, every declaration
 * (runs, carres, the carre/run choice, the 000 ranking), belote, capot and
 * the hand scores. It keeps no records and no per-hand rows, like the
 * engine's aggregate mode. The benchmark compiles it with the extension's
 * flags and times both in the same run, so the ratio does not depend on
 * how busy the machine is; it also checks that both play the same game
 * (make rate, declarations, card points agree statistically).
 *
 * Cards: suit * 8 + rank, ranks 7 8 9 T J Q K A (sequence order).
 */
#include <stdint.h>

enum { R7, R8, R9, RT, RJ, RQ, RK, RA };

static const int POINTS[2][8] = {{0, 0, 0, 10, 2, 3, 4, 11},    /* plain */
                                 {0, 0, 14, 10, 20, 3, 4, 11}}; /* trump */
static const int POWER[2][8] = {{1, 2, 3, 7, 4, 5, 6, 8},
                                {1, 2, 7, 5, 8, 3, 4, 6}};

typedef struct { uint64_t s[4]; } Xoshiro;

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t next64(Xoshiro *g)
{
    uint64_t *s = g->s, r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return r;
}

static uint32_t below(Xoshiro *g, uint32_t n) { return (uint32_t)(((next64(g) >> 32) * n) >> 32); }

static void seed(Xoshiro *g, uint64_t x)
{
    for (int i = 0; i < 4; i++) {
        uint64_t z = (x += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        g->s[i] = z ^ (z >> 31);
    }
}

static int nth_card(uint32_t m, uint32_t k)
{
    while (k--)
        m &= m - 1;
    return __builtin_ctz(m);
}

/* ------------------------------------------------------------ declarations */

typedef struct { int value, best; } Declared; /* best: ranking key, 0 = none */

static int run_value(int len) { return len >= 5 ? 100 : len == 4 ? 50 : 20; }

/* maximal runs of 3+ among the cards m; adds values, raises the best key */
static void runs(uint32_t m, int trump, Declared *d)
{
    for (int s = 0; s < 4; s++) {
        uint32_t x = (m >> (8 * s)) & 0xFF;
        while (x) {
            int lo = __builtin_ctz(x), len = __builtin_ctz(~(x >> lo));
            x &= ~(((1u << len) - 1) << lo);
            if (len < 3)
                continue;
            d->value += run_value(len);
            int key = len * 64 + (lo + len - 1) * 2 + (s == trump);
            if (key > d->best)
                d->best = key;
        }
    }
}

static Declared declare(uint32_t hand, int trump)
{
    static const int CARRE[8] = {0, 0, 150, 100, 200, 100, 100, 100};
    int carres[2], nc = 0;
    for (int r = R9; r <= RA; r++)
        if (((hand >> r) & (hand >> (8 + r)) & (hand >> (16 + r)) & (hand >> (24 + r)) & 1))
            carres[nc++] = r;
    Declared best = {0, 0};
    for (int sub = 0; sub < (1 << nc); sub++) {
        Declared d = {0, 0};
        uint32_t left = hand;
        for (int i = 0; i < nc; i++)
            if (sub >> i & 1) {
                int r = carres[i];
                left &= ~(0x01010101u << r);
                d.value += CARRE[r];
                if (4 * 64 + r * 2 > d.best)
                    d.best = 4 * 64 + r * 2;
            }
        runs(left, trump, &d);
        if (d.value > best.value || (d.value == best.value && d.best > best.best))
            best = d;
    }
    return best;
}

/* ------------------------------------------------------------ one hand */

/* ABOVE[trump][p]: the trumps of power > p */
static uint32_t ABOVE[4][9];

static void init_above(void)
{
    for (int t = 0; t < 4; t++)
        for (int p = 0; p <= 8; p++)
            for (int r = 0; r < 8; r++)
                if (POWER[1][r] > p)
                    ABOVE[t][p] |= 1u << (8 * t + r);
}

typedef struct {
    int64_t hands, made, failed, litige, cancelled, capot, decl, decl_value, belote,
        card_points0, hand_score0;
} Totals;

static void play_hand(Xoshiro *g, int dealer, Totals *tot)
{
    uint8_t deck[32];
    for (int i = 0; i < 32; i++)
        deck[i] = (uint8_t)i;
    for (int i = 31; i > 0; i--) {
        int j = (int)below(g, (uint32_t)i + 1);
        uint8_t c = deck[i];
        deck[i] = deck[j];
        deck[j] = c;
    }
    uint32_t hand[4] = {0, 0, 0, 0};
    int pos = 0;
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 3; i++)
            hand[(dealer + 1 + k) & 3] |= 1u << deck[pos++];
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 2; i++)
            hand[(dealer + 1 + k) & 3] |= 1u << deck[pos++];
    int offer = deck[pos++];

    /* auction */
    int taker = -1, trump = -1;
    for (int k = 0; k < 4 && taker < 0; k++) {
        int forced = k == 0 && offer % 8 == RJ;
        if (forced || below(g, 2))
            taker = (dealer + 1 + k) & 3, trump = offer / 8;
    }
    for (int k = 0; k < 4 && taker < 0; k++) {
        int call = (int)below(g, 4); /* pass or one of the 3 other suits */
        if (call)
            taker = (dealer + 1 + k) & 3, trump = (offer / 8 + call) & 3;
    }
    tot->hands++;
    if (taker < 0) {
        tot->cancelled++;
        return;
    }
    for (int k = 0; k < 4; k++) {
        int s = (dealer + 1 + k) & 3;
        if (s == taker)
            hand[s] |= 1u << offer;
        for (int i = s == taker ? 1 : 0; i < 3; i++)
            hand[s] |= 1u << deck[pos++];
    }

    /* declarations and belote */
    int decl_best[2] = {0, 0}, decl_value[2] = {0, 0}, belote = -1;
    uint32_t qk = (1u << (8 * trump + RQ)) | (1u << (8 * trump + RK));
    for (int s = 0; s < 4; s++) {
        Declared d = declare(hand[s], trump);
        decl_value[s & 1] += d.value;
        if (d.best > decl_best[s & 1])
            decl_best[s & 1] = d.best;
        if ((hand[s] & qk) == qk)
            belote = s & 1;
    }
    int decl_team = decl_best[0] > decl_best[1] ? 0 : decl_best[1] > decl_best[0] ? 1 : -1;

    /* play */
    uint32_t trumps = 0xFFu << (8 * trump);
    const uint32_t *above = ABOVE[trump];
    int leader = (taker + 1) & 3, points[2] = {0, 0};
    for (int trick = 0; trick < 8; trick++) {
        int led = -1, win_seat = leader, win_power = 0, win_trump = 0, pts = 0;
        for (int i = 0; i < 4; i++) {
            int s = (leader + i) & 3;
            uint32_t m = hand[s], legal = m;
            if (i > 0) {
                uint32_t follow = m & (0xFFu << (8 * led));
                if (follow) {
                    legal = follow;
                    if (led == trump && (follow & above[win_power]))
                        legal = follow & above[win_power];
                } else if (((win_seat ^ s) & 1) == 0) {
                    legal = m;
                } else if (m & trumps) {
                    legal = m & trumps;
                    if (win_trump && (legal & above[win_power]))
                        legal &= above[win_power];
                }
            }
            int c = nth_card(legal, below(g, (uint32_t)__builtin_popcount(legal)));
            hand[s] &= ~(1u << c);
            int suit = c / 8, is_trump = suit == trump;
            pts += POINTS[is_trump][c % 8];
            if (i == 0) {
                led = suit;
                win_power = POWER[is_trump][c % 8];
                win_trump = is_trump;
            } else if (is_trump ? (!win_trump || POWER[1][c % 8] > win_power)
                                : (!win_trump && suit == led && POWER[0][c % 8] > win_power)) {
                win_seat = s;
                win_power = POWER[is_trump][c % 8];
                win_trump = is_trump;
            }
        }
        points[win_seat & 1] += pts + (trick == 7 ? 10 : 0);
        leader = win_seat;
    }

    /* scoring */
    int att = taker & 1, def = att ^ 1, score[2] = {0, 0};
    int dv = decl_team >= 0 ? decl_value[decl_team] : 0;
    if (points[att] > points[def]) {
        tot->made++;
        score[0] = points[0];
        score[1] = points[1];
        if (decl_team >= 0)
            score[decl_team] += dv;
    } else if (points[att] < points[def]) {
        tot->failed++;
        score[def] = 162 + dv;
    } else {
        tot->litige++;
        score[def] = points[def] + (decl_team == def ? dv : 0);
    }
    if (belote >= 0) {
        score[belote] += 20;
        tot->belote++;
    }
    for (int t = 0; t < 2; t++)
        if (points[t] == 0) {
            score[t ^ 1] += 100;
            tot->capot++;
        }
    if (decl_team >= 0) {
        tot->decl++;
        tot->decl_value += dv;
    }
    tot->card_points0 += points[0];
    tot->hand_score0 += score[0];
}

/* n random hands from one seed; dealer i % 4; totals into out[11] */
void plain_balout_random(uint64_t s, int64_t n, int64_t *out)
{
    Xoshiro g;
    seed(&g, s);
    if (!ABOVE[0][0])
        init_above();
    Totals t = {0};
    for (int64_t i = 0; i < n; i++)
        play_hand(&g, (int)(i & 3), &t);
    int64_t v[11] = {t.hands, t.made, t.failed, t.litige, t.cancelled, t.capot,
                     t.decl, t.decl_value, t.belote, t.card_points0, t.hand_score0};
    for (int i = 0; i < 11; i++)
        out[i] = v[i];
}
