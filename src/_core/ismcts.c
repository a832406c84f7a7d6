/* Information-set MCTS (see ismcts.h).
 * Compiled inside core.c after engine.c, sim.c and search.c: it calls the
 * engine's static functions and the native policies directly. */
#include "ismcts.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ISMCTS_MAX_DEPTH 64 /* a hand has at most 32 cards + 4 declaration decisions left */
#define ISMCTS_FIRST_CAP 4096

int ismcts_init(Ismcts *t, int32_t max_nodes)
{
    memset(t, 0, sizeof *t);
    if (max_nodes < 2)
        max_nodes = 2;
    t->max_nodes = max_nodes;
    t->cap = max_nodes < ISMCTS_FIRST_CAP ? max_nodes : ISMCTS_FIRST_CAP;
    t->nodes = (IsmctsNode *)malloc((size_t)t->cap * sizeof(IsmctsNode));
    t->sp = (Sampler *)malloc(sizeof(Sampler));
    if (!t->nodes || !t->sp) {
        ismcts_free(t);
        return ISMCTS_ENOMEM;
    }
    return ISMCTS_OK;
}

void ismcts_free(Ismcts *t)
{
    free(t->nodes);
    free(t->sp);
    t->nodes = NULL;
    t->sp = NULL;
    t->n = t->cap = 0;
}

double ismcts_scale(const Hand *h)
{
    if (h->rules.variant == VARIANT_BALOOT) {
        if (h->gahwa)
            return h->rules.target > 0 ? (double)h->rules.target : 152.0;
        int m = h->multiplier > 0 ? h->multiplier : 1;
        return (h->kind == KIND_SUN ? 44.0 : 25.0) * m;
    }
    return 250.0;
}

/* A new node, or -1 when the arena is full (it grows by doubling up to
   max_nodes; the caller must re-read node pointers afterwards). */
static int32_t ismcts_node_new(Ismcts *t, int action, int team)
{
    if (t->n >= t->cap) {
        if (t->cap >= t->max_nodes)
            return -1;
        int64_t nc = (int64_t)t->cap * 2;
        if (nc > t->max_nodes)
            nc = t->max_nodes;
        IsmctsNode *p = (IsmctsNode *)realloc(t->nodes, (size_t)nc * sizeof(IsmctsNode));
        if (!p) {
            t->max_nodes = t->cap; /* stop growing; the tree stays usable */
            return -1;
        }
        t->nodes = p;
        t->cap = (int32_t)nc;
    }
    int32_t i = t->n++;
    IsmctsNode *nd = &t->nodes[i];
    nd->first_child = -1;
    nd->next = -1;
    nd->expanded = 0;
    nd->total = 0;
    nd->visits = 0;
    nd->avail = 0;
    nd->action = (uint8_t)action;
    nd->team = (int8_t)team;
    return i;
}

/* ------------------------------------------------------------- search */

static inline void ismcts_playout(Hand *w, int policy, Rng *g)
{
    if (policy == POLICY_GREEDY) {
        while (w->phase != PHASE_DONE)
            hand_step(w, greedy_act(w));
    } else {
        while (w->phase != PHASE_DONE)
            hand_step(w, random_act(w, g));
    }
}

