/* A plain double-dummy solver: the yardstick of issue #5 ("a plain
 * alpha-beta with a transposition table takes about 20 ms per deal on this
 * machine class").
 *
 * Textbook alpha-beta (fail-soft) on team 0's card points, cards tried in
 * the order of their ids, and a transposition table at trick starts keyed
 * by the four hands and the leader, holding bounds on the points still to
 * take (so that positions reached with different points taken share an
 * entry). Nothing else: no move ordering, no equivalent cards, no
 * zero-window search, no bounds from quick tricks.
 *
 * It shares no code with the extension. The benchmark compiles it with the
 * extension's flags and solves the same deals with both, interleaved, so the
 * ratio of their times does not depend on how busy the machine is; every
 * value must agree, which also checks the solver on whole deals.
 *
 * Rules: the default options of every variant (they agree on the play):
 * follow suit; on a trump lead beat the highest trump when you can; void,
 * free when your partner is winning, else trump, beating an opponent's
 * winning trump when you can, else any trump (under-trump). Sun: follow
 * suit, else anything. The last trick counts 10 more.
 *
 * Cards: suit * 8 + rank, ranks 7 8 9 T J Q K A (sequence order).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const int POINTS[2][8] = {{0, 0, 0, 10, 2, 3, 4, 11},    /* plain */
                                 {0, 0, 14, 10, 20, 3, 4, 11}}; /* trump */
static const int POWER[2][8] = {{1, 2, 3, 7, 4, 5, 6, 8},
                                {1, 2, 7, 5, 8, 3, 4, 6}};

typedef struct {
    uint32_t hands[4];
    int16_t lo, hi;
    int8_t leader;
    uint8_t stamp; /* the search that wrote it: a new search needs no wipe */
} Entry;

typedef struct {
    int trump; /* -1: Sun */
    uint8_t stamp;
    uint32_t table_mask;
    Entry *table;
    uint64_t nodes;
} Search;

typedef struct {
    uint32_t hands[4];
    int leader, n, led, win_seat, win_power, win_trump, points, ntricks;
} Pos;

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xFF51AFD7ED558CCDull;
    x ^= x >> 33;
    x *= 0xC4CEB9FE1A85EC53ull;
    return x ^ (x >> 33);
}

static uint32_t index_of(const Search *S, const Pos *p)
{
    uint64_t a = ((uint64_t)p->hands[0] << 32) | p->hands[1];
    uint64_t b = ((uint64_t)p->hands[2] << 32) | p->hands[3];
    return (uint32_t)mix(a ^ mix(b + (uint64_t)p->leader)) & S->table_mask;
}

static uint32_t legal_cards(const Search *S, const Pos *p, int seat)
{
    uint32_t m = p->hands[seat];
    if (p->n == 0)
        return m;
    uint32_t follow = m & (0xFFu << (8 * p->led));
    if (S->trump < 0)
        return follow ? follow : m;
    uint32_t trumps = m & (0xFFu << (8 * S->trump));
    uint32_t above = 0; /* this hand's trumps stronger than the winning trump */
    if (p->win_trump)
        for (int r = 0; r < 8; r++)
            if (POWER[1][r] > p->win_power)
                above |= trumps & (1u << (8 * S->trump + r));
    if (follow) {
        if (p->led == S->trump && above)
            return above;
        return follow;
    }
    if (((p->win_seat ^ seat) & 1) == 0)
        return m;
    if (trumps)
        return p->win_trump && above ? above : trumps;
    return m;
}

