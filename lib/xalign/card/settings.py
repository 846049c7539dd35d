"""The settings of the alignment card (``xalign card --set NAME VALUE``): each field's declared range, checked once,
and the named size sets (``xalign card --profile quick|full``).

The ranges use the language of :mod:`xalign.core.param_ranges`, as the chapters' ``profiles.yaml`` do.
``None`` in a size (``--set tatoeba_n null``) is "all of it".
"""

from __future__ import annotations

from dataclasses import asdict, replace
from typing import TypeVar

from xalign.core.param_ranges import check_values
from xalign.core.profiles import ParameterError, as_list

_LANG = {"pattern": "[a-z]{2,3}"}
_PAIR = {"pattern": "[a-z]{2,3}-[a-z]{2,3}"}
#: the declared range of every :class:`CardConfig` field (the language of :mod:`xalign.core.param_ranges`)
CARD_RANGES = {
    "tatoeba_langs": {"list": _LANG}, "tatoeba_n": {"int": [1, None], "nullable": True},
    "sts_tracks": {"list": _PAIR}, "sts_n": {"int": [1, None], "nullable": True},
    "xnli_langs": {"list": _LANG, "min_items": 2}, "xnli_n_train": {"int": [1, None], "nullable": True},
    "xnli_n_test": {"int": [1, None], "nullable": True}, "xnli_C": {"float": [1e-12, None]},
    "word_pair": _PAIR, "word_corpus": {"choice": ["wmt19", "wmt21"]},
    "word_sentences": {"int": [1, None], "nullable": True}, "word_n": {"int": [1, None]},
    "word_runs": {"int": [1, 100]},
    "csls_k": {"int": [1, None], "at_most": ["word_n", "tatoeba_n"]},
    "bli_langs": {"list": _LANG}, "bli_vocab": {"int": [1, None]}, "bli_queries": {"int": [1, None]},
    "bli_prune": {"list": _LANG, "min_items": 0}, "btsr_lang": _LANG,
    "btsr_per_source": {"int": [1, None]}, "btsr_candidates": {"int": [1, None]},
    "n_boot": {"int": [1, None]}, "seed": {"int": [0, None]}, "precision": {"choice": ["auto", "float32", "bfloat16"]},
}


#: a card configuration (:class:`xalign.card.battery.CardConfig`, a dataclass; not imported: battery.py imports this module)
Config = TypeVar("Config")


def with_sizes(config: Config, **sizes) -> Config:
    """A config with some sizes changed (``xalign card --set tatoeba_n 50``), each checked against its range.

    Args:
        config: the battery to change.
        **sizes: field name -> value; list fields take a list or a comma string (``de,ar``).

    Returns:
        The changed config.

    Raises:
        ParameterError: an unknown field (the valid ones listed) or a value outside its range.
    """
    unknown = sorted(set(sizes) - set(CARD_RANGES))
    if unknown:
        raise ParameterError(f"card: unknown setting(s) {unknown}; valid names: {', '.join(CARD_RANGES)}")
    values = {**asdict(config), **sizes}
    check_values(CARD_RANGES, {k: values[k] for k in CARD_RANGES}, "card")
    defaults = asdict(type(config)())
    sizes = {k: tuple(as_list(v)) if isinstance(defaults[k], tuple) else v for k, v in sizes.items()}
    return replace(config, **sizes)


#: seconds a card may take: (profile, run) -> target on 2 CPU cores (cold: an empty cache; warm: every encoding
#: cached); the full card on a GPU has its own (bench/card_timings.py prints runs beside them)
TIME_TARGETS = {("quick", "cold"): 300, ("quick", "warm"): 30, ("full", "cold"): 3600, ("full", "warm"): 30}
GPU_TIME_TARGETS = {("full", "cold"): 120}

#: the card's named size sets: ``quick`` is :class:`~xalign.card.battery.CardConfig`'s defaults (minutes on 2 cores),
#: ``full`` the benchmark sizes (:func:`full_sizes`)
CARD_PROFILES = ("quick", "full")


def full_sizes() -> dict:
    """The benchmark sizes: every Tatoeba language the data declares (the mirror's 112), all their pairs;
    XNLI Manual's 15 languages with every test row (750 each) and 2,000 training rows each (30,000 for
    translate-train-all: a third of the split, which would double the card's encoding for a linear probe);
    BLI on 1,500 MUSE test words per direction among at least 20,000 candidates; S_weak / S_strong on
    N = 5,000 word pairs drawn 10 times from every WMT19 sentence; the three STS 2017 tracks in full."""
    from xalign.data.sentdata import tatoeba_languages
    from xalign.data.taskdata import XNLI_LANGUAGES

    return {"tatoeba_langs": tatoeba_languages(), "tatoeba_n": None, "sts_n": None,
            "xnli_langs": list(XNLI_LANGUAGES), "xnli_n_train": 2000, "xnli_n_test": None,
            "word_sentences": None, "word_n": 5000, "word_runs": 10,
            "bli_vocab": 20000, "bli_queries": 1500}


def with_profile(config: Config, profile: str) -> Config:
    """``config`` with a named size set (:data:`CARD_PROFILES`) applied, checked as :func:`with_sizes` checks.

    Args:
        config: the battery to start from (normally ``CardConfig()``, the quick sizes).
        profile: ``"quick"`` (``config`` unchanged) or ``"full"`` (:func:`full_sizes`).

    Raises:
        ParameterError: an unknown profile (the valid ones named).
    """
    if profile not in CARD_PROFILES:
        raise ParameterError(f"card: unknown profile {profile!r}; valid profiles: {', '.join(CARD_PROFILES)}")
    return with_sizes(config, **full_sizes()) if profile == "full" else config


def profile_of(config: Config) -> str:
    """The name of the size set ``config`` is (``"quick"``, ``"full"``), else ``"custom"`` (the bootstrap count aside)."""
    base = type(config)()

    def sample(c):
        return {k: v for k, v in asdict(c).items() if k != "n_boot"}

    for name in CARD_PROFILES:
        if sample(config) == sample(with_profile(base, name)):
            return name
    return "custom"
