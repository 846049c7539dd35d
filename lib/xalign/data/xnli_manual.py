"""XNLI Manual (the calibrated-retrieval paper, Sec. 4.1): XNLI's human-translated, labelled dev and test
rows of each language, concatenated and split 8:1:1 into train, validation and test by premise group (no
premise in two splits), with the same indices in every language, so that the test sets stay translations of
each other. Chapter 3 and the model card read it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from xalign.data.taskdata import NLI_LABELS, XNLI_LANGUAGES, premise_groups

SPLITS = ("train", "val", "test")
LABEL_INDEX = {lab: i for i, lab in enumerate(NLI_LABELS)}


def split_groups(groups: np.ndarray, ratios=(8, 1, 1), seed: int = 0) -> dict[str, np.ndarray]:
    """Row indices of train / val / test: whole groups, shuffled with ``seed``, split by ``ratios``."""
    if len(ratios) != 3 or min(ratios) < 0 or sum(ratios) <= 0:
        raise ValueError(f"ratios must be three non-negative numbers, got {ratios}")
    ids = np.unique(groups)
    perm = np.random.default_rng(seed).permutation(ids)
    r = np.asarray(ratios, float) / sum(ratios)
    n_train = round(r[0] * len(ids))
    n_val = round(r[1] * len(ids))
    parts = {"train": perm[:n_train], "val": perm[n_train : n_train + n_val], "test": perm[n_train + n_val :]}
    return {k: np.flatnonzero(np.isin(groups, v)) for k, v in parts.items()}


def limit_groups(indices: np.ndarray, groups: np.ndarray, n_rows: int | None, seed: int = 0) -> np.ndarray:
    """At most ``n_rows`` of ``indices``, taken as whole premise groups in a seeded order (sorted)."""
    if n_rows is None or n_rows >= len(indices):
        return np.sort(indices)
    gids = np.unique(groups[indices])
    order = np.random.default_rng(seed).permutation(gids)
    keep, total = [], 0
    for g in order:
        size = int((groups[indices] == g).sum())
        if total + size > n_rows and total > 0:
            break
        keep.append(g)
        total += size
    return np.sort(indices[np.isin(groups[indices], keep)])


@dataclass
class XNLIManual:
    """Per-language train/val/test rows of XNLI Manual; ``rows[lang][split]`` = [(premise, hypothesis, label)]."""

    rows: dict[str, dict[str, list[tuple[str, str, str]]]]
    indices: dict[str, np.ndarray]
    seed: int

    @property
    def langs(self) -> list[str]:
        return list(self.rows)

    def sizes(self) -> pd.DataFrame:
        return pd.DataFrame([{"lang": lang, **{s: len(v[s]) for s in SPLITS}} for lang, v in self.rows.items()])

    def head(self, split: str, n: int | None) -> XNLIManual:
        """The same data with only the first ``n`` rows of ``split`` in every language."""
        rows = {lang: {s: (r[:n] if s == split else r) for s, r in v.items()} for lang, v in self.rows.items()}
        idx = {s: (i[:n] if s == split else i) for s, i in self.indices.items()}
        return XNLIManual(rows=rows, indices=idx, seed=self.seed)


def xnli_manual(langs: Sequence[str] = XNLI_LANGUAGES, seed: int = 0, n_train: int | None = None,
                n_val: int | None = None, n_test: int | None = None, loader=None) -> XNLIManual:
    """Build XNLI Manual (dev + test, split 8:1:1 by premise group), optionally subsampled.

    ``n_train`` / ``n_val`` / ``n_test`` cap the rows per language and split
    (whole premise groups, the same rows in every language). ``loader(lang)``
    returns a language's rows (default: XNLI dev followed by labelled test, read by
    :func:`xalign.data.taskdata.xnli_pairs`).
    """
    if loader is None:
        from xalign.data.taskdata import xnli_pairs

        def loader(lang):
            return [(p.premise, p.hypothesis, p.label) for split in ("dev", "test")
                    for p in xnli_pairs(lang, split)]

    langs = list(langs)
    data = {lang: loader(lang) for lang in langs}
    n = {len(v) for v in data.values()}
    if len(n) != 1:
        raise ValueError(f"XNLI languages must be line-parallel; row counts: "
                         f"{ {k: len(v) for k, v in data.items()} }")
    ref = data["en"] if "en" in data else data[langs[0]]
    groups = premise_groups(ref)
    for lang, rows in data.items():
        if not np.array_equal(premise_groups(rows), groups):
            raise ValueError(f"XNLI {lang}: premise groups differ from {'en' if 'en' in data else langs[0]}'s; "
                             f"the files are not line-parallel")
        labels = [r[2] for r in rows]
        if labels != [r[2] for r in ref]:
            raise ValueError(f"XNLI {lang}: labels differ from the reference language row by row")
    idx = split_groups(groups, seed=seed)
    caps = {"train": n_train, "val": n_val, "test": n_test}
    idx = {s: limit_groups(idx[s], groups, caps[s], seed + 1 + i) for i, s in enumerate(SPLITS)}
    rows = {lang: {s: [data[lang][i] for i in idx[s]] for s in SPLITS} for lang in langs}
    return XNLIManual(rows=rows, indices=idx, seed=seed)


def labels_array(rows) -> np.ndarray:
    """(n,) int64 class indices (:data:`xalign.data.taskdata.NLI_LABELS` order) of (premise, hypothesis, label) rows."""
    return np.array([LABEL_INDEX[r[2]] for r in rows], np.int64)
