"""The card's MTEB-comparable Tatoeba score: weighted F1 of xx->en cosine top-1, per language and averaged.

MTEB publishes, for each Tatoeba language, the support-weighted F1 of the retrieved pairs
(:mod:`xalign.measures.bitext_f1`) and, as the task's score, its mean over languages. The
card computes the same numbers at the model's output layer on its own Tatoeba sample (the
card's pairs, not MTEB's 1,000 per language) with bootstrap intervals over sentences, each sentence
keeping its own F1 (:func:`~xalign.measures.bitext_f1.query_f1`; rescoring resampled pairs biased the
interval upwards, above the estimate on the full card).
"""

from __future__ import annotations

import numpy as np

from xalign.card.items import ITEMS
from xalign.core.st_encoder import OUTPUT
from xalign.measures.bitext_f1 import bitext_scores, query_f1
from xalign.measures.intervals import bootstrap_ci


def output_label(labels: list[str]) -> str:
    """The layer label of the model's own sentence embedding: ``out`` where the card has it, else the
    last layer (mean-pooled: e5's own embedding, and what MTEB's default wrapper makes of a plain encoder)."""
    return OUTPUT if OUTPUT in labels else labels[-1]


def f1_x100(rows: np.ndarray) -> float:
    """MTEB's task score x 100 of (n, 2) rows (language index, the query's own F1,
    :func:`~xalign.measures.bitext_f1.query_f1`): the mean over languages of each language's mean, which is
    its support-weighted F1."""
    rows = np.asarray(rows, float)
    _, inv = np.unique(rows[:, 0], return_inverse=True)
    return 100 * float(np.mean(np.bincount(inv, rows[:, 1]) / np.bincount(inv)))


def mteb_f1_summary(retrieved: dict[str, np.ndarray], n_boot: int, seed: int) -> dict:
    """The card entry of MTEB's bitext score at one layer.

    Args:
        retrieved: language -> (n,) int, the English row each xx sentence retrieved (its cosine
            top-1); sentence i's translation is English row i.
        n_boot: bootstrap resamples (sentences resampled with replacement, all languages at once, each
            keeping its own F1: :func:`~xalign.measures.bitext_f1.query_f1`).
        seed: the resampling seed.

    Returns:
        ``{"value", "lo", "hi", "n", "per_language", ITEMS}``: the mean over languages of the weighted
        F1 x 100 with its 95% interval, the number of sentences, per language ``{"f1", "lo", "hi",
        "precision", "recall", "accuracy", "n"}`` (x 100), and the (n, 2) rows the score is a statistic
        of (language index, the query's F1; :func:`f1_x100`), for paired comparisons.
    """
    if not retrieved:
        raise ValueError("no Tatoeba language retrieved: the card's tatoeba_langs is empty")
    rows, per_language = [], {}
    for i, (lang, pred) in enumerate(retrieved.items()):
        pred = np.asarray(pred, np.int64)
        gold = np.arange(len(pred))
        lang_rows = np.c_[np.full(len(pred), i), query_f1(gold, pred)]
        rows.append(lang_rows)
        scores = {k: 100 * v for k, v in bitext_scores(gold, pred).items()}
        lo, hi = bootstrap_ci(lang_rows, f1_x100, n_boot=n_boot, seed=seed)
        per_language[lang] = {"f1": scores["f1"], "lo": lo, "hi": hi, "precision": scores["precision"],
                              "recall": scores["recall"], "accuracy": scores["accuracy"], "n": len(pred)}
    rows = np.concatenate(rows)
    lo, hi = bootstrap_ci(rows, f1_x100, n_boot=n_boot, seed=seed)
    return {"value": f1_x100(rows), "lo": lo, "hi": hi, "n": len(rows), "per_language": per_language, ITEMS: rows}
