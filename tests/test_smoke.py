from helpers import state_for


def test_deck_for_deals_the_given_hands():
    hands = ["7S 8S 9S TS JS QS KS AS", "7H 8H 9H TH JH QH KH AH",
             "7D 8D 9D TD JD QD KD AD", "7C 8C 9C TC JC QC KC AC"]
    s = state_for(hands, offer="JH", receiver=1, dealer=0, bids=["take"])
    assert [str(h) for h in s.hands] == hands
    assert s.phase == "play" and s.contract.trump == "H"


def test_the_cores_methods_show_their_signatures():
    """help() and editors read the native methods' signatures from their
    docstrings (Cython's embedsignature)."""
    from balout import State
    assert State.apply_action.__doc__.startswith("HandState.apply_action(self, action)\n")
    assert State.legal_actions.__doc__.startswith("HandState.legal_actions(self) -> list\n")
