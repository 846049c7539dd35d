"""The settings of the alignment card (``xalign card --set NAME VALUE``): each field's declared range, checked once.

The ranges use the language of :mod:`xalign.core.param_ranges`, as the chapters' ``profiles.yaml`` do.
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
    "tatoeba_langs": {"list": _LANG}, "tatoeba_n": {"int": [1, None]},
    "sts_tracks": {"list": _PAIR}, "sts_n": {"int": [1, None]},
    "xnli_langs": {"list": _LANG, "min_items": 2}, "xnli_n_train": {"int": [1, None]},
    "xnli_n_test": {"int": [1, None]}, "xnli_C": {"float": [1e-12, None]},
    "word_pair": _PAIR, "word_corpus": {"choice": ["wmt19", "wmt21"]},
    "word_sentences": {"int": [1, None]}, "word_n": {"int": [1, None]},
    "csls_k": {"int": [1, None], "at_most": ["word_n", "tatoeba_n"]},
    "bli_langs": {"list": _LANG}, "bli_vocab": {"int": [1, None]}, "bli_queries": {"int": [1, None]},
    "bli_prune": {"list": _LANG, "min_items": 0}, "btsr_lang": _LANG,
    "btsr_per_source": {"int": [1, None]}, "btsr_candidates": {"int": [1, None]},
    "n_boot": {"int": [1, None]}, "seed": {"int": [0, None]},
}


#: a card configuration (:class:`xalign.book.card.CardConfig`, a dataclass; not imported: card.py imports this module)
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
