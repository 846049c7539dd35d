"""Chapter 2's experiments (Liu et al. 2019), one ``run_*`` function each; the chapter only calls and shows.

:func:`run_chapter` runs them in the chapter's order and returns a :class:`Chapter2` with
every table and every figure's data; each ``run_*`` records its tables in the
:class:`~xalign.book.results.ChapterRun` it is given. Figures are drawn by
:mod:`.figures` (``curve_plot``, ``retrieval_plot``), prose by :mod:`.report`.

The first seed of ``seeds`` runs everything the chapter shows in full (the set, the grid at every
size, the baselines, the audit); :func:`run_seeds` reruns the draws with every further seed on the
same encoded pool and fits its maps at the ``seed_sizes``, and Table 3, Fig. 3's quoted points and
the closing claims are judged over all seeds (:mod:`.seeds`). The encoders, sets, spaces and
word-similarity items are built in :mod:`.inputs`; the set construction, the aligner and the context
draws live in :mod:`xalign.measures.btsr.pairdata` and :mod:`~xalign.measures.btsr.testset`. Only
:func:`run_chapter` reads the parameters object.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

from xalign.core.profiles import CommaList, as_list
from xalign.measures.btsr.pairdata import PairData
from xalign.papers.liu2020 import audit, itemclaims, report, senses
from xalign.papers.liu2020.grid import default_methods, evaluate_grid, training_sizes
from xalign.papers.liu2020.inputs import (  # noqa: F401 (the chapter's inputs, re-exported)
    WordSim,
    prepare_pairs,
    run_btsr_set,
    run_encoders,
    run_spaces,
    run_wordsim,
    spaces_table,
    variants_of,
)
from xalign.papers.liu2020.seeds import SeedRun, seed_columns, seed_summary, seeds_of


def methods_of(signals: CommaList) -> list[tuple[str, str]]:
    """(level, signal) of every alignment: the profile's signals at each level, plus the dictionary maps."""
    return default_methods(tuple(as_list(signals))) + [("avg_type", "dict"), ("iso_type", "dict")]


@dataclass
class Grid:
    """Every method at every training size (``grid``), each variant's largest size, and the unmapped
    space's scores (``original``: raw and centred rows)."""

    grid: pd.DataFrame
    largest: pd.Series
    original: pd.DataFrame


def grid_frame(spaces: dict, bcws: dict, scws: dict, variants: list[str], methods: list[tuple[str, str]],
               sizes: CommaList | list) -> pd.DataFrame:
    """Every (level, signal, technique) of ``methods`` fitted at every training size of ``sizes`` (the profile's
    ``sizes`` or ``seed_sizes``), scored on BTSR, sentence retrieval, BCWS and SCWS; fractions, a ``method``
    column per map."""
    sizes = [s if s == "all" else int(s) for s in as_list(sizes)]
    frames = []
    for v in variants:
        sizes_v = training_sizes(sizes, len(spaces[v].data.train))
        frames.append(evaluate_grid(spaces[v], sizes_v, methods, bcws=bcws.get(v), scws=scws[v]).assign(variant=v))
    grid = pd.concat(frames, ignore_index=True)
    grid["method"] = grid["level"] + " " + grid["signal"] + " " + grid["technique"]
    return grid


def run_grid(run, spaces: dict, ws: WordSim, variants: list[str], methods: list[tuple[str, str]],
             sizes: CommaList | list) -> Grid:
    """Fit every (level, signal, technique) at every training size and score BTSR, sentence retrieval,
    BCWS and SCWS with the first seed; recorded as ``grid`` and ``original_space``."""
    grid = grid_frame(spaces, ws.bcws, ws.scws, variants, methods, sizes)
    largest = report.largest_sizes(grid)
    original = report.original_table(spaces, ws.bcws, ws.scws, largest)
    run.record("grid", grid, title="All methods x training sizes (BTSR, sentence retrieval, BCWS, SCWS), first seed")
    run.record("original_space", original, title="Scores without any mapping (the multilingual space itself), "
                                                  "raw and normalised-and-centred, first seed")
    return Grid(grid, largest, original)


