/* The seat's view as float vectors (tensor.h). */
#include <string.h>

#include "tensor.h"

void view_shown(const Hand *h, int seat, int *decl_seats, int *belote_seat)
{
    int shown = 0;
    for (int s = 0; s < NSEATS; s++)
        if ((h->declared >> s & 1) && (h->ntricks >= 1 || s == seat))
            shown |= 1 << s;
    *decl_seats = shown;
    int b = h->belote_seat;
    *belote_seat = -1;
    if (b >= 0 && h->trump >= 0) {
        uint32_t kq = BIT(h->trump * 8 + RK) | BIT(h->trump * 8 + RQ);
        if (b == seat || (h->played_by[b] & kq))
            *belote_seat = b;
    }
}

static inline int rel(int s, int seat) { return (s - seat) & 3; }

static void set_cards(float *out, uint32_t cards)
{
    for (; cards; cards &= cards - 1)
        out[__builtin_ctz(cards)] = 1.0f;
}

int info_tensor(const Hand *h, int seat, float *out)
{
    memset(out, 0, INFO_TENSOR_SIZE * sizeof *out);
    set_cards(out + IT_HAND, h->hand[seat]);
    out[IT_OFFER + h->offer] = 1.0f;
    if (h->receiver >= 0)
        out[IT_RECEIVER + rel(h->receiver, seat)] = 1.0f;
    out[IT_DEALER + rel(h->dealer, seat)] = 1.0f;
    if (h->to_act >= 0)
        out[IT_TO_ACT + rel(h->to_act, seat)] = 1.0f;
    out[IT_PHASE + h->phase] = 1.0f;

    /* the history, replayed for the seat and phase of each action */
    Hand t = *h;
    hand_reset(&t);
    int decisions = 0, plays = 0;
    for (int i = 0; i < h->nactions; i++) {
        int a = h->actions[i], p = rel(t.to_act, seat);
        if (t.phase == PHASE_PLAY) {
            float *slot = out + IT_PLAYS + plays++ * (4 + NCARDS);
            slot[p] = slot[4 + a] = 1.0f;
        } else {
            if (decisions == DECISION_SLOTS)
                return -1;
            float *slot = out + IT_DECISIONS + decisions++ * (4 + NUM_DECISIONS);
            slot[p] = slot[4 + a - NCARDS] = 1.0f;
        }
        hand_step(&t, a);
    }

    int shown, belote;
    view_shown(h, seat, &shown, &belote);
    for (int s = 0; s < NSEATS; s++)
        if (shown >> s & 1)
            set_cards(out + IT_SHOWN + NCARDS * rel(s, seat), h->seat_decl_cards[s]);
    if (belote >= 0)
        out[IT_BELOTE + rel(belote, seat)] = 1.0f;
    float target = (float)h->rules.target, team = seat & 1;
    out[IT_MATCH] = (float)h->match_before[(int)team] / target;
    out[IT_MATCH + 1] = (float)h->match_before[(int)team ^ 1] / target;
    out[IT_MATCH + 2] = (float)h->pot_before / target;
    return 0;
}

void observation_tensor(const Hand *h, int seat, float *out)
{
    memset(out, 0, OBSERVATION_TENSOR_SIZE * sizeof *out);
    set_cards(out + OT_HAND, h->hand[seat]);
    out[OT_OFFER + h->offer] = 1.0f;
    for (int s = 0; s < NSEATS; s++)
        set_cards(out + OT_PLAYED + NCARDS * rel(s, seat), h->played_by[s]);
    for (int i = 0; i < h->trick_len; i++)
        out[OT_TRICK + NCARDS * rel(h->leader + i, seat) + h->trick[i]] = 1.0f;
    out[OT_DEALER + rel(h->dealer, seat)] = 1.0f;
    if (h->bidder >= 0)
        out[OT_BIDDER + rel(h->bidder, seat)] = 1.0f;
    out[OT_KIND + h->kind] = 1.0f;
    if (h->trump >= 0)
        out[OT_TRUMP + h->trump] = 1.0f;
    out[OT_PHASE + h->phase] = 1.0f;
    out[OT_MULT + (h->multiplier < 4 ? h->multiplier : 4) - 1] = 1.0f;
    out[OT_MULT + 4] = (float)h->gahwa;
}
