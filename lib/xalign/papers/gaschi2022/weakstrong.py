"""The weak/strong alignment protocol of Gaschi et al. (2022), on top of the generic pieces.

- :func:`pair_layer_scores`: a score (S_weak or S_strong) at every layer for
  ``runs`` samples of N distinct word pairs; :func:`alignment_layer_scores` and
  :func:`sentence_layer_scores`: Tables III/IV and Table I's scorings, memoised;
- :func:`best_last_rows`: the best and the last layer's mean and std per pair;
- :func:`static_pair_vectors` / :func:`static_sentence_vectors`: the static
  baseline (aligned fastText) on the same pairs and sentences;
- :func:`retrieval_errors`: pairs whose nearest neighbour is not the translation.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from xalign.core.hashing import array_digest
from xalign.core.memo import cached
from xalign.data import word_pairs as PR
from xalign.data.static import StaticVectors
from xalign.measures import incontext as IC
from xalign.measures import layerwise as LW
from xalign.measures.csls import csls_topk
from xalign.measures.retrieval import alignment_scores, s_weak


def distinct_samples(word_pairs: list[PR.WordPair], n: int, runs: int, seed: int) -> list[np.ndarray]:
    """``runs`` samples of up to n pairs with distinct word types (seed + run for each, drawn per pair)."""
    return [PR.sample_distinct(word_pairs, n, seed + r) for r in range(runs)]


def pair_layer_scores(word_pairs: dict[str, list[PR.WordPair]], encoded: dict[str, tuple],
                      score: Callable, n: int, runs: int, seed: int, layers: list[int],
                      label: str = "") -> pd.DataFrame:
    """score(U, V) per language pair, layer and run; tidy (pair, layer, run, value in [0, 1]).

    The pairs' vectors are read from the encoded sides row by row (no (n_pairs, L, dim) copy).
    """
    out = []
    for lp, wp in word_pairs.items():
        src, tgt = encoded[lp]
        df = LW.layerwise_scores(src.words, tgt.words, score, distinct_samples(wp, n, runs, seed), layers,
                                 desc=f"{label} {lp}", rows=IC.pair_rows(wp, src, tgt))
        out.append(df.assign(pair=lp))
    return pd.concat(out, ignore_index=True)


def _words_digest(side: IC.EncodedSide, rows: np.ndarray) -> str:
    """Digest of the word vectors a scoring reads: the side's word array and the pairs' rows in it."""
    return array_digest(side.words, rows)


def alignment_layer_scores(word_pairs: dict[str, list[PR.WordPair]], encoded: Mapping[str, tuple], k: int,
                           n: int, runs: int, seed: int, layers: list[int]) -> pd.DataFrame:
    """S_weak, S_strong (and xalign 0.1's S_strong) of every pair, layer and run, memoised per language pair.

    Tidy (pair, layer, run, metric, value in [0, 1]). Each language pair's cache key holds its
    word vectors' digest, the pairs' rows, k, n, runs, seed and layers, and the source of the
    code it runs (:func:`xalign.core.memo.cached`), so a warm rerun reads it back. ``encoded`` may be an
    :class:`~xalign.measures.incontext.EncodedPairs`: one pair is read at a time.
    """
    return pd.concat([_pair_alignment_scores(lp, wp, encoded, k, n, runs, seed, layers)
                      for lp, wp in word_pairs.items()], ignore_index=True)


def _pair_alignment_scores(lp: str, wp: list[PR.WordPair], encoded: Mapping[str, tuple], k: int, n: int,
                           runs: int, seed: int, layers: list[int]) -> pd.DataFrame:
    """One language pair of :func:`alignment_layer_scores` (its sides are released on return)."""
    src, tgt = IC.sides_of(encoded, lp, "words")
    ru, rv = IC.pair_rows(wp, src, tgt)
    key = {"pair": lp, "k": k, "n": n, "runs": runs, "seed": seed, "layers": list(layers),
           "vectors": [_words_digest(src, ru), _words_digest(tgt, rv), PR.pairs_digest(wp)]}
    return cached("gaschi2022.alignment_layer_scores", key,
                  lambda: pair_layer_scores({lp: wp}, {lp: (src, tgt)},
                                            lambda U, V: alignment_scores(U, V, k, with_xalign01=True),
                                            n, runs, seed, layers, "S_weak, S_strong"),
                  code=[IC.EncodedSide])


def sentence_layer_scores(encoded: Mapping[str, tuple], poolings: dict[str, str], k: int, n: int, runs: int,
                          seed: int, layers: list[int]) -> pd.DataFrame:
    """S_weak of sentence vectors per pair, pooling, layer and run (Table I), memoised per language pair.

    ``poolings``: label -> key of ``EncodedSide.sentences``. Tidy (pair, pooling,
    layer, run, value in [0, 1]); ``runs`` samples of ``n`` sentence pairs.
    """
    return pd.concat([_pair_sentence_scores(lp, encoded, poolings, k, n, runs, seed, layers) for lp in encoded],
                     ignore_index=True)


def _pair_sentence_scores(lp: str, encoded: Mapping[str, tuple], poolings: dict[str, str], k: int, n: int,
                          runs: int, seed: int, layers: list[int]) -> pd.DataFrame:
    """One language pair of :func:`sentence_layer_scores` (its sides are released on return)."""
    src, tgt = IC.sides_of(encoded, lp, "sentences")
    key = {"pair": lp, "k": k, "n": n, "runs": runs, "seed": seed, "layers": list(layers), "poolings": poolings,
           "vectors": [array_digest(*src.sentences.values()), array_digest(*tgt.sentences.values())]}

    def compute() -> pd.DataFrame:
        samples = LW.sample_runs(len(src.sentences["mean"]), n, runs, seed)
        return pd.concat([LW.layerwise_scores(src.sentences[pooling], tgt.sentences[pooling],
                                              lambda U, V: s_weak(U, V, k), samples, layers,
                                              desc=f"{lp} {label}").assign(pair=lp, pooling=label)
                          for label, pooling in poolings.items()], ignore_index=True)

    return cached("gaschi2022.sentence_layer_scores", key, compute, code=[IC.EncodedSide])


def words_vs_masked_scores(U: np.ndarray, V: np.ndarray, Um: np.ndarray, Vm: np.ndarray, k: int, n: int,
                           runs: int, seed: int, layers: list[int]) -> pd.DataFrame:
    """Fig. 8: S_weak of the words (U, V) and of the mask tokens in their place (Um, Vm), memoised.

    All four (n_pairs, L, dim); ``runs`` samples of ``n`` pairs, the same for
    both inputs. Tidy (layer, run, value in [0, 1], input "words" / "masked").
    """
    key = {"k": k, "n": n, "runs": runs, "seed": seed, "layers": list(layers),
           "vectors": array_digest(U, V, Um, Vm)}

    def compute() -> pd.DataFrame:
        samples = LW.sample_runs(len(U), n, runs, seed)
        return pd.concat([
            LW.layerwise_scores(U, V, lambda a, b: s_weak(a, b, k), samples, layers, "words").assign(input="words"),
            LW.layerwise_scores(Um, Vm, lambda a, b: s_weak(a, b, k), samples, layers, "masked").assign(
                input="masked")])

    return cached("gaschi2022.words_vs_masked_scores", key, compute)


def best_last_rows(runs_df: pd.DataFrame, model_label: str, group: list[str] = ("pair",),
                   keep_first: bool = False) -> pd.DataFrame:
    """Best and last layer per group, as long rows: model, layer ("best"/"last"), value, std, our layer (x 100)."""
    group = list(group)
    summary = LW.summarise(runs_df, group + ["layer"], scale=100)
    picked = LW.best_and_last(summary, group)
    if not keep_first:
        picked = picked[picked["which"] != "first"]
    out = picked.assign(model=model_label, **{"our layer": picked["layer"]})
    out["layer"] = out["which"]
    return out.rename(columns={"mean": "value"})[["model", "layer", *group, "value", "std", "our layer"]]


def static_pair_vectors(word_pairs: list[PR.WordPair], src: StaticVectors,
                        tgt: StaticVectors) -> tuple[list[PR.WordPair], np.ndarray, np.ndarray]:
    """Pairs whose two words both have a static vector, and their vectors as (n, 1, dim) arrays."""
    known = [p for p in word_pairs if p.src.text in src and p.tgt.text in tgt]
    U = src.lookup([p.src.text for p in known])[:, None]
    V = tgt.lookup([p.tgt.text for p in known])[:, None]
    return known, U, V


def static_sentence_vectors(tokens: list[list], vectors: StaticVectors) -> np.ndarray:
    """Mean static vector of each sentence's words; (n_sentences, 1, dim)."""
    return np.stack([vectors.sentence([t.text for t in toks]) for toks in tokens])[:, None]


def static_scores(word_pairs: list[PR.WordPair], src: StaticVectors, tgt: StaticVectors, score: Callable,
                  n: int, runs: int, seed: int) -> pd.DataFrame:
    """score on static vectors of the pairs (unknown words dropped); tidy (layer 0, run, value)."""
    known, U, V = static_pair_vectors(word_pairs, src, tgt)
    if len(known) < 2:
        raise ValueError(f"only {len(known)} pairs have static vectors for both words")
    return LW.layerwise_scores(U, V, score, distinct_samples(known, n, runs, seed), [0], desc="static")


def retrieval_errors(sample: list[PR.WordPair], U: np.ndarray, V: np.ndarray, k: int = 10) -> list[tuple]:
    """(pair, retrieved pair) for each pair whose CSLS nearest neighbour in V is not its translation.

    ``U``, ``V``: (n, dim) vectors of ``sample``'s source and target words.
    """
    nn, _ = csls_topk(U, V, k=k, topn=1)
    return [(p, sample[j]) for i, (p, j) in enumerate(zip(sample, nn[:, 0])) if j != i]


def static_baseline_rows(word_pairs: dict[str, list[PR.WordPair]], tokens: dict[str, tuple],
                         static: dict[str, StaticVectors], k: int, n_pairs: int, n_sentences: int,
                         runs: int, seed: int) -> dict[str, pd.DataFrame]:
    """The FastText rows of Tables I, III and IV (x 100, mean and std over runs) for every
    language pair whose two languages have static vectors."""
    from xalign.measures.retrieval import s_strong

    rows = {"table1": [], "table3": [], "table4": []}
    for lp, wp in word_pairs.items():
        s_lang, t_lang = lp.split("-")
        if s_lang not in static or t_lang not in static:
            continue
        for table, score in (("table3", s_weak), ("table4", s_strong)):
            vals = 100 * static_scores(wp, static[s_lang], static[t_lang], lambda a, b, score=score: score(a, b, k),
                                       n_pairs, runs, seed)["value"]
            rows[table].append({"model": "FastText", "layer": "-", "pair": lp,
                                "value": vals.mean(), "std": vals.std()})
        Us = static_sentence_vectors(tokens[lp][0], static[s_lang])
        Vs = static_sentence_vectors(tokens[lp][1], static[t_lang])
        vals = 100 * LW.layerwise_scores(Us, Vs, lambda a, b: s_weak(a, b, k),
                                         LW.sample_runs(len(Us), n_sentences, runs, seed), [0])["value"]
        rows["table1"].append({"model": "FastText", "pooling": "avg", "layer": "-", "pair": lp,
                               "value": vals.mean(), "std": vals.std()})
    return {t: pd.DataFrame(r) for t, r in rows.items()}
