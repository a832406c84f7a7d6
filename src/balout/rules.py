"""Variants and rule options (RULES.md section 7).

Every **[choice]** of RULES.md is an option here with the documented
default. Options are validated once, then handed to the native core as a
tuple of small integers; the rules themselves live in the core only.
"""
from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Callable, Mapping, Optional, Tuple

from .errors import OptionError

VARIANTS = ("balout", "belote", "baloot")
VARIANT_IDS = {v: i for i, v in enumerate(VARIANTS)}


@dataclass(frozen=True)
class Option:
    name: str
    defaults: Mapping[str, Any]          # variant -> default (variants it applies to)
    allowed: Callable[[str, Any], bool]  # (variant, value) -> ok
    describe_allowed: Callable[[str], str]
    encode: Callable[[Any], int]
    doc: str
    boolean: bool = False


def _boolean(doc: str, defaults: Mapping[str, bool]) -> Callable[[str], Option]:
    def make(name: str) -> Option:
        return Option(
            name, defaults,
            allowed=lambda v, x: isinstance(x, bool) or x in ("on", "off"),
            describe_allowed=lambda v: "true/false (or 'on'/'off')",
            encode=lambda x: int(x is True or x == "on"),
            doc=doc,
            boolean=True,
        )
    return make


def _choice(doc: str, defaults: Mapping[str, str], values: Mapping[str, Tuple[str, ...]],
            codes: Mapping[str, int]) -> Callable[[str], Option]:
    def make(name: str) -> Option:
        return Option(
            name, defaults,
            allowed=lambda v, x: isinstance(x, str) and x in values[v],
            describe_allowed=lambda v: ", ".join(repr(x) for x in values[v]),
            encode=lambda x: codes[x],
            doc=doc,
        )
    return make


def _target_ok(variant: str, x: Any) -> bool:
    if isinstance(x, bool) or not isinstance(x, int):
        return False
    if variant == "baloot":
        return 52 <= x <= 1000
    return 500 <= x <= 2000 and x % 100 == 0


_ALL = {"balout": None, "belote": None, "baloot": None}
_TRUMP_GAMES = ("balout", "belote")

_SPECS = {
    "target": lambda name: Option(
        name, {"balout": 500, "belote": 1000, "baloot": 152}, _target_ok,
        lambda v: "an integer from 52 to 1000" if v == "baloot"
        else "500 to 2000 in steps of 100",
        int, "match target"),
    "forced_take_on_jack": _boolean(
        "seat d+1 must take a J offer", {"balout": True, "belote": False}),
    "first_lead": _choice(
        "who leads trick 1", {"balout": "after_taker", "belote": "after_dealer", "baloot": "after_dealer"},
        {v: ("after_taker", "after_dealer") for v in VARIANTS},
        {"after_taker": 0, "after_dealer": 1}),
    "overtrump_when_cutting": _boolean(
        "must beat an opponent's winning trump when void", dict.fromkeys(VARIANTS, True)),
    "undertrump": _boolean(
        "must trump even when unable to beat", dict.fromkeys(VARIANTS, True)),
    "partner_winning_frees": _boolean(
        "no duty to trump when partner is winning", dict.fromkeys(VARIANTS, True)),
    "declarations": _choice(
        "declarations/projects: automatic, off, or a per-player decision",
        dict.fromkeys(VARIANTS, "auto"), {v: ("auto", "off", "choice") for v in VARIANTS},
        {"auto": 0, "off": 1, "choice": 2}),
    "litige_pot": _boolean("an 81-81 tie goes to the pot", {"balout": True, "belote": False}),
    "capot": _choice(
        "capot rule", {"balout": "plus100_zero_points", "belote": "250_all_tricks", "baloot": "kaboot"},
        {"balout": ("plus100_zero_points", "250_all_tricks"),
         "belote": ("plus100_zero_points", "250_all_tricks"),
         "baloot": ("kaboot",)},
        {"plus100_zero_points": 0, "250_all_tricks": 1, "kaboot": 2}),
    "sun_overcall": _boolean("Sun outranks Hokm in the auction", {"baloot": True}),
    "doubling": _boolean("doubling phase", {"baloot": True}),
    "three_multiplier": lambda name: Option(
        name, {"baloot": 3}, lambda v, x: x in (2, 3) and not isinstance(x, bool),
        lambda v: "2 or 3", int, "multiplier of 'three'"),
    "declaration_order": _choice(
        "how the best declaration is chosen", {"balout": "length_first", "belote": "value_first"},
        {v: ("length_first", "value_first") for v in _TRUMP_GAMES},
        {"length_first": 0, "value_first": 1}),
    "contract_counts_declarations": _boolean(
        "scoring declarations count toward the contract", {"balout": False, "belote": True}),
}
OPTIONS: Mapping[str, Option] = MappingProxyType({name: make(name) for name, make in _SPECS.items()})
# order of the fields of the core's Rules struct (after 'variant')
_CORE_ORDER = ("first_lead", "forced_take_on_jack", "overtrump_when_cutting", "undertrump",
               "partner_winning_frees", "declarations", "litige_pot", "capot", "sun_overcall",
               "doubling", "declaration_order", "contract_counts_declarations",
               "three_multiplier", "target")


