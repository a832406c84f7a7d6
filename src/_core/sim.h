/* Batch simulation: native policies and whole hands / matches in C loops. */
#ifndef BALOUT_SIM_H
#define BALOUT_SIM_H

#include "engine.h"

enum { POLICY_RANDOM = 0, POLICY_GREEDY = 1, NUM_POLICIES = 2 };

/* One simulated hand, 40 bytes, no padding (mirrored by a numpy dtype). */
typedef struct {
    uint32_t dealt[4];      /* each seat's 8 cards once the deal is complete (0 if cancelled) */
    int16_t decl_value;
    int16_t card_points[2];
    int16_t hand_score[2];
    int8_t dealer;
    int8_t offer;
    int8_t kind;
    int8_t trump;
    int8_t bidder;
    int8_t multiplier;
    int8_t gahwa;
    int8_t outcome;
    int8_t decl_team;
    int8_t belote;
    int8_t capot;
    int8_t auction_round;
    int8_t tricks_won[2];
} HandRow;

/* Exact integer sums over many hands (aggregate mode). */
typedef struct {
    int64_t hands;
    int64_t outcome[4];       /* made, failed, litige, cancelled */
    int64_t kind[3];          /* none (cancelled), trump/hokm, sun */
    int64_t doubled;
    int64_t gahwa;
    int64_t capot[2];
    int64_t decl[2];          /* hands whose declarations score, per team */
    int64_t decl_value[2];
    int64_t belote[2];
    int64_t card_points[2];
    int64_t card_points_sq[2];
    int64_t hand_score[2];
    int64_t hand_score_sq[2];
    int64_t taker_team0;      /* contracts taken by team 0 */
    int64_t dealer[4];
    int64_t offer_suit[4];
} Aggregate;

/* choose an action for the seat to act */
int policy_act(const Hand *h, int policy, Rng *g);

/* per-hand stream: reproducible from (key, index) alone */
void rng_for(Rng *g, uint64_t key, uint64_t index);

/* play one hand from a fresh shuffle; match context as in hand_new */
void sim_hand(Hand *h, const Rules *r, const int8_t *policies, uint64_t key, uint64_t index,
              int dealer, int32_t s0, int32_t s1, int32_t pot);

void row_of(const Hand *h, HandRow *row);
void aggregate_add(Aggregate *a, const HandRow *row);

/* hands [start, start+n) of a run; rows may be NULL (aggregate only), agg may be NULL */
void sim_hands(const Rules *r, const int8_t *policies, uint64_t key, uint64_t start, int64_t n,
               HandRow *rows, Aggregate *agg);

/* whole matches [start, start+n): winner, hands played, final scores */
/* whole matches [start, start+n) from the scores (score0, score1) given on
   entry: winner, hands played and final scores (written back) */
void sim_matches(const Rules *r, const int8_t *policies, uint64_t key, uint64_t start, int64_t n,
                 int8_t *winner, int32_t *nhands, int32_t *score0, int32_t *score1,
                 int32_t max_hands);

#endif
