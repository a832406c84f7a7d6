"""Names players use: Baloot's contracts, suits and projects (source 003),
with the English transliterations. For display only; records stay canonical."""
from __future__ import annotations

from typing import Optional

#: contract and call names (English, Arabic)
CONTRACTS = {
    "sun": ("Sun", "صن"),
    "hokm": ("Hokm", "حكم"),
    "ashkal": ("Ashkal", "أشكل"),
    "trump": ("Trump", "حكم"),
}
#: suit names of the Baloot source text: Spades سبيت, Hearts هاص, Diamonds ديمن, Clubs شيريا
SUITS_AR = {"S": "سبيت", "H": "هاص", "D": "ديمن", "C": "شيريا"}
#: rank names of the Baloot source text
RANKS_AR = {"A": "إكه", "K": "شايب", "Q": "بنت", "J": "ولد", "T": "عشرة", "9": "تسعة",
            "8": "ثمانية", "7": "سبعة"}
#: projects, doubling calls and kaboot
TERMS = {
    "sira": ("Sira", "سرا"), "fifty": ("Fifty", "خمسين"), "hundred": ("Hundred", "مية"),
    "four-hundred": ("Four hundred", "أربعمية"), "baloot": ("Baloot", "بلوت"),
    "double": ("Double", "دبل"), "three": ("Three", "ثري"), "four": ("Four", "فور"),
    "gahwa": ("Gahwa", "قهوة"), "kaboot": ("Kaboot", "كبوت"), "pass": ("Pass", "بس"),
}


def contract_label(kind: str, trump: Optional[str] = None, *, arabic: bool = True) -> str:
    """'Hokm ♥ (حكم هاص)', 'Sun (صن)'; plain English with ``arabic=False``."""
    if kind not in CONTRACTS:
        raise ValueError(f"unknown contract kind {kind!r}; kinds are {', '.join(CONTRACTS)}")
    en, ar = CONTRACTS[kind]
    if trump:
        en = f"{en} {'♠♥♦♣'['SHDC'.index(trump)]}"
        ar = f"{ar} {SUITS_AR[trump]}"
    return f"{en} ({ar})" if arabic else en


def card_label_ar(card) -> str:
    """Arabic name of a card as in the Baloot source, e.g. 'ولد هاص' for JH."""
    from .cards import Card

    c = Card(card)
    return f"{RANKS_AR[c.rank]} {SUITS_AR[c.suit]}"
