"""Chapter 2's inputs (Liu et al. 2019): the encoders, each seed's BTSR sets, the encoded spaces and the
word-similarity items.

:func:`run_encoders` loads each variant's encoders, :func:`prepare_pairs` builds a seed's BTSR set per
language pair (:mod:`.pairdata`), :func:`run_spaces` encodes the pools into the token, avg_type and
iso_type spaces and :func:`run_wordsim` samples and encodes BCWS and SCWS for every seed. The experiments
that use them are in :mod:`.experiments`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from xalign.core.draws import sample_rows
from xalign.core.profiles import CommaList, as_list
from xalign.data import corpora, datasets, wordsim
from xalign.measures.btsr.evaluate import build_spaces
from xalign.measures.btsr.pairdata import PairData, prepare_pair
from xalign.measures.btsr.spaces import resolve_layers
from xalign.papers.liu2020 import report
from xalign.papers.liu2020.grid import context_pair_vectors, load_variant_encoders, parse_variant


def variants_of(variants: CommaList) -> list[str]:
    """The model pairs the run aligns (``variants``), e.g. ``["multi_en->multi_zh"]``."""
    out = as_list(variants)
    if not out:
        raise ValueError("liu2020: `variants` names no model pair (e.g. multi_en->multi_zh)")
    return out


def run_encoders(run, variants: list[str], *, multi_model: str, mono_en_model: str, mono_zh_model: str,
                 autocast: str | None, layers) -> tuple[dict, pd.DataFrame]:
    """Load each side's encoder; record the first variant's source encoder in ``run``.

    Returns:
        (``{model key: encoder}``, a table of the encoders: name, revision, layers, dim, averaged layers).
    """
    models = {"multi": multi_model, "mono_en": mono_en_model, "mono_zh": mono_zh_model}
    encoders = load_variant_encoders(variants, models, autocast=autocast)
    run.use_encoder(encoders[parse_variant(variants[0])[0]])
    run.notes.append("encoders: " + ", ".join(f"{k}={e.name} ({e.revision})" for k, e in encoders.items()))
    table = pd.DataFrame([{"model key": k, "model": e.name, "revision": e.revision, "layers": e.n_layers,
                           "dim": e.dim, "averaged layers": str(resolve_layers(e, layers))}
                          for k, e in encoders.items()])
    return encoders, table


def prepare_pairs(variants: list[str], seed: int, *, sources: CommaList, max_per_source: int | None, top: int,
                  n_test: int | None, n_candidates: int, query: str, n_retrieval: int,
                  aligner: str) -> dict[str, PairData]:
    """Pool each language pair's parallel text and build its BTSR set with ``seed`` (:func:`.pairdata.prepare_pair`;
    the links do not depend on the seed, the sets are cached per seed). Returns ``{target language: PairData}``."""
    langs = list(dict.fromkeys(parse_variant(v)[3] for v in variants))
    out = {}
    for lang in langs:
        corpus = corpora.load_parallel("en", lang, as_list(sources), max_per_source)
        out[lang] = prepare_pair(corpus, seed=seed, top=top, n_test=n_test, n_candidates=n_candidates,
                                 query=query, n_retrieval=n_retrieval, aligner=aligner)
    return out


def run_btsr_set(run, pair_sets: Callable[[int], dict[str, PairData]],
                 seed: int) -> tuple[dict[str, PairData], pd.DataFrame]:
    """The first seed's BTSR set of each language pair (``pair_sets(seed)``: :func:`prepare_pairs`), the one the
    chapter shows.

    Returns:
        (``{target language: PairData}``, the set's sizes, one row per pair; recorded as ``btsr_set``).
    """
    pair_data = pair_sets(seed)
    stats = report.btsr_stats_table(pair_data)
    run.record("btsr_set", stats, title="Rebuilt BTSR set: sizes",
               note="BTSR-style set rebuilt with the paper's recipe from WordNet/OMW and XNLI/Tatoeba(/WMT21); "
                    "not the paper's human-checked test set")
    return pair_data, stats


def run_spaces(encoders: dict, pair_data: dict[str, PairData], variants: list[str], seed: int, *, layers,
               max_contexts: int, reuse: dict | None = None) -> dict:
    """Build the token, avg_type and iso_type spaces per variant for ``seed``.

    Every sentence of each pool is encoded once; ``reuse`` (variant -> another seed's spaces) passes those
    vectors on, so a further seed only redraws its avg_type sample and picks its iso_type words."""
    spaces = {}
    for v in variants:
        ks, _, kt, lang = parse_variant(v)
        spaces[v] = build_spaces(encoders[ks], encoders[kt], pair_data[lang], layers, max_contexts, seed=seed,
                                 reuse=(reuse or {}).get(v))
    return spaces


def spaces_table(spaces: dict) -> pd.DataFrame:
    """How many words each variant's spaces hold (encoded, avg_type, iso_type), one row per variant."""
    return pd.DataFrame([{"variant": v, "encoded words (en)": len(s.src.vectors),
                          "encoded words (target)": len(s.tgt.vectors),
                          "avg_type words (en / target)": f"{len(s.avg_src.words)} / {len(s.avg_tgt.words)}",
                          "iso_type words (en / target)": f"{len(s.iso_src.words)} / {len(s.iso_tgt.words)}"}
                         for v, s in spaces.items()])


@dataclass
class WordSim:
    """BCWS and SCWS items of the first seed (``bcws_data``, ``scws_data``, with ``n_bcws`` / ``n_scws`` in the
    files) and their word vectors per variant (``bcws`` only for EN-ZH variants); ``rows``: seed -> the rows of
    each file the seed samples, and ``union_bcws`` / ``union_scws``: per variant, the vectors of every row any
    seed samples (encoded once), in ``union_rows`` order."""

    bcws_data: object
    scws_data: object
    n_bcws: int
    n_scws: int
    bcws: dict
    scws: dict
    rows: dict = field(default_factory=dict)
    union_rows: tuple = ((), ())
    union_bcws: dict = field(default_factory=dict)
    union_scws: dict = field(default_factory=dict)

    def at(self, seed: int) -> tuple[dict, dict]:
        """(BCWS vectors, SCWS vectors) per variant for ``seed``'s samples, sliced from the union."""
        (ub, us), (rb, rs) = self.union_rows, self.rows[seed]
        pos_b, pos_s = {r: i for i, r in enumerate(ub)}, {r: i for i, r in enumerate(us)}
        return ({v: c.rows([pos_b[r] for r in rb]) for v, c in self.union_bcws.items()},
                {v: c.rows([pos_s[r] for r in rs]) for v, c in self.union_scws.items()})


def run_wordsim(encoders: dict, variants: list[str], seeds: list[int], *, bcws_pairs: int | None,
                scws_pairs: int | None, layers) -> WordSim:
    """Sample BCWS and SCWS (``bcws_pairs`` / ``scws_pairs``) for every seed and encode both words of every item
    any seed samples, once (the union of the samples); the first seed's samples are the ones shown."""
    bcws_all = wordsim.read_bcws(datasets.fetch("bcws", "bcws.txt"))
    scws_all = wordsim.read_scws(datasets.fetch("scws", "scws.txt"))
    rows = {s: (sample_rows(len(bcws_all), bcws_pairs, s), sample_rows(len(scws_all), scws_pairs, s))
            for s in seeds}
    ub = np.unique(np.concatenate([r[0] for r in rows.values()]))
    us = np.unique(np.concatenate([r[1] for r in rows.values()]))
    bcws_u, scws_u = wordsim.subset(bcws_all, ub), wordsim.subset(scws_all, us)
    union_b, union_s = {}, {}
    for v in variants:
        ks, _, kt, lang = parse_variant(v)
        if lang == "zh":
            union_b[v] = context_pair_vectors(encoders[ks], encoders[kt], bcws_u, layers, b_side="tgt")
        union_s[v] = context_pair_vectors(encoders[ks], encoders[ks], scws_u, layers, b_side="src")
    ws = WordSim(wordsim.subset(bcws_all, rows[seeds[0]][0]), wordsim.subset(scws_all, rows[seeds[0]][1]),
                 len(bcws_all), len(scws_all), {}, {}, rows, (ub.tolist(), us.tolist()), union_b, union_s)
    ws.bcws, ws.scws = ws.at(seeds[0])
    return ws
