from helpers import state_for


def test_deck_for_deals_the_given_hands():
    hands = ["7S 8S 9S TS JS QS KS AS", "7H 8H 9H TH JH QH KH AH",
             "7D 8D 9D TD JD QD KD AD", "7C 8C 9C TC JC QC KC AC"]
    s = state_for(hands, offer="JH", receiver=1, dealer=0, bids=["take"])
    assert [str(h) for h in s.hands] == hands
    assert s.phase == "play" and s.contract.trump == "H"
