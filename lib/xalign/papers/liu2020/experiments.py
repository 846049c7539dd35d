"""Chapter 2's experiments (Liu et al. 2020), one ``run_*`` function each; the chapter only calls and shows.

:func:`run_chapter` runs them in the chapter's order and returns a :class:`Chapter2` with
every table and every figure's data; each ``run_*`` records its tables in the
:class:`~xalign.book.results.ChapterRun` it is given. Figures are drawn by
:mod:`.report` (``curve_plot``, ``retrieval_plot``), prose by :mod:`.report` too.

The calls, their order, seeds and memo keys are those the chapter made when it held
these loops itself (the set construction, the aligner and the context draws live in
:mod:`.pairdata` and :mod:`.btsr` and are called unchanged), so the numbers are the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

import pandas as pd

from xalign.core.profiles import as_list
from xalign.data import corpora, datasets, wordsim
from xalign.papers.liu2020 import audit, report, senses
from xalign.papers.liu2020.evaluate import build_spaces, training_sizes
from xalign.papers.liu2020.grid import (
    context_pair_vectors,
    default_methods,
    evaluate_grid,
    load_variant_encoders,
    parse_variant,
)
from xalign.papers.liu2020.pairdata import PairData, prepare_pair
from xalign.papers.liu2020.spaces import resolve_layers


def variants_of(P: SimpleNamespace) -> list[str]:
    """The model pairs the run aligns (``variants``), e.g. ``["multi_en->multi_zh"]``."""
    out = as_list(P.variants)
    if not out:
        raise ValueError("liu2020: `variants` names no model pair (e.g. multi_en->multi_zh)")
    return out


def methods_of(P: SimpleNamespace) -> list[tuple[str, str]]:
    """(level, signal) of every alignment: the profile's signals at each level, plus the dictionary maps."""
    return default_methods(tuple(as_list(P.signals))) + [("avg_type", "dict"), ("iso_type", "dict")]


def run_encoders(run, P: SimpleNamespace) -> tuple[dict, pd.DataFrame]:
    """Load each side's encoder; record the first variant's source encoder in ``run``.

    Returns:
        (``{model key: encoder}``, a table of the encoders: name, revision, layers, dim, averaged layers).
    """
    variants = variants_of(P)
    models = {"multi": P.multi_model, "mono_en": P.mono_en_model, "mono_zh": P.mono_zh_model}
    encoders = load_variant_encoders(variants, models, autocast=P.autocast)
    run.use_encoder(encoders[parse_variant(variants[0])[0]])
    run.notes.append("encoders: " + ", ".join(f"{k}={e.name} ({e.revision})" for k, e in encoders.items()))
    table = pd.DataFrame([{"model key": k, "model": e.name, "revision": e.revision, "layers": e.n_layers,
                           "dim": e.dim, "averaged layers": str(resolve_layers(e, P.layers))}
                          for k, e in encoders.items()])
    return encoders, table


def run_btsr_set(run, P: SimpleNamespace) -> tuple[dict[str, PairData], pd.DataFrame]:
    """Pool each language pair's parallel text and build its BTSR set (:func:`.pairdata.prepare_pair`).

    Returns:
        (``{target language: PairData}``, the set's sizes, one row per pair; recorded as ``btsr_set``).
    """
    langs = list(dict.fromkeys(parse_variant(v)[3] for v in variants_of(P)))
    pair_data = {}
    for lang in langs:
        corpus = corpora.load_parallel("en", lang, as_list(P.sources), P.max_per_source)
        pair_data[lang] = prepare_pair(corpus, seed=P.seed, top=P.top, n_test=P.n_test,
                                       n_candidates=P.n_candidates, query=P.query, n_retrieval=P.n_retrieval,
                                       aligner=P.aligner)
    stats = report.btsr_stats_table(pair_data)
    run.record("btsr_set", stats, title="Rebuilt BTSR set: sizes",
               note="BTSR-style set rebuilt with the paper's recipe from WordNet/OMW and XNLI/Tatoeba(/WMT21); "
                    "not the paper's human-checked test set")
    return pair_data, stats


