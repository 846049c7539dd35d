"""The BLI grid: every direction x method (x pruned / not), cached on disk.

:func:`evaluate_directions` runs :func:`xalign.measures.bli.evaluate_bli`
for every direction and method, learning the maps it needs, with and without
vocabulary pruning. Pruning follows the authors' evaluation code: a language
of ``prune_langs`` is pruned on whichever side it is, target (En->X) *and*
source (X->En), as their ``evaluate_c1.py`` does for si, zh, ru, ta and ja.

Each (direction, method) cell is cached like the embeddings (one atomic
``.npz`` entry in :class:`xalign.core.cache.EmbeddingCache`), keyed by the
sha256 of both vocabularies' words and vectors (so the model, layer,
pooling, precision and vocabulary are all in the key), the train and test
dictionaries, the method, the retrieval and pruning settings, the stemmer
and the map options. A warm rerun reads the cells instead of refitting and
re-ranking.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from xalign.core.code_closure import code_digest
from xalign.data.static import StaticVectors
from xalign.data.wordvectors import subset
from xalign.measures.bli import RETRIEVALS, evaluate_bli, target_densities
from xalign.measures.bli_maps import MAPPINGS, apply_map, fit_map
from xalign.measures.mapping import normalize_center


def vectors_digest(vectors: StaticVectors) -> str:
    """sha256 over a space's words (in order) and its vectors' bytes.

    Args:
        vectors: the space.

    Returns:
        A hex digest.
    """
    from xalign.core.hashing import text_hash

    h = hashlib.sha256(text_hash(vectors.words).encode())
    x = np.ascontiguousarray(vectors.vectors)
    h.update(str((x.dtype.str, x.shape)).encode())
    h.update(x.tobytes())
    return h.hexdigest()


def _pairs_digest(pairs) -> str | None:
    from xalign.core.hashing import text_hash

    return None if pairs is None else text_hash([w for p in pairs for w in p])


def _as_cache(cache):
    if cache is None or cache is False:
        return None
    if cache is True:
        from xalign.core.cache import EmbeddingCache

        return EmbeddingCache()
    return cache


def _frame_to_array(df: pd.DataFrame) -> np.ndarray:
    return np.array(json.dumps({"columns": list(df.columns), "data": df.to_dict(orient="list")}))


def _array_to_frame(a: np.ndarray) -> pd.DataFrame:
    got = json.loads(str(a))
    return pd.DataFrame(got["data"], columns=got["columns"])


def evaluate_directions(directions: Sequence[tuple[str, str]], vectors: dict[str, StaticVectors],
                        dictionary: Callable[[str, str, str], Sequence[tuple[str, str]]],
                        methods: Sequence[str] = ("none",) + MAPPINGS, retrievals: Sequence[str] = RETRIEVALS,
                        ks: Sequence[int] = (1, 5, 10), csls_k: int = 10, prune_langs: Sequence[str] = (),
                        prune_rule: str = "script", prune_source: bool = True, stemmers: dict | None = None,
                        rcsls_options: dict | None = None, vecmap_options: dict | None = None,
                        progress: bool = True, cache=None, n_boot: int = 1000) -> tuple[pd.DataFrame, pd.DataFrame]:
    """BLI for every direction and method, with and without vocabulary pruning.

    Directions with a language of ``prune_langs`` on either side (the source side only with
    ``prune_source``, the default, as the authors do) are evaluated twice: as is, and with that
    language's vocabulary pruned (:func:`xalign.data.scripts.script_mask`, ``prune_rule``).

    Args:
        directions: (source language, target language) pairs.
        vectors: one :class:`StaticVectors` per language (the candidate vocabulary, (n_lang, d)).
        dictionary: ``dictionary(src, tgt, split)`` -> the train / test (source, target) pairs.
        methods: ``"none"`` (the vectors as they are, e.g. a multilingual model's own space) and/or
            mappings of :data:`~xalign.measures.bli_maps.MAPPINGS` learned on the train split.
        retrievals: among ``"nn"`` and ``"csls"``.
        ks: the k of each P@k.
        csls_k: CSLS neighbours.
        prune_langs: languages whose vocabulary is also evaluated pruned.
        prune_rule: the pruning rule of :func:`xalign.data.scripts.script_mask`.
        prune_source: prune only where the language is the source.
        stemmers: {target language: stemmer} adds the stem-based match.
        rcsls_options: keyword arguments of :func:`xalign.measures.rcsls.fit_rcsls`.
        vecmap_options: keyword arguments of :func:`xalign.measures.vecmap.fit_vecmap`.
        progress: show a progress bar.
        cache: None (off), True (the default :class:`xalign.core.cache.EmbeddingCache`) or a cache object.
        n_boot: bootstrap resamples for the intervals.

    Returns:
        (results, fits): results in long format (``src``, ``tgt``, ``method``, ``pruned``, then
        :func:`~xalign.measures.bli.evaluate_bli`'s columns, precisions in %) and one row per learned map.
    """
    from xalign.core.memory import blocks_reused, freed_memory_returned
    from xalign.core.progress import bar as progress_bar
    from xalign.data.scripts import script_mask

    bad = [m for m in methods if m != "none" and m not in MAPPINGS]
    if bad:
        raise ValueError(f"unknown methods {bad}; use 'none' or one of {MAPPINGS}")
    missing = sorted({lang for d in directions for lang in d} - set(vectors))
    if missing:
        raise KeyError(f"no vectors for {missing}")
    stemmers = stemmers or {}
    cache = _as_cache(cache)
    masks = {lang: script_mask(vectors[lang].words, lang, rule=prune_rule) for lang in prune_langs
             if lang in vectors}
    digests: dict[str, str] = {}
    normalized: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # normalize_center of a space, shared by its maps
    results, fits = [], []
    code = code_digest(GRID_CODE) if cache is not None else None  # the memo's rule: inputs and code
    bar = progress_bar(total=len(directions) * len(methods), desc="BLI", disable=not progress)
    # freed blocks go back to the system (the heap does not grow cell by cell); the similarity and
    # k-NN blocks every cell needs are allocated once (not faulted in again block by block)
    with freed_memory_returned(), blocks_reused():
        for s, t in directions:
            test = dictionary(s, t, "test")
            train = dictionary(s, t, "train") if any(m != "none" for m in methods) else None
            prune_s, prune_t = prune_source and s in masks, t in masks
            for method in methods:
                bar.set_postfix_str(f"{s}-{t} {method}")
                key = None
                if cache is not None:
                    for lang in (s, t):
                        if lang not in digests:
                            digests[lang] = vectors_digest(vectors[lang])
                    key = {"kind": "bli-grid", "code": code, "src": digests[s], "tgt": digests[t],
                           "test": _pairs_digest(test), "train": _pairs_digest(train if method != "none" else None),
                           "method": method, "retrievals": list(retrievals), "ks": list(ks), "csls_k": csls_k,
                           "prune": [prune_rule if prune_s else None, prune_rule if prune_t else None],
                           "stemmer": getattr(stemmers.get(t), "name", None) if t in stemmers else None,
                           "rcsls": rcsls_options if method == "rcsls" else None,
                           "vecmap": vecmap_options if method == "vecmap" else None, "n_boot": n_boot}
                    got = cache.get(key)
                    if got is not None:
                        results.append(_array_to_frame(got["results"]))
                        fit = json.loads(str(got["fit"]))
                        if fit:
                            fits.append(fit)
                        bar.update(1)
                        continue
                fit = {}
                if method == "none":
                    U, V = vectors[s], vectors[t]
                else:
                    for lang in [x for x in normalized if x not in (s, t)]:  # keep two spaces, not every language
                        del normalized[lang]
                    for lang in (s, t):
                        if lang not in normalized:
                            normalized[lang] = normalize_center(vectors[lang].vectors)
                    pre = (normalized[s], normalized[t])
                    alignment, info = fit_map(method, vectors[s], vectors[t], train, rcsls_options, vecmap_options,
                                              normalized=pre)
                    fit = {"src": s, "tgt": t, **info}
                    fits.append(fit)
                    U, V = apply_map(alignment, vectors[s], vectors[t], normalized=pre)
                cell = []
                variants = [False] + ([True] if (prune_s or prune_t) else [])
                # CSLS densities of the targets among the (pruned) sources: one product for both variants
                dens = target_densities(V.vectors, U.vectors, csls_k, [None] + ([masks[s]] if prune_s else [])) \
                    if "csls" in retrievals else None
                for pruned in variants:
                    Up = subset(U, masks[s]) if pruned and prune_s else U
                    Vp = subset(V, masks[t]) if pruned and prune_t else V
                    d = None
                    if dens is not None:
                        d = dens[-1] if pruned else dens[0]
                        d = d[masks[t]] if pruned and prune_t else d
                    df = evaluate_bli(Up, Vp, test, ks, retrievals, csls_k, stemmers.get(t), n_boot=n_boot,
                                      tgt_density=d)
                    df.insert(0, "pruned", pruned)
                    df.insert(0, "method", method)
                    df.insert(0, "tgt", t)
                    df.insert(0, "src", s)
                    cell.append(df)
                cell = pd.concat(cell, ignore_index=True)
                if key is not None:
                    cache.put(key, results=_frame_to_array(cell), fit=np.array(json.dumps(fit, default=float)))
                results.append(cell)
                bar.update(1)
    bar.close()
    return pd.concat(results, ignore_index=True), pd.DataFrame(fits)


#: the code a cached grid cell is keyed on (bound at import: the grid with every map, retrieval and score
#: it reaches)
GRID_CODE = (evaluate_directions,)
