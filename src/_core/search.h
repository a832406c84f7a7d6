/* Search support: information sets, the determinization sampler and the
 * double-dummy solver. All of it reads the rules through the engine's own
 * functions (legal cards, play of a card), so search and play agree. */
#ifndef BALOUT_SEARCH_H
#define BALOUT_SEARCH_H

#include "engine.h"
#include "sim.h"

/* ------------------------------------------------------ information sets */

/* What one seat knows about where the unseen cards are. */
typedef struct {
    int8_t seat;                 /* the observer */
    uint32_t own;                /* its current hand */
    uint32_t unseen;             /* cards in the other three hands, and in the stock */
    int8_t count[NSEATS];        /* cards each seat holds now */
    int8_t stock;                /* unseen cards still in the stock (the auction), 0 after */
    uint32_t known[NSEATS];      /* cards known to be in a seat's hand */
    uint32_t forbidden[NSEATS];  /* cards a seat cannot hold (voids, no trump, no higher trump) */
    /* Shown declarations (after the first trick): a seat in `decl_shown`
       declared exactly decl_cards[s] (value decl_value[s], 0: nothing), so
       its whole hand, played_by[s] included, declares that and no more. */
    uint8_t decl_shown;
    uint8_t decl_some;           /* seats known to hold a declaration not shown (by choice: asked, kept it) */
    int16_t decl_value[NSEATS];
    uint32_t decl_cards[NSEATS];
    uint32_t played_by[NSEATS];
    Rules rules;
    int8_t kind, trump;
} InfoSet;

/* The information set of `seat` in hand h (play phase, or any phase after
 * the deal is complete). Uses only what `seat` may see. */
void infoset_build(const Hand *h, int seat, InfoSet *info);

/* ------------------------------------------------------------- sampler */

/* Uniform sampling among all deals of the unseen cards consistent with an
 * information set: exact counting (dynamic programming over the free cards
 * and the seats' remaining counts) deals uniformly among the deals that
 * respect the known and forbidden cards; once declarations are shown, a deal
 * that would declare otherwise is drawn again (rejection keeps the draw
 * uniform over what remains). */
typedef struct {
    InfoSet info;
    int8_t nfree;
    int8_t free_cards[NCARDS];
    uint8_t allowed[NCARDS];        /* seats (bits) that may hold free card i */
    int8_t others[3];               /* the three other seats */
    int8_t need[3];                 /* free cards each of them still needs */
    double ways[NCARDS + 1][9][9];  /* completions from card i with (a, b) still needed by others[0..1] */
    double total;                   /* deals respecting known and forbidden (0: none) */
} Sampler;

/* Draws of a world rejected for their declarations before one is kept as it
 * is (the real deal always passes, so this only bounds pathological cases). */
#define SAMPLER_MAX_REDRAWS 4096

/* Prepare; returns the number of deals that respect the known and forbidden
 * cards (0 if none; the declaration check may exclude some of them). */
double sampler_init(Sampler *sp, const InfoSet *info);
/* Draw one world: hands[s] = full current hand of each seat. */
void sampler_draw(const Sampler *sp, Rng *g, uint32_t hands[NSEATS]);
/* A copy of h with the hidden hands replaced by a sampled world. */
void sampler_world(const Sampler *sp, Rng *g, const Hand *h, Hand *out);

/* ------------------------------------------------- double-dummy solver */

/* An entry of the solver's table, at a trick start. Its key is the
 * position's shape: who holds the k-th strongest present card of each suit
 * (the hands packed to relative ranks) and who leads. Positions of one
 * shape play alike; only their cards' points differ, so the entry of one
 * position bounds every position of its shape. */
