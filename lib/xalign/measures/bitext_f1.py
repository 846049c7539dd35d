"""MTEB's bitext-mining scores: top-1 retrieval read as a classification, scored by support-weighted F1.

MTEB's BitextMining tasks (Tatoeba among them) embed the sentences of both sides, take
for every source sentence i its cosine top-1 target ``pred[i]``, and score the pairs
``(gold[i], pred[i])`` (``gold[i] = i``) as a multi-class classification with
scikit-learn: ``f1_score(gold, pred, average="weighted", zero_division=0)`` (the task's
main score), the same for precision and recall, and ``accuracy_score``. Each gold index
is one class; "weighted" averages the per-class F1 with the class's support (its count
in ``gold``) as weight. For a class c:

    F1_c = 2 * tp_c / (n_pred_c + n_gold_c)

(``tp_c``: rows with gold = pred = c; ``n_pred_c``, ``n_gold_c``: rows predicting c, rows
whose gold is c; 0 where both counts are 0). With every gold index appearing once, the
F1 is therefore below the accuracy whenever several sentences retrieve the same target:
a correct hit on a target that k other sentences also retrieved counts 2 / (k + 2).

:func:`weighted_f1` computes that number with counts (exact; a bootstrap calls it a
thousand times), and its tests check it against scikit-learn's ``f1_score``.
"""

from __future__ import annotations

import numpy as np


def _labels(gold, pred) -> tuple[np.ndarray, np.ndarray]:
    g, p = np.asarray(gold), np.asarray(pred)
    if g.ndim != 1 or g.shape != p.shape:
        raise ValueError(f"gold and pred must be (n,) arrays of the same length, got shapes {g.shape} and {p.shape}")
    if g.size == 0:
        raise ValueError("gold and pred are empty: no retrieved pairs to score")
    if not (np.issubdtype(g.dtype, np.integer) or np.all(np.mod(g, 1) == 0)) or \
            not (np.issubdtype(p.dtype, np.integer) or np.all(np.mod(p, 1) == 0)):
        raise ValueError("gold and pred must hold integer indices (sentence ids)")
    g, p = g.astype(np.int64), p.astype(np.int64)
    if min(g.min(), p.min()) < 0 or max(g.max(), p.max()) > 4 * (g.size + p.size):  # sparse ids: number them 0..
        _, inv = np.unique(np.r_[g, p], return_inverse=True)
        return inv[: g.size], inv[g.size :]
    return g, p


def weighted_f1(gold, pred) -> float:
    """Support-weighted F1 of retrieved indices against gold indices (sklearn's ``average="weighted"``).

    Args:
        gold: (n,) int, the index of each query's true translation (MTEB: ``gold[i] = i``; a bootstrap
            resample repeats some).
        pred: (n,) int, the index each query retrieved (its cosine top-1).

    Returns:
        F1 in [0, 1]: sum over classes c of ``n_gold_c * 2 tp_c / (n_pred_c + n_gold_c)``, divided by n.
    """
    g, p = _labels(gold, pred)
    k = int(max(g.max(), p.max())) + 1
    n_gold = np.bincount(g, minlength=k)
    n_pred = np.bincount(p, minlength=k)
    tp = np.bincount(g[g == p], minlength=k)
    den = n_pred + n_gold
    f1 = np.divide(2.0 * tp, den, out=np.zeros(k), where=den > 0)
    return float((n_gold * f1).sum() / g.size)


def bitext_scores(gold, pred) -> dict[str, float]:
    """MTEB's four bitext-mining numbers of one language pair, each in [0, 1].

    Args:
        gold: (n,) int true indices.
        pred: (n,) int retrieved indices.

    Returns:
        ``{"f1", "precision", "recall", "accuracy"}``: support-weighted F1, precision and recall
        (a class never predicted has precision 0) and the share of exact hits.
    """
    g, p = _labels(gold, pred)
    k = int(max(g.max(), p.max())) + 1
    n_gold = np.bincount(g, minlength=k)
    n_pred = np.bincount(p, minlength=k)
    tp = np.bincount(g[g == p], minlength=k)
    precision = np.divide(tp, n_pred, out=np.zeros(k), where=n_pred > 0)
    recall = np.divide(tp, n_gold, out=np.zeros(k), where=n_gold > 0)
    return {"f1": weighted_f1(gold, pred), "precision": float((n_gold * precision).sum() / g.size),
            "recall": float((n_gold * recall).sum() / g.size), "accuracy": float(np.mean(g == p))}