int ismcts_search(Ismcts *t, const Hand *h, const IsmctsParams *p, IsmctsResult *out)
{
    memset(out, 0, sizeof *out);
    out->action = -1;
    if (h->phase != PHASE_PLAY && h->phase != PHASE_DECLARE)
        return ISMCTS_EPHASE;
    if (h->to_act < 0 || h->to_act >= NSEATS)
        return ISMCTS_EPHASE;
    if (p->iterations <= 0 && !(p->time_budget > 0))
        return ISMCTS_EARG;
    if (!t->nodes || !t->sp)
        return ISMCTS_ENOMEM;
    int obs = h->to_act;
    uint64_t root_legal = hand_legal(h);
    out->legal = root_legal;
    out->scale = ismcts_scale(h);
    if (!root_legal)
        return ISMCTS_EPHASE;

    InfoSet info;
    infoset_build(h, obs, &info);
    if (sampler_init(t->sp, &info) <= 0)
        return ISMCTS_EWORLD;

    t->n = 0;
    ismcts_node_new(t, 255, -1); /* the root (cap >= 2) */

    Rng g;
    rng_seed(&g, p->seed);
    const double inv = 1.0 / out->scale;
    const double c = p->exploration;
    const int policy = p->policy;
    const int timed = p->time_budget > 0;
    const double deadline = timed ? clock_seconds() + p->time_budget : 0;
    int32_t path[ISMCTS_MAX_DEPTH];
    Hand w;
    int64_t it;

    for (it = 0;; it++) {
        if (p->iterations > 0 && it >= p->iterations)
            break;
        if (timed && it > 0 && (it & 63) == 0 && clock_seconds() >= deadline)
            break;
        if ((it & 4095) == 4095 && should_stop())
            break;

        /* 1. determinize (sampler_world also re-derives the world's
           declarations and belote from its own hands) */
        if (p->bid_weight < 1.0)
            determinize_weighted(h, obs, t->sp, &g, p->bid_weight, 1.0, INFER_TRIES, &w);
        else
            sampler_world(t->sp, &g, h, &w);

        /* 2-3. select, expand */
        int32_t cur = 0;
        int depth = 0;
        path[depth++] = 0;
        while (w.phase != PHASE_DONE) {
            uint64_t legal = hand_legal(&w);
            IsmctsNode *nodes = t->nodes;
            uint64_t untried = legal & ~nodes[cur].expanded;
            int32_t best = -1;
            double bv = -HUGE_VAL;
            for (int32_t ci = nodes[cur].first_child; ci >= 0; ci = nodes[ci].next) {
                IsmctsNode *ch = &nodes[ci];
                if (!((legal >> ch->action) & 1))
                    continue;
                ch->avail++;
                if (untried)
                    continue;
                double n = (double)ch->visits;
                double v = ch->total / n + c * sqrt(log((double)ch->avail) / n);
                if (v > bv) {
                    bv = v;
                    best = ci;
                }
            }
            if (untried) {
                int a = nth_bit64(untried, rng_below(&g, (uint32_t)__builtin_popcountll(untried)));
                int32_t ci = ismcts_node_new(t, a, w.to_act & 1);
                if (ci >= 0 && depth < ISMCTS_MAX_DEPTH) {
                    nodes = t->nodes; /* may have moved */
                    nodes[ci].avail = 1;
                    nodes[ci].next = nodes[cur].first_child;
                    nodes[cur].first_child = ci;
                    nodes[cur].expanded |= 1ull << a;
                    path[depth++] = ci;
                    hand_step(&w, a);
                } else if (ci >= 0) {
                    t->n--; /* cannot happen (depth is bounded by the hand) */
                }
                break;
            }
            if (best < 0 || depth >= ISMCTS_MAX_DEPTH)
                break;
            path[depth++] = best;
            cur = best;
            hand_step(&w, nodes[best].action);
        }

        /* 4. play out */
        ismcts_playout(&w, policy, &g);

        /* 5. back up */
        double d = (double)(w.result.hand_score[0] - w.result.hand_score[1]) * inv;
        IsmctsNode *nodes = t->nodes;
        nodes[0].visits++;
        for (int i = 1; i < depth; i++) {
            IsmctsNode *nd = &nodes[path[i]];
            nd->visits++;
            nd->total += nd->team ? -d : d;
        }
    }

    out->iterations = it;
    out->nodes = t->n;
    int best = -1;
    double bmean = 0;
    uint32_t bvis = 0;
    for (int32_t ci = t->nodes[0].first_child; ci >= 0; ci = t->nodes[ci].next) {
        const IsmctsNode *ch = &t->nodes[ci];
        int a = ch->action;
        double mean = ch->visits ? ch->total / ch->visits : 0.0;
        out->visits[a] = ch->visits;
        out->value[a] = mean;
        if (best < 0 || ch->visits > bvis || (ch->visits == bvis && (mean > bmean || (mean == bmean && a < best)))) {
            best = a;
            bvis = ch->visits;
            bmean = mean;
        }
    }
    if (best < 0) /* no iteration ran: any legal action */
        best = __builtin_ctzll(root_legal);
    out->action = best;
    return ISMCTS_OK;
}