def run_spaces(P: SimpleNamespace, encoders: dict, pair_data: dict[str, PairData]) -> dict:
    """Encode every sentence of each pool once and build the token, avg_type and iso_type spaces per variant."""
    spaces = {}
    for v in variants_of(P):
        ks, _, kt, lang = parse_variant(v)
        spaces[v] = build_spaces(encoders[ks], encoders[kt], pair_data[lang], P.layers, P.max_contexts, seed=P.seed)
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
    """BCWS and SCWS items (``bcws_data``, ``scws_data``, with ``n_bcws`` / ``n_scws`` in the files) and
    their word vectors per variant (``bcws`` only for EN-ZH variants)."""

    bcws_data: object
    scws_data: object
    n_bcws: int
    n_scws: int
    bcws: dict
    scws: dict


def run_wordsim(P: SimpleNamespace, encoders: dict) -> WordSim:
    """Sample BCWS and SCWS (``bcws_pairs`` / ``scws_pairs``) and encode both words of every item."""
    bcws_all = wordsim.read_bcws(datasets.fetch("bcws", "bcws.txt"))
    scws_all = wordsim.read_scws(datasets.fetch("scws", "scws.txt"))
    bcws_data = wordsim.sample(bcws_all, P.bcws_pairs, P.seed)
    scws_data = wordsim.sample(scws_all, P.scws_pairs, P.seed)
    bcws, scws = {}, {}
    for v in variants_of(P):
        ks, _, kt, lang = parse_variant(v)
        if lang == "zh":
            bcws[v] = context_pair_vectors(encoders[ks], encoders[kt], bcws_data, P.layers, b_side="tgt")
        scws[v] = context_pair_vectors(encoders[ks], encoders[ks], scws_data, P.layers, b_side="src")
    return WordSim(bcws_data, scws_data, len(bcws_all), len(scws_all), bcws, scws)


@dataclass
class Grid:
    """Every method at every training size (``grid``), each variant's largest size, and the unmapped
    space's scores (``original``: raw and centred rows)."""

    grid: pd.DataFrame
    largest: pd.Series
    original: pd.DataFrame


def run_grid(run, P: SimpleNamespace, spaces: dict, ws: WordSim) -> Grid:
    """Fit every (level, signal, technique) at every training size and score BTSR, sentence retrieval,
    BCWS and SCWS; recorded as ``grid`` and ``original_space``."""
    sizes = [s if s == "all" else int(s) for s in as_list(P.sizes)]
    methods = methods_of(P)
    frames = []
    for v in variants_of(P):
        sizes_v = training_sizes(sizes, len(spaces[v].data.train))
        frames.append(evaluate_grid(spaces[v], sizes_v, methods, bcws=ws.bcws.get(v), scws=ws.scws[v]).assign(variant=v))
    grid = pd.concat(frames, ignore_index=True)
    grid["method"] = grid["level"] + " " + grid["signal"] + " " + grid["technique"]
    largest = report.largest_sizes(grid)
    original = report.original_table(spaces, ws.bcws, ws.scws, largest)
    run.record("grid", grid, title="All methods x training sizes (BTSR, sentence retrieval, BCWS, SCWS)")
    run.record("original_space", original, title="Scores without any mapping (the multilingual space itself), "
                                                  "raw and normalised-and-centred")
    return Grid(grid, largest, original)