typedef struct {
    uint64_t lo, hi;   /* the shape: each suit's hands on relative ranks, and its length */
    uint32_t present;  /* the position's own cards (with the shape, the position) */
    uint32_t stamp;
    int16_t lower, upper; /* bounds on team 0's points from here, for these cards */
    int16_t rest;      /* the points of these cards, the last trick's 10 included */
    int8_t leader;
    int8_t best;       /* best card as suit * 8 + relative rank, or -1 */
} TTEntry;
_Static_assert(sizeof(TTEntry) == 32, "two entries to a cache line");

typedef struct {
    TTEntry *table;     /* buckets of two entries */
    uint32_t mask;      /* table size - 1 (a power of two) */
    uint32_t stamp;     /* generation: entries of older generations are empty */
    Rules rules;        /* the entries are valid for one contract under one set of rules */
    int8_t kind, trump;
    int8_t killer[NTRICKS][NSEATS]; /* the last lead that cut after another, by trick and seat (-1: none) */
    int8_t leads[1 << 10];  /* the last lead that cut after another, by the leading side's cards (hashed; -1: none) */
    uint64_t nodes;
} Solver;

/* table_bits: log2 of the number of table entries (10..26) */
int solver_init(Solver *s, int table_bits);
void solver_free(Solver *s);
/* forget every entry (O(1)) */
void solver_clear(Solver *s);

/* Can team `team` finish the hand with at least `target` card points
 * (tricks already taken and the last trick's 10 included)? h: play phase. */
int solver_reaches(Solver *s, const Hand *h, int team, int target);
/* Final card points of the team to act under perfect play by both sides. */
int solver_value(Solver *s, const Hand *h);
/* Value of each legal card for the team to act; returns the legal mask and
 * writes values[card] for each legal card. */
uint32_t solver_moves(Solver *s, const Hand *h, int16_t values[NCARDS]);
/* Plain minimax without any pruning or table: the reference for tests. */
int solver_bruteforce(const Hand *h);

/* ------------------------------------------------ Monte Carlo evaluation */

/* A world for `seat`: the hidden cards dealt at random consistently with
 * what it knows. In the auction the unseen part of the deck is shuffled
 * and the bids so far replayed; afterwards the sampler deals the hidden
 * hands. Returns 0 if no world is consistent. `sp` may be NULL in the
 * auction; otherwise it is a Sampler prepared for seat. */
int determinize(const Hand *h, int seat, const Sampler *sp, Rng *g, Hand *out);

/* h with `hands` as its hidden hands, as a hand of its own: dealt from a
 * deck that keeps `seat`'s cards and the offer at their places and puts
 * each other seat's cards (and, in the auction, the stock's) in random order
 * among their places, every action replayed. Returns 0 (out undefined) if
 * the replay refuses an action or shows `seat` something h does not
 * (declarations after the first trick, an announced belote). Unlike a world
 * of the search, nothing in it (its deck, its record) tells the real deal. */
int deal_world(const Hand *h, int seat, const uint32_t hands[NSEATS], Rng *g, Hand *out);

/* A hand that `seat` cannot tell from h, drawn uniformly among those it may
 * be (OpenSpiel's resampling from an information state): the sampler's
 * hidden hands through deal_world, drawn again until one replays, so the
 * result is exact even where the sampler's information set is coarser.
 * Returns 0 if RESAMPLE_TRIES draws found none. */
#define RESAMPLE_TRIES 4096
int resample(const Hand *h, int seat, const Sampler *sp, Rng *g, Hand *out);

/* Inference from the auction and the play. A world's weight is multiplied
 * by bid_weight (0..1) for every bid of another seat that the model of the
 * players, the greedy policy, would not have made with that world's cards,
 * and by play_weight (0..1) for every card an opponent of `seat` played that
 * the greedy player would not have played holding them (the world's deal
 * replayed from the start): 1 reads nothing, 0 keeps only worlds that
 * explain every bid or play. Worlds are drawn by rejection; after
 * INFER_TRIES draws the one that explains most bids, then most plays, is
 * kept, which bounds the time when the model explains them badly. Returns
 * 0 if no world is consistent; if no draw was kept, 3 when the world kept
 * leaves bids unexplained (the auction is not the model's: callers stop
 * reading the plays and draw at most INFER_TRIES_UNEXPLAINED times for the
 * rest of the decision), else 2 when play_weight < 1 (the plays are not the
 * model's: callers stop reading them); else 1. `tries`: the draws allowed,
 * INFER_TRIES until the auction proves unexplained. */
