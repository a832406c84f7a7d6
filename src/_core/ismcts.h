/* Single-observer information-set Monte Carlo tree search (SO-ISMCTS,
 * Cowling, Powley & Whitehouse 2012) for the play phase and the declaration
 * decisions of a hand, from the point of view of the seat to act.
 *
 * Each iteration
 *   1. determinizes: a copy of the hand whose hidden hands are dealt uniformly
 *      among the deals consistent with the observer's information set (the
 *      search.c sampler, which also re-derives the declarations and the
 *      belote holder from that deal);
 *   2. descends the tree, keyed on action ids, choosing among the children
 *      whose action is legal in this determinization by UCB1 with
 *      availability counts: mean + c * sqrt(ln(avail) / visits), where avail
 *      is the number of iterations in which the child was available
 *      (legal), not the parent's visits;
 *   3. expands one untried legal action (chosen uniformly at random);
 *   4. plays out to the end of the hand with a native policy (greedy or
 *      random, sim.c);
 *   5. backs up the reward: the hand-score difference own team - other team
 *      of the finished hand, from the point of view of the seat that chose
 *      the action leading to each node, divided by a per-hand scale (see
 *      ismcts_scale): 250 in balout/belote (a capot's value; ordinary hands
 *      give |r| <= 0.65, a capot with declarations a little over 1); in
 *      baloot the kaboot value times the multiplier (44 Sun / 25 Hokm, x2, x3,
 *      x4) or the match target under a gahwa.
 *
 * Nodes live in one arena that grows by doubling (realloc) up to max_nodes;
 * when it is full the tree stops growing and iterations go on (play-outs from
 * the deepest node reached). Nothing is allocated per iteration.
 * Deterministic for a given seed when only the iteration budget stops it.
 * No function here touches Python: safe without the GIL.
 */
#ifndef BALOUT_ISMCTS_H
#define BALOUT_ISMCTS_H

#include "engine.h"
#include "search.h"

typedef struct {
    int32_t first_child; /* index of the first child, -1 */
    int32_t next;        /* next sibling, -1 */
    uint64_t expanded;   /* actions that already have a child */
    double total;        /* summed reward, for the seat that chose `action` */
    uint32_t visits;
    uint32_t avail;      /* iterations in which `action` was legal here */
    uint8_t action;      /* action leading to this node (root: 255) */
    int8_t team;         /* team of the seat that chose it (root: -1) */
} IsmctsNode;

typedef struct {
    IsmctsNode *nodes;
    int32_t n, cap, max_nodes;
    Sampler *sp;
} Ismcts;

typedef struct {
    int64_t iterations;  /* iteration budget; <= 0: none (time_budget is then needed) */
    double time_budget;  /* seconds; <= 0: none */
    double exploration;  /* UCB constant c */
    int policy;          /* POLICY_GREEDY or POLICY_RANDOM */
    uint64_t seed;
    double bid_weight;   /* < 1: worlds weighted by the auction (determinize_weighted) */
} IsmctsParams;

typedef struct {
    int action;              /* most visited root action (ties: better mean, then lower id) */
    int64_t iterations;      /* iterations run */
    int32_t nodes;           /* nodes in the tree */
    double scale;            /* points per unit of reward */
    uint64_t legal;          /* the observer's legal actions at the root */
    uint32_t visits[NUM_ACTIONS];
    double value[NUM_ACTIONS]; /* mean reward of each root action (0 if unvisited) */
} IsmctsResult;

enum { ISMCTS_OK = 0, ISMCTS_ENOMEM = -1, ISMCTS_EPHASE = -2, ISMCTS_EWORLD = -3, ISMCTS_EARG = -4 };

/* max_nodes >= 2; returns 0 or ISMCTS_ENOMEM */
int ismcts_init(Ismcts *t, int32_t max_nodes);
void ismcts_free(Ismcts *t);
/* Search from the seat to act in h (PHASE_PLAY or PHASE_DECLARE). */
int ismcts_search(Ismcts *t, const Hand *h, const IsmctsParams *p, IsmctsResult *out);
/* points per unit of reward for hand h */
double ismcts_scale(const Hand *h);

#endif
