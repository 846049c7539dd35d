"""Chapter 2's experiments (Liu et al. 2019), one ``run_*`` function each; the chapter only calls and shows.

:func:`run_chapter` runs them in the chapter's order and returns a :class:`Chapter2` with
every table and every figure's data; each ``run_*`` records its tables in the
:class:`~xalign.book.results.ChapterRun` it is given. Figures are drawn by
:mod:`.figures` (``curve_plot``, ``retrieval_plot``), prose by :mod:`.report`.

The first seed of ``seeds`` runs everything the chapter shows in full (the set, the grid at every
size, the baselines, the audit); :func:`run_seeds` reruns the draws with every further seed on the
same encoded pool and fits its maps at the ``seed_sizes``, and Table 3, Fig. 3's quoted points and
the closing claims are judged over all seeds (:mod:`.seeds`). The set construction, the aligner and
the context draws live in :mod:`xalign.measures.btsr.pairdata` and :mod:`~xalign.measures.btsr.testset`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

import numpy as np
import pandas as pd

from xalign.core.draws import sample_rows
from xalign.core.profiles import as_list
from xalign.data import corpora, datasets, wordsim
from xalign.measures.btsr.evaluate import build_spaces
from xalign.measures.btsr.pairdata import PairData, prepare_pair
from xalign.measures.btsr.spaces import resolve_layers
from xalign.papers.liu2020 import audit, itemclaims, report, senses
from xalign.papers.liu2020.grid import (
    context_pair_vectors,
    default_methods,
    evaluate_grid,
    load_variant_encoders,
    parse_variant,
    training_sizes,
)
from xalign.papers.liu2020.seeds import SeedRun, seed_columns, seed_summary, seeds_of


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


def prepare_pairs(P: SimpleNamespace, seed: int) -> dict[str, PairData]:
    """Pool each language pair's parallel text and build its BTSR set with ``seed`` (:func:`.pairdata.prepare_pair`;
    the links do not depend on the seed, the sets are cached per seed). Returns ``{target language: PairData}``."""
    langs = list(dict.fromkeys(parse_variant(v)[3] for v in variants_of(P)))
    out = {}
    for lang in langs:
        corpus = corpora.load_parallel("en", lang, as_list(P.sources), P.max_per_source)
        out[lang] = prepare_pair(corpus, seed=seed, top=P.top, n_test=P.n_test, n_candidates=P.n_candidates,
                                 query=P.query, n_retrieval=P.n_retrieval, aligner=P.aligner)
    return out


def run_btsr_set(run, P: SimpleNamespace) -> tuple[dict[str, PairData], pd.DataFrame]:
    """The first seed's BTSR set of each language pair (:func:`prepare_pairs`), the one the chapter shows.

    Returns:
        (``{target language: PairData}``, the set's sizes, one row per pair; recorded as ``btsr_set``).
    """
    pair_data = prepare_pairs(P, seeds_of(P)[0])
    stats = report.btsr_stats_table(pair_data)
    run.record("btsr_set", stats, title="Rebuilt BTSR set: sizes",
               note="BTSR-style set rebuilt with the paper's recipe from WordNet/OMW and XNLI/Tatoeba(/WMT21); "
                    "not the paper's human-checked test set")
    return pair_data, stats


def run_spaces(P: SimpleNamespace, encoders: dict, pair_data: dict[str, PairData], seed: int | None = None,
               reuse: dict | None = None) -> dict:
    """Build the token, avg_type and iso_type spaces per variant for ``seed`` (default: the first seed).

    Every sentence of each pool is encoded once; ``reuse`` (variant -> another seed's spaces) passes those
    vectors on, so a further seed only redraws its avg_type sample and picks its iso_type words."""
    seed = seeds_of(P)[0] if seed is None else seed
    spaces = {}
    for v in variants_of(P):
        ks, _, kt, lang = parse_variant(v)
        spaces[v] = build_spaces(encoders[ks], encoders[kt], pair_data[lang], P.layers, P.max_contexts, seed=seed,
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


def run_wordsim(P: SimpleNamespace, encoders: dict) -> WordSim:
    """Sample BCWS and SCWS (``bcws_pairs`` / ``scws_pairs``) for every seed and encode both words of every item
    any seed samples, once (the union of the samples); the first seed's samples are the ones shown."""
    bcws_all = wordsim.read_bcws(datasets.fetch("bcws", "bcws.txt"))
    scws_all = wordsim.read_scws(datasets.fetch("scws", "scws.txt"))
    seeds = seeds_of(P)
    rows = {s: (sample_rows(len(bcws_all), P.bcws_pairs, s), sample_rows(len(scws_all), P.scws_pairs, s))
            for s in seeds}
    ub = np.unique(np.concatenate([r[0] for r in rows.values()]))
    us = np.unique(np.concatenate([r[1] for r in rows.values()]))
    bcws_u, scws_u = wordsim.subset(bcws_all, ub), wordsim.subset(scws_all, us)
    union_b, union_s = {}, {}
    for v in variants_of(P):
        ks, _, kt, lang = parse_variant(v)
        if lang == "zh":
            union_b[v] = context_pair_vectors(encoders[ks], encoders[kt], bcws_u, P.layers, b_side="tgt")
        union_s[v] = context_pair_vectors(encoders[ks], encoders[ks], scws_u, P.layers, b_side="src")
    ws = WordSim(wordsim.subset(bcws_all, rows[seeds[0]][0]), wordsim.subset(scws_all, rows[seeds[0]][1]),
                 len(bcws_all), len(scws_all), {}, {}, rows, (ub.tolist(), us.tolist()), union_b, union_s)
    ws.bcws, ws.scws = ws.at(seeds[0])
    return ws


@dataclass
class Grid:
    """Every method at every training size (``grid``), each variant's largest size, and the unmapped
    space's scores (``original``: raw and centred rows)."""

    grid: pd.DataFrame
    largest: pd.Series
    original: pd.DataFrame


def grid_frame(P: SimpleNamespace, spaces: dict, bcws: dict, scws: dict, sizes=None) -> pd.DataFrame:
    """Every (level, signal, technique) fitted at every training size of ``sizes`` (default: the profile's
    ``sizes``), scored on BTSR, sentence retrieval, BCWS and SCWS; fractions, a ``method`` column per map."""
    sizes = [s if s == "all" else int(s) for s in as_list(P.sizes if sizes is None else sizes)]
    frames = []
    for v in variants_of(P):
        sizes_v = training_sizes(sizes, len(spaces[v].data.train))
        frames.append(evaluate_grid(spaces[v], sizes_v, methods_of(P), bcws=bcws.get(v), scws=scws[v]).assign(variant=v))
    grid = pd.concat(frames, ignore_index=True)
    grid["method"] = grid["level"] + " " + grid["signal"] + " " + grid["technique"]
    return grid


def run_grid(run, P: SimpleNamespace, spaces: dict, ws: WordSim) -> Grid:
    """Fit every (level, signal, technique) at every training size and score BTSR, sentence retrieval,
    BCWS and SCWS with the first seed; recorded as ``grid`` and ``original_space``."""
    grid = grid_frame(P, spaces, ws.bcws, ws.scws)
    largest = report.largest_sizes(grid)
    original = report.original_table(spaces, ws.bcws, ws.scws, largest)
    run.record("grid", grid, title="All methods x training sizes (BTSR, sentence retrieval, BCWS, SCWS), first seed")
    run.record("original_space", original, title="Scores without any mapping (the multilingual space itself), "
                                                  "raw and normalised-and-centred, first seed")
    return Grid(grid, largest, original)


def run_seeds(run, P: SimpleNamespace, encoders: dict, spaces: dict, ws: WordSim, g: Grid,
              base: pd.DataFrame) -> dict[int, SeedRun]:
    """The first seed's run and every further seed's (``seeds``).

    Each further seed rebuilds the BTSR set, the splits, the avg_type sample and the BCWS / SCWS samples,
    reuses the encoded pool (no sentence is encoded again) and fits and scores every map at the
    ``seed_sizes`` (the profiles: every size, each figure point a seed mean; at least the smallest and the
    largest, for Fig. 3's quoted points, Table 3 and the claims); recorded as ``seeds_grid``.

    Returns:
        seed -> :class:`~xalign.papers.liu2020.seeds.SeedRun`, the first seed first.
    """
    seeds = seeds_of(P)
    runs = {seeds[0]: SeedRun(g.grid, g.original, base, g.largest, _hits(P, spaces, g.largest))}
    for seed in seeds[1:]:
        sp = run_spaces(P, encoders, prepare_pairs(P, seed), seed=seed, reuse=spaces)
        bcws, scws = ws.at(seed)
        grid = grid_frame(P, sp, bcws, scws, sizes=P.seed_sizes)
        largest = report.largest_sizes(grid)
        words = pd.concat([senses.word_baseline(sp[v], int(largest[v])).assign(variant=v) for v in sp],
                          ignore_index=True)
        runs[seed] = SeedRun(grid, report.original_table(sp, bcws, scws, largest), words, largest,
                             _hits(P, sp, largest))
    every = pd.concat([r.grid.assign(seed=s) for s, r in runs.items()], ignore_index=True)
    run.record("seeds_grid", every, title="Every seed's maps (the first seed at every size, the others at the "
                                          "seed sizes): BTSR, sentence retrieval, BCWS, SCWS")
    return runs


def run_item_claims(run, P: SimpleNamespace, runs: dict[int, SeedRun]) -> pd.DataFrame:
    """The claims on two maps with their paired interval over the items (:mod:`.itemclaims`); ``btsr_claims``."""
    return run.record("btsr_claims", itemclaims.claims_table(runs, variants_of(P)),
                      title="The claims on two maps: mean per-item difference of BTSR P@k over the seeds (points), "
                            "95% bootstrap interval over the items (each seed's items resampled), the seeds' range",
                      note="a finding only where the interval excludes zero and every seed has its sign")


def _hits(P: SimpleNamespace, spaces: dict, largest: pd.Series) -> dict:  # every map's P@k per item (largest size)
    return {v: senses.item_hits(spaces[v], int(largest[v]), methods_of(P)) for v in spaces}


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


def run_senses(run, P: SimpleNamespace, spaces: dict, g: Grid) -> Senses:
    """The word-form ceiling (``btsr_word_form``) and every map's BTSR P@1 / P@5 on all items and on the
    items with a same-form distractor, each against the centred unmapped space (``btsr_every_map``).

    The maps are the grid's own fits at the largest training size (no map is chosen on the test items:
    all are reported)."""
    forms = pd.DataFrame([senses.word_form_table(spaces[v], v) for v in variants_of(P)])
    frames = [senses.map_scores(spaces[v], int(g.largest[v]), methods_of(P)).assign(variant=v)
              for v in variants_of(P)]
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


def run_checks(run, P: SimpleNamespace, spaces: dict, g: Grid) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The audit's before/after of each change (``before_after``) and the known-answer checks on the
    run's own vectors (``known_answers``); raises if a check fails.

    Returns:
        (before/after, known answers).
    """
    ba = pd.concat([audit.before_after(spaces[v], int(g.largest[v]), max_contexts=P.max_contexts,
                                        seed=seeds_of(P)[0])
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
    sen = run_senses(run, P, spaces, g)
    base = run_baselines(run, spaces, g)
    runs = run_seeds(run, P, encoders, spaces, ws, g, base)
    t3, best, t3_seeds = run_table3(run, g, runs, pair_data)
    f3 = run_figures(run, g, ws, runs)
    t4 = run_table4(run, g, ws, runs)
    ba, checks = run_checks(run, P, spaces, g)
    return Chapter2(variants_of(P), encoders, enc_table, pair_data, stats, spaces, ws, g, t3, best, t3_seeds, runs,
                    sen, base, f3, t4, ba, checks, run_item_claims(run, P, runs))