def run_seeds(run, encoders: dict, spaces: dict, ws: WordSim, g: Grid, base: pd.DataFrame, *,
              variants: list[str], methods: list[tuple[str, str]], seeds: list[int],
              pair_sets: Callable[[int], dict[str, PairData]], seed_sizes: CommaList | list, layers,
              max_contexts: int) -> dict[int, SeedRun]:
    """The first seed's run and every further seed's (``seeds``).

    Each further seed rebuilds the BTSR set, the splits, the avg_type sample and the BCWS / SCWS samples,
    reuses the encoded pool (no sentence is encoded again) and fits and scores every map at the
    ``seed_sizes`` (the profiles: every size, each figure point a seed mean; at least the smallest and the
    largest, for Fig. 3's quoted points, Table 3 and the claims); recorded as ``seeds_grid``.

    Returns:
        seed -> :class:`~xalign.papers.liu2020.seeds.SeedRun`, the first seed first.
    """
    runs = {seeds[0]: SeedRun(g.grid, g.original, base, g.largest, _hits(spaces, g.largest, methods))}
    for seed in seeds[1:]:
        sp = run_spaces(encoders, pair_sets(seed), variants, seed, layers=layers, max_contexts=max_contexts,
                        reuse=spaces)
        bcws, scws = ws.at(seed)
        grid = grid_frame(sp, bcws, scws, variants, methods, seed_sizes)
        largest = report.largest_sizes(grid)
        words = pd.concat([senses.word_baseline(sp[v], int(largest[v])).assign(variant=v) for v in sp],
                          ignore_index=True)
        runs[seed] = SeedRun(grid, report.original_table(sp, bcws, scws, largest), words, largest,
                             _hits(sp, largest, methods))
    every = pd.concat([r.grid.assign(seed=s) for s, r in runs.items()], ignore_index=True)
    run.record("seeds_grid", every, title="Every seed's maps (the first seed at every size, the others at the "
                                          "seed sizes): BTSR, sentence retrieval, BCWS, SCWS")
    return runs


def run_item_claims(run, runs: dict[int, SeedRun], variants: list[str]) -> pd.DataFrame:
    """The claims on two maps with their paired interval over the items (:mod:`.itemclaims`); ``btsr_claims``."""
    return run.record("btsr_claims", itemclaims.claims_table(runs, variants),
                      title="The claims on two maps: mean per-item difference of BTSR P@k over the seeds (points), "
                            "95% bootstrap interval over the items (each seed's items resampled), the seeds' range",
                      note="a finding only where the interval excludes zero and every seed has its sign")


def _hits(spaces: dict, largest: pd.Series, methods: list) -> dict:  # every map's P@k per item (largest size)
    return {v: senses.item_hits(spaces[v], int(largest[v]), methods) for v in spaces}


def table3_seed_rows(runs: dict[int, SeedRun]) -> pd.DataFrame:
    """Table 3's cells (parallel-text maps at each seed's largest size) for every seed: ``variant``, ``level``,
    ``signal``, ``technique``, ``measure`` (``P@5`` / ``P@1``), ``seed`` and ``value`` (%)."""
    frames = []
    for seed, r in runs.items():
        best, _ = report.table3_ours(r.grid, r.largest)
        for k in (5, 1):
            frames.append(best.assign(measure=f"P@{k}", seed=seed, value=100 * best[f"btsr_p{k}"])[
                ["variant", "level", "signal", "technique", "measure", "seed", "value"]])
    return pd.concat(frames, ignore_index=True)