#define INFER_TRIES 256
#define INFER_TRIES_UNEXPLAINED 32
int determinize_weighted(const Hand *h, int seat, const Sampler *sp, Rng *g, double bid_weight,
                         double play_weight, int tries, Hand *out);
/* What a caller of determinize_weighted reads and draws for the rest of a
 * decision, after a world returned `got`. */
void inference_after(int got, double *play_weight, int *tries);

/* A match equity table: table[i * n + j] is the chance that a team with
 * i * step to (i + 1) * step - 1 points wins the match against a team with
 * j * step to (j + 1) * step - 1, before a hand (i, j < n; n * step >= the
 * target). Made by balout.equity. */
typedef struct {
    const float *table;
    int32_t n, step, target;
} Equity;

/* The chance that `team` wins the match once a hand has ended with result r. */
double equity_after(const Equity *eq, const Result *r, int team);

/* Flat Monte Carlo: for each legal action of the seat to act, the mean over
 * determinizations (the same worlds for every action, weighted by the
 * auction with bid_weight) of its team's hand score minus the other
 * team's, or with eq (not NULL) of the chance that its team wins the
 * match, after the action and `policy` play to the end. Stops after
 * `worlds` worlds (if > 0) or once time_budget seconds have passed (if > 0),
 * after at least one world; the worlds are one stream from g, as in
 * solver_pimc (with neither budget, one world). means[a] for each legal
 * action a, *done the number of worlds; returns the legal mask. */
uint64_t evaluate_actions(const Hand *h, int64_t worlds, double time_budget, int policy, Rng *g,
                          double bid_weight, double play_weight, const Equity *eq, double means[NUM_ACTIONS],
                          int64_t *done);

/* PIMC: each legal card's double-dummy value for the team to act, summed
 * into sums[card] over worlds drawn for the seat to act (sp prepared for
 * it; weighted by the auction with bid_weight). With by_score, what that
 * value is worth instead: the team's hand score minus the other's
 * (hand_score_if), plus PIMC_POINTS_WEIGHT times the card points to break
 * ties (a failed contract is worth the same whatever its card points; the
 * points still hedge against the worlds being wrong). Stops after
 * max_worlds worlds (if > 0) or once time_budget seconds have passed (if > 0), after
 * at least one world (with neither budget, one world). The worlds are one
 * stream from g, so a run stopped by the clock after n worlds sums what a
 * run of max_worlds = n sums.
 * Returns the number of worlds; *legal gets the legal cards. */
#define PIMC_POINTS_WEIGHT (1.0 / 1024)
/* With eq (not NULL), by_score aside: the chance that the team wins the match
 * were the hand to end on that value (equity_after), plus
 * PIMC_EQUITY_POINTS_WEIGHT times the card points to break ties. */
#define PIMC_EQUITY_POINTS_WEIGHT 1e-6
int64_t solver_pimc(Solver *s, const Hand *h, const Sampler *sp, Rng *g, double bid_weight, double play_weight,
                    int64_t max_worlds, double time_budget, int by_score, const Equity *eq, double sums[NCARDS],
                    uint32_t *legal);

/* Seconds on a monotonic clock (for time budgets). */
double clock_seconds(void);

/* Set by the extension to a function that says whether the caller asked the
 * long loops (PIMC, flat Monte Carlo, ISMCTS) to stop: Ctrl-C in Python.
 * NULL in plain C. A loop that stops returns what it has done so far. */
extern int (*stop_requested)(void);
static inline int should_stop(void) { return stop_requested && stop_requested(); }

#endif