def query_f1(gold, pred) -> np.ndarray:
    """Each query's own F1 when every gold index occurs once (a bitext sample: sentence i's translation is
    row i): query i is a class of support 1 with TP = [pred_i = i], FN = 1 - TP and FP the other queries
    that retrieved row i; the mean over queries is :func:`weighted_f1`.

    A bootstrap that resamples these per-query scores keeps every query's false positives, where
    resampling (gold, pred) pairs and rescoring drops those pointing at the classes a resample misses
    (about a third), which biases the resampled F1 upwards (the full Tatoeba: 1 point above the
    estimate, the whole percentile interval above it).

    Args:
        gold: (n,) int true indices, each index once.
        pred: (n,) int retrieved indices.

    Returns:
        (n,) F1 of each query in [0, 1].

    Raises:
        ValueError: a gold index occurs twice (then a query is not its own class).
    """
    g, p = np.asarray(gold, np.int64), np.asarray(pred, np.int64)
    if g.shape != p.shape or g.ndim != 1:
        raise ValueError(f"gold and pred must be two (n,) arrays, got {g.shape} and {p.shape}")
    if len(np.unique(g)) != len(g):
        raise ValueError("query_f1 needs each gold index once (one translation per query)")
    k = int(max(g.max(initial=0), p.max(initial=0))) + 1
    tp = (g == p).astype(float)
    fp = np.bincount(p[g != p], minlength=k)[g].astype(float)  # other queries that retrieved this query's row
    return 2 * tp / (2 * tp + fp + (1 - tp))


def language_mean_f1(rows: np.ndarray) -> float:
    """The mean over languages of each language's :func:`weighted_f1` (MTEB's average over subsets).

    Computed in one pass of counts over (language, index) keys, so that a bootstrap over a full
    Tatoeba (a hundred languages x 1,000 sentences) stays fast.

    Args:
        rows: (n, 3) one row per query: language id, gold index, retrieved index (integers; a
            bootstrap resamples the rows).

    Returns:
        The mean F1 in [0, 1] over the languages present.
    """
    rows = np.asarray(rows)
    if rows.ndim != 2 or rows.shape[1] != 3:
        raise ValueError(f"rows must be (n, 3): language id, gold, retrieved; got shape {rows.shape}")
    if rows.shape[0] == 0:
        raise ValueError("rows is empty: no retrieved pairs to score")
    if not np.issubdtype(rows.dtype, np.integer) and not np.all(np.mod(rows, 1) == 0):
        raise ValueError("rows must hold integer ids (language, gold index, retrieved index)")
    lang, _ = _labels(rows[:, 0], rows[:, 0])  # language ids as small non-negative integers
    g, p = _labels(rows[:, 1], rows[:, 2])
    n_lang, k = int(lang.max()) + 1, int(max(g.max(), p.max())) + 1
    gold_key, pred_key = lang * k + g, lang * k + p
    size = n_lang * k
    n_gold = np.bincount(gold_key, minlength=size)
    n_pred = np.bincount(pred_key, minlength=size)
    tp = np.bincount(gold_key[g == p], minlength=size)
    den = n_pred + n_gold
    f1 = np.divide(2.0 * tp, den, out=np.zeros(size), where=den > 0)
    n_rows = np.bincount(lang, minlength=n_lang)
    per_key = np.bincount(np.arange(size) // k, weights=n_gold * f1, minlength=n_lang)
    present = n_rows > 0
    return float(np.mean(per_key[present] / n_rows[present]))