def run_table3(run, g: Grid, runs: dict[int, SeedRun], pair_data: dict[str, PairData]
               ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Table 3: BTSR P@5 (%) at the largest training size, the mean over the seeds, beside the paper's;
    the seed summary of P@5 and P@1 recorded as ``table3_seeds`` (mean, SD, min, max, each seed).

    Returns:
        (the compared frame ``table3``, the first seed's grid rows at the largest size, the seed summary).
    """
    best, _ = report.table3_ours(g.grid, g.largest)
    keys = ["variant", "level", "signal", "technique"]
    summary = seed_summary(table3_seed_rows(runs), keys + ["measure"])
    ours3 = seed_columns(summary[summary.measure == "P@5"].drop(columns="measure"))
    cmp3 = run.compare("table3", ours3, keys,
                       title=f"Table 3: BTSR P@5 (%), largest training set, mean over {len(runs)} seeds",
                       note=f"multi->multi rows only (e5-small); rebuilt BTSR set, candidates "
                            f"{', '.join(f'en-{k}: {len(d.btsr.candidates)}' for k, d in pair_data.items())} "
                            f"(paper 200k, first seed); training sentence pairs "
                            f"{', '.join(f'{v}: {int(n)}' for v, n in g.largest.items())} (paper 200k, first seed)")
    run.record("table3_seeds", summary, title="Table 3 over the seeds: BTSR P@5 and P@1 (%), mean, sample SD, "
                                             "min, max and max - min, and each seed's value")
    return cmp3, best, summary


@dataclass
class Senses:
    """What BTSR can see of senses on this set (:mod:`.senses`): the word-form ceiling per variant
    (``word_form``) and every map at the largest size scored on all items and on the items with a
    same-form distractor, with its change over the centred unmapped space (``every_map``, %)."""

    word_form: pd.DataFrame
    every_map: pd.DataFrame
    scores: pd.DataFrame | None = None  # every map's raw scores, with the bootstrap interval over the items


def run_senses(run, spaces: dict, g: Grid, variants: list[str], methods: list[tuple[str, str]]) -> Senses:
    """The word-form ceiling (``btsr_word_form``) and every map's BTSR P@1 / P@5 on all items and on the
    items with a same-form distractor, each against the centred unmapped space (``btsr_every_map``).

    The maps are the grid's own fits at the largest training size (no map is chosen on the test items:
    all are reported)."""
    forms = pd.DataFrame([senses.word_form_table(spaces[v], v) for v in variants])
    frames = [senses.map_scores(spaces[v], int(g.largest[v]), methods).assign(variant=v) for v in variants]
    scores = pd.concat(frames, ignore_index=True)
    every = report.every_map_table(scores)
    run.record("btsr_word_form", forms, title="BTSR: what a retriever that knows only the word form scores",
               note="per item, min(1, k / b) with b the candidates sharing the gold's word form (ties at random)")
    run.record("btsr_every_map", every, title="BTSR P@1 / P@5 (%) of every map at the largest training size, on all "
                                              "items and on the items with a same-form distractor, and its change "
                                              "over the centred unmapped space (points)")
    return Senses(forms, every, scores)


def run_baselines(run, spaces: dict, g: Grid) -> pd.DataFrame:
    """The paper's BTSR baselines (word only, context only, both) and the unmapped space; ``baselines``."""
    base = report.baselines_table(spaces, g.largest, g.original)
    run.record("baselines", base, title="BTSR baselines (P@1, P@5)",
               note="BL(word): a word absent from the training text has no vector; it is a miss (query, gold) or "
                    "cannot be retrieved (candidate), and the covered items are scored on their own")
    run.not_run("baseline_fasttext", "BL(word) fastText baseline",
                "needs fastText vectors trained on Wikipedia for en/zh/es; none can be downloaded here")
    return base


def every_seed(runs: dict[int, SeedRun]) -> pd.DataFrame:
    """Every seed's grid rows in one frame, with a ``seed`` column (the figures' curves and bands); each seed's
    largest size (it moves by a few pairs with the seed) is placed at the first seed's, so it is one point."""
    first = runs[next(iter(runs))].largest
    return pd.concat([r.grid.assign(seed=s, n=np.where(r.grid.n == r.grid.variant.map(r.largest),
                                                       r.grid.variant.map(first), r.grid.n).astype(int))
                      for s, r in runs.items()], ignore_index=True)


def _series(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """A figure's series over the seeds: ``value`` (the mean), ``seed min`` / ``seed max`` (the band), ``n_seeds``."""
    summary = seed_summary(frame, keys)
    return summary.rename(columns={"mean": "value", "min": "seed min", "max": "seed max"})[
        [*keys, "value", "seed min", "seed max", "n_seeds"]]


def run_figures(run, g: Grid, ws: WordSim, runs: dict[int, SeedRun]) -> pd.DataFrame:
    """Record the series of Figs. 3, 1 and 2 (the mean over the seeds, with their min and max: the band) and
    compare Fig. 3's two quoted points (``fig3_points``: the mean over the seeds, with the seed SD, min and max).

    Returns:
        the compared ``fig3_points`` frame.
    """
    grid = every_seed(runs)
    band = f"mean over {len(runs)} seeds, band: their min-max"
    run.figure("Fig. 3", _series(grid.assign(value=100 * grid.btsr_p5), ["variant", "method", "n"]),
               title=f"Fig. 3: BTSR P@5 (%), {band}")
    pts = grid[(grid.method == "avg_type wa orig") & (grid.n == 100)]
    ours_f3 = seed_columns(seed_summary(pts.assign(value=100 * pts.btsr_p5), ["variant", "method", "n"]))
    f3 = run.compare("fig3_points", ours_f3, ["variant", "method", "n"],
                     title=f"Figure 3 (numbers given in the text): BTSR P@5 (%), 100 parallel sentences, mean over "
                           f"{len(runs)} seeds",
                     note="paper: 20k candidates, mBERT/BERT; ours: e5-small, rebuilt set")
    if ws.bcws:
        run.figure("Fig. 1", _series(grid.assign(value=100 * grid.bcws).dropna(subset=["value"]),
                                     ["variant", "method", "n"]), title=f"Fig. 1: BCWS rho (x100), {band}")
    else:
        run.not_run("Fig. 1", "Figure 1: BCWS", "no EN-ZH variant in this run")
    sr = report.retrieval_series(grid)
    run.figure("Fig. 2", _series(sr.assign(value=100 * sr.sr), ["variant", "level", "signal", "technique", "n"]),
               title=f"Fig. 2: P@5 (%), {band}")
    return f3


def run_table4(run, g: Grid, ws: WordSim, runs: dict[int, SeedRun]) -> pd.DataFrame:
    """Table 4: SCWS (x100) of the English side, unaligned and after the MIM maps, the mean over the seeds
    with the seed SD, min and max (each seed samples its own SCWS pairs and fits its own maps); ``table4``."""
    frames = [report.table4_ours(r.grid, r.original, r.largest).assign(seed=s) for s, r in runs.items()]
    ours4 = seed_columns(seed_summary(pd.concat(frames, ignore_index=True), ["variant", "setting"]))
    return run.compare("table4", ours4, ["variant", "setting"],
                       title=f"Table 4: SCWS Spearman rho (x100), mean over {len(runs)} seeds",
                       note=f"{len(ws.scws_data)} of {ws.n_scws} SCWS pairs per seed; e5-small multi rows only; "
                            f"alignments from {', '.join(f'{v}: {int(n)}' for v, n in g.largest.items())} sentence "
                            f"pairs (first seed; paper 200k)")


def run_checks(run, spaces: dict, g: Grid, variants: list[str], *, max_contexts: int,
               seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The audit's before/after of each change (``before_after``) and the known-answer checks on the
    run's own vectors (``known_answers``); raises if a check fails.

    Returns:
        (before/after, known answers).
    """
    ba = pd.concat([audit.before_after(spaces[v], int(g.largest[v]), max_contexts=max_contexts,
                                        seed=seed)
                    .assign(variant=v) for v in variants], ignore_index=True)
    run.record("before_after", ba, title="Audit: each change's effect, before vs after, computed in this run")
    checks = pd.concat([audit.known_answers(spaces[v]).assign(variant=v) for v in variants], ignore_index=True)
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
    table3_seeds: pd.DataFrame
    seed_runs: dict
    senses: Senses
    baselines: pd.DataFrame
    fig3_points: pd.DataFrame
    table4: pd.DataFrame
    before_after: pd.DataFrame
    checks: pd.DataFrame
    item_claims: pd.DataFrame | None = None

    def bcws_variants(self) -> list[str]:
        """The variants BCWS scores (EN-ZH); the first variant if none, so Figure 1 still has a panel."""
        return [v for v in self.variants if v in self.wordsim.bcws] or self.variants[:1]


def run_chapter(P, run) -> Chapter2:
    """Run every experiment of chapter 2 in the chapter's order, recording each table in ``run``.

    Args:
        P: the chapter's parameters (:func:`xalign.papers.meta.parameters`); only this function reads them.
        run: the :class:`~xalign.book.results.ChapterRun` the tables are recorded in.

    Returns:
        a :class:`Chapter2` with every table and every figure's data.
    """
    variants, methods, seeds = variants_of(P.variants), methods_of(P.signals), seeds_of(P.seeds)
    pair_sets = partial(prepare_pairs, variants, sources=P.sources, max_per_source=P.max_per_source, top=P.top,
                        n_test=P.n_test, n_candidates=P.n_candidates, query=P.query, n_retrieval=P.n_retrieval,
                        aligner=P.aligner)  # seed -> the BTSR sets
    encoders, enc_table = run_encoders(run, variants, multi_model=P.multi_model, mono_en_model=P.mono_en_model,
                                       mono_zh_model=P.mono_zh_model, autocast=P.autocast, layers=P.layers)
    pair_data, stats = run_btsr_set(run, pair_sets, seeds[0])
    spaces = run_spaces(encoders, pair_data, variants, seeds[0], layers=P.layers, max_contexts=P.max_contexts)
    ws = run_wordsim(encoders, variants, seeds, bcws_pairs=P.bcws_pairs, scws_pairs=P.scws_pairs, layers=P.layers)
    g = run_grid(run, spaces, ws, variants, methods, P.sizes)
    sen = run_senses(run, spaces, g, variants, methods)
    base = run_baselines(run, spaces, g)
    runs = run_seeds(run, encoders, spaces, ws, g, base, variants=variants, methods=methods, seeds=seeds,
                     pair_sets=pair_sets, seed_sizes=P.seed_sizes, layers=P.layers, max_contexts=P.max_contexts)
    t3, best, t3_seeds = run_table3(run, g, runs, pair_data)
    f3 = run_figures(run, g, ws, runs)
    t4 = run_table4(run, g, ws, runs)
    ba, checks = run_checks(run, spaces, g, variants, max_contexts=P.max_contexts, seed=seeds[0])
    return Chapter2(variants, encoders, enc_table, pair_data, stats, spaces, ws, g, t3, best, t3_seeds, runs,
                    sen, base, f3, t4, ba, checks, run_item_claims(run, runs, variants))