/* team 0's card points from this position to the end of the hand */
static int search(Search *S, const Pos *p, int alpha, int beta)
{
    S->nodes++;
    Entry *e = NULL;
    int alpha0 = alpha, beta0 = beta;
    if (p->n == 0) {
        e = &S->table[index_of(S, p)];
        if (e->stamp == S->stamp && e->leader == p->leader && !memcmp(e->hands, p->hands, sizeof e->hands)) {
            if (e->lo >= beta)
                return e->lo;
            if (e->hi <= alpha)
                return e->hi;
            if (e->lo > alpha)
                alpha = e->lo;
            if (e->hi < beta)
                beta = e->hi;
            if (alpha >= beta)
                return alpha;
        }
    }
    int seat = (p->leader + p->n) & 3, maxing = (seat & 1) == 0;
    uint32_t legal = legal_cards(S, p, seat);
    int best = maxing ? -1 : 1000;
    while (legal) {
        int c = __builtin_ctz(legal);
        legal &= legal - 1;
        Pos q = *p;
        int suit = c / 8, rank = c % 8, is_trump = suit == S->trump;
        q.hands[seat] &= ~(1u << c);
        q.points += POINTS[is_trump][rank];
        if (q.n == 0) {
            q.led = suit;
            q.win_seat = seat;
            q.win_power = POWER[is_trump][rank];
            q.win_trump = is_trump;
        } else if (is_trump ? (!q.win_trump || POWER[1][rank] > q.win_power)
                            : (!q.win_trump && suit == q.led && POWER[0][rank] > q.win_power)) {
            q.win_seat = seat;
            q.win_power = POWER[is_trump][rank];
            q.win_trump = is_trump;
        }
        int v;
        if (++q.n == 4) {
            int won = q.points + (q.ntricks == 1 ? 10 : 0), mine = (q.win_seat & 1) == 0 ? won : 0;
            if (q.ntricks == 1) {
                v = mine;
            } else {
                q.leader = q.win_seat;
                q.n = 0;
                q.points = 0;
                q.ntricks--;
                v = mine + search(S, &q, alpha - mine, beta - mine);
            }
        } else {
            v = search(S, &q, alpha, beta);
        }
        if (maxing) {
            if (v > best)
                best = v;
            if (best > alpha)
                alpha = best;
        } else {
            if (v < best)
                best = v;
            if (best < beta)
                beta = best;
        }
        if (alpha >= beta)
            break;
    }
    if (e) {
        if (e->stamp != S->stamp || e->leader != p->leader || memcmp(e->hands, p->hands, sizeof e->hands)) {
            memcpy(e->hands, p->hands, sizeof e->hands);
            e->leader = (int8_t)p->leader;
            e->lo = 0;
            e->hi = 1000;
            e->stamp = S->stamp;
        }
        if (best <= alpha0)
            e->hi = (int16_t)(best < e->hi ? best : e->hi);
        else if (best >= beta0)
            e->lo = (int16_t)(best > e->lo ? best : e->lo);
        else
            e->lo = e->hi = (int16_t)best;
    }
    return best;
}

/* A solver with a table of 2^table_bits entries, or NULL. */
Search *plain_dd_new(int table_bits)
{
    Search *S = (Search *)calloc(1, sizeof(Search));
    if (!S)
        return NULL;
    S->table = (Entry *)calloc((size_t)1 << table_bits, sizeof(Entry));
    if (!S->table) {
        free(S);
        return NULL;
    }
    S->table_mask = (1u << table_bits) - 1;
    return S;
}

void plain_dd_free(Search *S)
{
    free(S->table);
    free(S);
}

/* The final card points of the team of `leader` (to lead the first of the
 * tricks left, every hand holding as many cards), with every card visible,
 * from an empty table. trump: suit 0-3, or -1 for Sun. */
int plain_dd_value(Search *S, const uint32_t *hands, int leader, int trump, uint64_t *nodes)
{
    if (++S->stamp == 0) { /* wrapped: wipe, so no entry has the new stamp */
        memset(S->table, 0, ((size_t)S->table_mask + 1) * sizeof(Entry));
        S->stamp = 1;
    }
    S->trump = trump;
    S->nodes = 0;
    Pos p;
    memset(&p, 0, sizeof p);
    memcpy(p.hands, hands, sizeof p.hands);
    p.leader = leader;
    p.ntricks = __builtin_popcount(hands[leader]);
    int total = 10;
    for (int s = 0; s < 4; s++)
        for (uint32_t m = hands[s]; m; m &= m - 1) {
            int c = __builtin_ctz(m);
            total += POINTS[c / 8 == trump][c % 8];
        }
    int v0 = search(S, &p, -1, total + 1);
    *nodes = S->nodes;
    return (leader & 1) == 0 ? v0 : total - v0;
}
