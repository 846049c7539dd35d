"""How much an input prefix moves Tatoeba: the model card's prefix against the other one.

multilingual-e5 documents two prefixes (:mod:`xalign.core.prefixes`): ``"query: "`` for
symmetric tasks such as bitext mining, ``"passage: "`` for the documents of asymmetric
retrieval. Tatoeba is bitext mining, so the book encodes it with ``"query: "``; this module
measures, on the chapter's own Tatoeba sample, what the other choice would have given,
language by language, with a paired bootstrap over the same sentences.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from xalign.core import markup
from xalign.core.prefixes import documented_prefix
from xalign.measures.intervals import paired_difference_ci
from xalign.papers.calibrated2023 import calibrated as cal
from xalign.papers.calibrated2023.evidence import ci_text, signed

N_BOOT = 1000


def has_prefix_choice(model: str) -> bool:
    """Whether the model's family documents different prefixes for symmetric tasks and documents."""
    return documented_prefix(model, "symmetric") != documented_prefix(model, "passage")


def prefix_effect(model: str, encoders: dict[str, object], langs: Sequence[str], layers: dict[str, int],
                  n: int | None, seed: int = 0, direction: str = "xx->en", loader=None) -> pd.DataFrame:
    """Tatoeba accuracy (%) of the same sentences encoded with each prefix, and the paired difference.

    Args:
        model: the model's name (for the rows).
        encoders: prefix -> encoder of the same model with that prefix; the first is the documented one.
        langs: Tatoeba languages (each paired with English).
        layers: label -> layer index, e.g. ``{"chosen": 11, "last": 12}``.
        n: sentence pairs per language (the chapter's seeded sample; all if None).
        seed: the sample's and the bootstrap's seed.
        direction: ``"xx->en"`` (MTEB's and XTREME's) or ``"en->xx"``.
        loader: ``loader(lang)`` -> (xx, en) sentence pairs (default: the mirror's Tatoeba).

    Returns:
        One row per (layer label, language) and one ``all`` row per layer label (the languages'
        sentences pooled): ``model``, ``layer``, ``layer_index``, ``lang``, ``n_pairs``, accuracy
        per prefix (a column named by the prefix), ``diff`` (documented minus other, points) and its
        paired 95% interval ``ci_lo`` / ``ci_hi``.
    """
    if len(encoders) != 2:
        raise ValueError(f"encoders must map exactly two prefixes to encoders, got {list(encoders)}")
    (p_doc, e_doc), (p_other, e_other) = encoders.items()
    hits = {}
    for prefix, enc in ((p_doc, e_doc), (p_other, e_other)):
        # every layer, as the chapter's own Tatoeba run asks for them: the documented prefix's vectors come
        # from the embedding cache (the cache is keyed by the layers asked for), not from a second pass
        t = cal.tatoeba_retrieval(enc, langs, n=n, seed=seed, keep_hits=True, loader=loader)
        hits[prefix] = t[t.direction == direction].set_index(["layer", "lang"])["hits"]
    rows = []
    for label, layer in layers.items():
        pooled = {p: [] for p in hits}
        for lang in [*langs, "all"]:
            if lang == "all":
                a, b = (np.concatenate(pooled[p]) for p in (p_doc, p_other))
            else:
                a, b = (np.asarray(hits[p].loc[(layer, lang)], dtype=float) for p in (p_doc, p_other))
                pooled[p_doc].append(a)
                pooled[p_other].append(b)
            diff, lo, hi = paired_difference_ci(a, b, N_BOOT, seed=seed, scale=100)
            rows.append({"model": model, "layer": label, "layer_index": layer, "lang": lang, "n_pairs": len(a),
                         p_doc: 100 * a.mean(), p_other: 100 * b.mean(), "diff": diff, "ci_lo": lo, "ci_hi": hi})
    return pd.DataFrame(rows)


def distinct_layers(effect: pd.DataFrame) -> pd.DataFrame:
    """The rows with one label per layer index: where the chosen layer is the last one, its rows once,
    labelled ``"chosen (= last)"`` (the same numbers would otherwise be shown twice)."""
    first = effect.drop_duplicates(["model", "lang", "layer_index"], keep="first").copy()
    shared = effect.groupby(["model", "layer_index"])["layer"].transform("nunique") > 1
    labels = effect[shared].groupby(["model", "layer_index"])["layer"].agg(lambda x: f"{x.iloc[0]} (= {x.iloc[-1]})")
    for (model, index), label in labels.items():
        first.loc[(first.model == model) & (first.layer_index == index), "layer"] = label
    return first


def prefix_caption(effect: pd.DataFrame, direction: str) -> str:
    """The prefix table's caption: what is compared, at which layer, and what the difference is."""
    prefixes = [c.strip().rstrip(":") for c in effect.columns if c.endswith(": ")]
    layers = distinct_layers(effect)[["layer", "layer_index"]].drop_duplicates()
    where = " and ".join(f"the {r.layer} layer ({int(r.layer_index)})" for r in layers.itertuples())
    return (f"Tatoeba accuracy ({direction}) at {where} with each prefix the model documents; difference = "
            f"{prefixes[0]} minus {prefixes[1]}, paired bootstrap over the same sentences")


def prefix_sentence(effect: pd.DataFrame) -> str:
    """What the prefix choice does to Tatoeba, from :func:`.prefix_choice.prefix_effect`'s rows."""
    if effect is None or effect.empty:
        return "No model of this run documents more than one input prefix; nothing to compare."
    prefixes = [c for c in effect.columns if c.endswith(": ")]
    doc, other = (markup.code(p.strip()) for p in prefixes)
    out = []
    for model, g in distinct_layers(effect).groupby("model", sort=False):
        pooled = g[g.lang == "all"].set_index("layer")
        per = g[(g.lang != "all") & (g.layer == g.layer.iloc[0])]
        largest = per.loc[per["diff"].abs().sort_values(ascending=False).index[:3]]
        parts = [f"{layer} layer: {r[prefixes[0]]:.1f}% with {doc}, {r[prefixes[1]]:.1f}% with {other}, a "
                 f"difference of {signed(r['diff'])} points ({ci_text(r.ci_lo, r.ci_hi)})"
                 for layer, r in pooled.iterrows()]
        n_better = int((per.ci_lo > 0).sum())
        n_worse = int((per.ci_hi < 0).sum())
        moved = largest[largest["diff"].abs() > 0]
        moves = ("the largest moves: " + ", ".join(f"{r.lang} {signed(r['diff'])}" for _, r in moved.iterrows())
                 if len(moved) else "no language moves at all")
        out.append(f"For {markup.text(model)}, over all {int(pooled.n_pairs.iloc[0]):,} sentences of the sample ({'; '.join(parts)}). "
                   f"Per language at the chosen layer, {doc} is ahead beyond its interval in {n_better} of "
                   f"{len(per)} languages and behind in {n_worse}; {moves}.")
    return " ".join(out)