def run_table3(run, g: Grid, pair_data: dict[str, PairData]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Table 3: BTSR P@5 (%) at the largest training size beside the paper's.

    Returns:
        (the compared frame ``table3``, the rows of the grid at the largest size).
    """
    best, ours3 = report.table3_ours(g.grid, g.largest)
    cmp3 = run.compare("table3", ours3, ["variant", "level", "signal", "technique"],
                       title="Table 3: BTSR P@5 (%), largest training set",
                       note=f"multi->multi rows only (e5-small); rebuilt BTSR set, candidates "
                            f"{', '.join(f'en-{k}: {len(d.btsr.candidates)}' for k, d in pair_data.items())} "
                            f"(paper 200k); training sentence pairs "
                            f"{', '.join(f'{v}: {int(n)}' for v, n in g.largest.items())} (paper 200k)")
    return cmp3, best


@dataclass
class Senses:
    """What BTSR can see of senses on this set (:mod:`.senses`): the word-form ceiling per variant
    (``word_form``) and every map at the largest size scored on all items and on the items with a
    same-form distractor, with its change over the centred unmapped space (``every_map``, %)."""

    word_form: pd.DataFrame
    every_map: pd.DataFrame


def run_senses(run, P: SimpleNamespace, spaces: dict, g: Grid) -> Senses:
    """The word-form ceiling (``btsr_word_form``) and every map's BTSR P@1 / P@5 on all items and on the
    items with a same-form distractor, each against the centred unmapped space (``btsr_every_map``).

    The maps are the grid's own fits at the largest training size (no map is chosen on the test items:
    all are reported)."""
    forms = pd.DataFrame([senses.word_form_table(spaces[v], v) for v in variants_of(P)])
    frames = [senses.map_scores(spaces[v], int(g.largest[v]), methods_of(P)).assign(variant=v)
              for v in variants_of(P)]
    every = report.every_map_table(pd.concat(frames, ignore_index=True))
    run.record("btsr_word_form", forms, title="BTSR: what a retriever that knows only the word form scores",
               note="per item, min(1, k / b) with b the candidates sharing the gold's word form (ties at random)")
    run.record("btsr_every_map", every, title="BTSR P@1 / P@5 (%) of every map at the largest training size, on all "
                                              "items and on the items with a same-form distractor, and its change "
                                              "over the centred unmapped space (points)")
    return Senses(forms, every)


def run_baselines(run, spaces: dict, g: Grid) -> pd.DataFrame:
    """The paper's BTSR baselines (word only, context only, both) and the unmapped space; ``baselines``."""
    base = report.baselines_table(spaces, g.largest, g.original)
    run.record("baselines", base, title="BTSR baselines (P@1, P@5)",
               note="BL(word): a word absent from the training text has no vector; it is a miss (query, gold) or "
                    "cannot be retrieved (candidate), and the covered items are scored on their own")
    run.not_run("baseline_fasttext", "BL(word) fastText baseline",
                "needs fastText vectors trained on Wikipedia for en/zh/es; none can be downloaded here")
    return base


def run_figures(run, g: Grid, ws: WordSim) -> pd.DataFrame:
    """Record the series of Figs. 3, 1 and 2 and compare Fig. 3's two quoted points (``fig3_points``).

    Returns:
        the compared ``fig3_points`` frame.
    """
    grid = g.grid
    run.figure("Fig. 3", grid.assign(value=100 * grid.btsr_p5)[["variant", "method", "n", "value"]],
               title="Fig. 3: BTSR P@5 (%)")
    pts = grid[(grid.method == "avg_type wa orig") & (grid.n == 100)]
    ours_f3 = pts.assign(value=100 * pts.btsr_p5, n=100)[["variant", "method", "n", "value"]]
    f3 = run.compare("fig3_points", ours_f3, ["variant", "method", "n"],
                     title="Figure 3 (numbers given in the text): BTSR P@5 (%), 100 parallel sentences",
                     note="paper: 20k candidates, mBERT/BERT; ours: e5-small, rebuilt set")
    if ws.bcws:
        run.figure("Fig. 1", grid.assign(value=100 * grid.bcws)[["variant", "method", "n", "value"]],
                   title="Fig. 1: BCWS rho (x100)")
    else:
        run.not_run("Fig. 1", "Figure 1: BCWS", "no EN-ZH variant in this run")
    sr = report.retrieval_series(grid)
    run.figure("Fig. 2", sr.assign(value=100 * sr.sr)[["variant", "level", "signal", "technique", "n", "value"]],
               title="Fig. 2: P@5 (%)")
    return f3