def defaults(variant: str) -> Mapping[str, Any]:
    """The default options of a variant."""
    check_variant(variant)
    return MappingProxyType({n: o.defaults[variant] for n, o in OPTIONS.items() if variant in o.defaults})


def check_variant(variant: Any) -> str:
    if not isinstance(variant, str) or variant not in VARIANTS:
        raise OptionError(f"unknown variant {variant!r}; variants are {', '.join(VARIANTS)}")
    return variant


_RESOLVED: dict = {}


def resolve(variant: str, options: Optional[Mapping[str, Any]] = None):
    """Validate options; return (variant, read-only options, core rules tuple)."""
    try:
        # the value's type is part of the key: 1 == True and 500.0 == 500 in Python,
        # but only True and 500 are valid
        key: Any = (variant, tuple(sorted((k, type(v), v) for k, v in options.items())) if options else ())
        hit = _RESOLVED.get(key)
    except (TypeError, AttributeError, ValueError):  # not a mapping, or values numpy will not compare
        key = hit = None
    if hit is not None:
        return hit
    result = _resolve(variant, options)
    if key is not None and len(_RESOLVED) < 4096:
        _RESOLVED[key] = result
    return result


def _resolve(variant: str, options: Optional[Mapping[str, Any]]):
    check_variant(variant)
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise OptionError(f"options must be a mapping of option names to values, not {type(options).__name__}")
    resolved = dict(defaults(variant))
    for name, value in options.items():
        opt = OPTIONS.get(name)
        if opt is None:
            raise OptionError(f"unknown option {name!r}; options are {', '.join(OPTIONS)}")
        if variant not in opt.defaults:
            applies = ", ".join(v for v in VARIANTS if v in opt.defaults)
            raise OptionError(f"option {name!r} does not apply to {variant!r} (it applies to {applies})")
        if not opt.allowed(variant, value):
            raise OptionError(
                f"bad value {value!r} for option {name!r} of {variant!r}; allowed: {opt.describe_allowed(variant)}")
        if opt.boolean and isinstance(value, str):
            value = value == "on"
        resolved[name] = value
    fields = [VARIANT_IDS[variant]]
    for name in _CORE_ORDER:
        if name in resolved:
            fields.append(OPTIONS[name].encode(resolved[name]))
        else:
            fields.append(3 if name == "three_multiplier" else 0)
    return variant, MappingProxyType(resolved), tuple(fields)


def explicit_options(variant: str, options: Mapping[str, Any]) -> dict:
    """The options that differ from the variant's defaults (for records)."""
    base = defaults(variant)
    return {k: v for k, v in options.items() if base.get(k) != v}
