/* A seat's view of a hand as float vectors, OpenSpiel's
 * information_state_tensor (perfect recall) and observation_tensor. Both
 * read only what the seat may see; what the rules show it of the other
 * hands (declarations, the belote) comes from view_shown, which the Python
 * view uses too. Seats are relative to the observer (0 itself, 1 the next
 * to play, ...). */
#ifndef BALOUT_TENSOR_H
#define BALOUT_TENSOR_H

#include "engine.h"

#define DECISION_SLOTS 64                   /* a hand has about 20 non-card actions at the most */
#define NUM_DECISIONS (NUM_ACTIONS - NCARDS) /* the decision action ids, 32..49 */

/* information_state_tensor layout */
enum {
    IT_HAND = 0,                  /* own hand (32) */
    IT_OFFER = 32,                /* the offer (32) */
    IT_RECEIVER = 64,             /* the offer's receiver (4) */
    IT_DEALER = 68,               /* (4) */
    IT_TO_ACT = 72,               /* (4) */
    IT_PHASE = 76,                /* (5) */
    IT_DECISIONS = 81,            /* bids, doubling and declaring in order: slots of seat (4), decision (18) */
    IT_PLAYS = IT_DECISIONS + DECISION_SLOTS * (4 + NUM_DECISIONS),   /* cards in order: seat (4), card (32) */
    IT_SHOWN = IT_PLAYS + NCARDS * (4 + NCARDS),                     /* declarations shown, by seat (4 x 32) */
    IT_BELOTE = IT_SHOWN + 4 * NCARDS,                               /* an announced belote's seat (4) */
    IT_MATCH = IT_BELOTE + 4,     /* own team's and the other's match score, litige pot, over the target */
    INFO_TENSOR_SIZE = IT_MATCH + 3
};

/* observation_tensor layout */
enum {
    OT_HAND = 0, OT_OFFER = 32, OT_PLAYED = 64, OT_TRICK = 192, OT_DEALER = 320, OT_BIDDER = 324,
    OT_KIND = 328, OT_TRUMP = 331, OT_PHASE = 335, OT_MULT = 340, OBSERVATION_TENSOR_SIZE = 345
};

/* What the rules have shown `seat` of the other hands: the seats whose
 * declarations it sees (a bit per seat; its own once made, the others' once
 * the first trick is over), and the seat of the announced belote if it sees
 * it (its own, or once its holder has played the king or queen of trump),
 * else -1. */
void view_shown(const Hand *h, int seat, int *decl_seats, int *belote_seat);

/* Write the tensors of `seat` (INFO_TENSOR_SIZE or OBSERVATION_TENSOR_SIZE
 * floats, zeroed first). info_tensor returns 0, or -1 if the hand's
 * decisions overflow the DECISION_SLOTS (not reachable under the rules). */
int info_tensor(const Hand *h, int seat, float *out);
void observation_tensor(const Hand *h, int seat, float *out);

#endif