def run_table4(run, g: Grid, ws: WordSim) -> pd.DataFrame:
    """Table 4: SCWS (x100) of the English side, unaligned and after the MIM maps; ``table4``."""
    ours4 = report.table4_ours(g.grid, g.original, g.largest)
    return run.compare("table4", ours4, ["variant", "setting"], title="Table 4: SCWS Spearman rho (x100)",
                       note=f"{len(ws.scws_data)} of {ws.n_scws} SCWS pairs; e5-small multi rows only; alignments "
                            f"from {', '.join(f'{v}: {int(n)}' for v, n in g.largest.items())} sentence pairs "
                            f"(paper 200k)")


def run_checks(run, P: SimpleNamespace, spaces: dict, g: Grid) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The audit's before/after of each change (``before_after``) and the known-answer checks on the
    run's own vectors (``known_answers``); raises if a check fails.

    Returns:
        (before/after, known answers).
    """
    ba = pd.concat([audit.before_after(spaces[v], int(g.largest[v]), max_contexts=P.max_contexts, seed=P.seed)
                    .assign(variant=v) for v in variants_of(P)], ignore_index=True)
    run.record("before_after", ba, title="Audit: each change's effect, before vs after, computed in this run")
    checks = pd.concat([audit.known_answers(spaces[v]).assign(variant=v) for v in variants_of(P)], ignore_index=True)
    run.record("known_answers", checks, title="Known-answer checks on the run's vectors")
    if not checks.ok.all():
        bad = checks[~checks.ok]
        raise AssertionError("liu2020: known-answer checks failed: " + "; ".join(
            f"{r.variant} {r.check}: got {r.got}, expected {r.expected}" for r in bad.itertuples()))
    return ba, checks


@dataclass
class Chapter2:
    """Everything chapter 2 shows (see each ``run_*`` for the parts)."""

    variants: list[str]
    encoders: dict
    encoder_table: pd.DataFrame
    pair_data: dict[str, PairData]
    btsr_stats: pd.DataFrame
    spaces: dict
    wordsim: WordSim
    grid: Grid
    table3: pd.DataFrame
    best: pd.DataFrame
    senses: Senses
    baselines: pd.DataFrame
    fig3_points: pd.DataFrame
    table4: pd.DataFrame
    before_after: pd.DataFrame
    checks: pd.DataFrame

    def bcws_variants(self) -> list[str]:
        """The variants BCWS scores (EN-ZH); the first variant if none, so Figure 1 still has a panel."""
        return [v for v in self.variants if v in self.wordsim.bcws] or self.variants[:1]


def run_chapter(P: SimpleNamespace, run) -> Chapter2:
    """Run every experiment of chapter 2 in the chapter's order, recording each table in ``run``.

    Args:
        P: the chapter's parameters (:func:`xalign.papers.meta.parameters`).
        run: the :class:`~xalign.book.results.ChapterRun` the tables are recorded in.

    Returns:
        a :class:`Chapter2` with every table and every figure's data.
    """
    encoders, enc_table = run_encoders(run, P)
    pair_data, stats = run_btsr_set(run, P)
    spaces = run_spaces(P, encoders, pair_data)
    ws = run_wordsim(P, encoders)
    g = run_grid(run, P, spaces, ws)
    t3, best = run_table3(run, g, pair_data)
    sen = run_senses(run, P, spaces, g)
    base = run_baselines(run, spaces, g)
    f3 = run_figures(run, g, ws)
    t4 = run_table4(run, g, ws)
    ba, checks = run_checks(run, P, spaces, g)
    return Chapter2(variants_of(P), encoders, enc_table, pair_data, stats, spaces, ws, g, t3, best, sen, base, f3, t4,
                    ba, checks)
