"""Chapter 5's experiments (Nyholm 2020), one ``run_*`` function each; the chapter only calls and shows.

:func:`run_chapter` runs them all in the chapter's order and returns a :class:`Chapter5`
holding every table and figure's data; each ``run_*`` also records its tables in the
:class:`~xalign.book.results.ChapterRun` it is given (``run.compare`` for the thesis'
tables, ``run.record`` for ours). The figures are drawn by :mod:`.figures`, the prose by
:mod:`.report`.

The order of the probe runs, their seeds and the encoder cache keys are those the
chapter used when it held these loops itself, so the numbers are the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from xalign.core.profiles import as_list
from xalign.data.paper_tables import paper_table
from xalign.measures import probe, probe_tasks
from xalign.measures.probe_seeds import COLLAPSE_MARGIN, COLLAPSED_SHARE
from xalign.papers.nyholm2020 import findings, gap, multisent, report
from xalign.papers.nyholm2020.inputs import (  # noqa: F401 (the chapter's inputs, re-exported)
    CHANCE,
    PAPER,
    STEPS,
    Data,
    Features,
    chance,
    encode_features,
    load_data,
    load_profile_data,
    our_probe_settings,
    our_probes,
    run_data_tables,
    trace_examples,
)


# --------------------------------------------------------------------------- Table 4 and the correlation
@dataclass
class Table4:
    """Table 4 and what it is built from.

    Attributes:
        table: the compared frame (``paper``, ``ours`` = the thesis configuration, ``diff``, the
            repaired / zero-shot / CBOW columns with ``CI lo`` / ``CI hi``, ``majority share``).
        cbow: the CBOW runs (long: lang, probe, acc, ...).
        unk_latin1: share (fraction) of words lost on the Latin-1 path, every thesis and run language.
        unk_thesis_langs: the same for the thesis' Table 4 languages only.
        n_train / n_dev / n_test: pairs per language.
    """

    table: pd.DataFrame
    cbow: pd.DataFrame
    unk_latin1: dict[str, float]
    unk_thesis_langs: dict[str, float]
    n_train: int
    n_dev: int
    n_test: int


def probe_seeds(seeds: Sequence[int] | str) -> list[int]:
    """The training seeds of the probes behind Tables 4-7 (the profile's ``seeds``; a list or a comma
    string), as integers."""
    return [int(s) for s in as_list(seeds)]


def seed_words(seeds: Sequence[int]) -> str:
    """ "0, 1, 2" or, for a run of consecutive seeds longer than three, "0-9"."""
    S = probe_seeds(seeds)
    if len(S) > 3 and S == list(range(S[0], S[0] + len(S))):
        return f"{S[0]}-{S[-1]}"
    return ", ".join(map(str, S))


def seeds_note(seeds: Sequence[int], items: str, thesis_seeds: Sequence[int] | None = None) -> str:
    """The tables' note on seeds and intervals, e.g. "mean of 3 training seeds (0, 1, 2); ...", or with
    ``thesis_seeds`` (the thesis configuration's, where they differ from ours) "thesis configuration: mean
    of 10 training seeds (0-9); our probes: mean of 3 (0, 1, 2); ..."."""
    S, T = probe_seeds(seeds), probe_seeds(thesis_seeds) if thesis_seeds is not None else None
    if T is not None and T != S:
        mean = lambda X, what: f"one training seed ({X[0]})" if len(X) == 1 else \
            f"mean of {len(X)} {what} ({seed_words(X)})"
        which = f"thesis configuration: {mean(T, 'training seeds')}; our probes: {mean(S, 'seeds')}"
    elif len(S) == 1:
        return f"one training seed ({S[0]}); [95% CI]: bootstrap over the {items}"
    else:
        which = f"mean of {len(S)} training seeds ({seed_words(S)})"
    return (f"{which}, seed min-max beside it; [95% CI]: "
            f"bootstrap over the {items} of the seed-averaged accuracy; collapsed: judged per seed, a seed's "
            f"classifier collapses when it gives one class to at least {COLLAPSED_SHARE:.0f} % of the test items "
            f"and learns below {COLLAPSED_SHARE - COLLAPSE_MARGIN:.0f} %; a row is left out of "
            "any agreement with the thesis only when every seed collapsed")


def run_table4(run, data: Data, feats: Features, enc, ours: list[probe.ProbeSpec], seeds: Sequence[int],
               xnli_test_pairs: int | None, seed: int, thesis_seeds: Sequence[int]) -> Table4:
    """Table 4 (XNLI per language): the thesis configuration, the repaired pipeline, zero-shot from
    English and the CBOW baseline: the thesis configuration trained once per seed of ``thesis_seeds``, the
    other probes once per seed of ``seeds`` (mean and seed range; the data draws stay on ``seed``); recorded
    as ``table4``.

    Args:
        ours: our probes (:func:`our_probes`); ``seeds``: their training seeds (:func:`probe_seeds`).
        thesis_seeds: the thesis configuration's training seeds.
        xnli_test_pairs: test pairs per language of the unknown-token shares (None: all).
    """
    thesis_langs = sorted(paper_table(PAPER, "table4")["lang"].unique())
    unk_thesis_langs = multisent.unk_by_language(thesis_langs, enc.tokenizer, xnli_test_pairs, seed)
    thesis_xnli = multisent.thesis_probes("xnli")
    tasks, S, T = list(data.xnli.values()), list(seeds), list(thesis_seeds)
    res_thesis = probe_tasks.run_grid(list(data.thesis.values()), {"thesis": feats.F["thesis"]}, thesis_xnli,
                                      seeds=T)
    res_fixed = probe_tasks.run_grid(tasks, {"repaired": feats.F["repaired"]}, ours, seeds=S)
    res_zero = pd.DataFrame(probe_tasks.evaluate_transfer(
        data.xnli["en"], list(data.zero_shot.values()), feats.F["repaired"], ours, seeds=S)) \
        if data.zero_shot else pd.DataFrame(columns=["lang", "probe", "acc", "acc_lo", "acc_hi"])
    res_cbow = probe_tasks.run_grid(tasks, {"cbow": feats.F["cbow"]}, ours[:1], seeds=S)
    unk_latin1 = multisent.unk_by_language(sorted(set(thesis_langs) | set(data.langs)), enc.tokenizer,
                                           xnli_test_pairs, seed)
    ours_t4 = report.table4(res_thesis, res_fixed, res_zero, res_cbow, unk_latin1)
    n_train, n_test = len(tasks[0].train.labels), len(tasks[0].test.labels)
    n_dev = len(data.thesis[data.langs[0]].dev.labels)
    t4 = run.compare("table4", ours_t4, ["lang", "classifier"], title="Table 4: XNLI test accuracy per language (%)",
                     note=f"ours = the thesis' configuration with {enc.name}, trained on XNLI dev "
                          f"({n_train} pairs, not the 392,702 MT training pairs) and early-stopped "
                          f"on a disjoint dev split ({n_dev} pairs); " + seeds_note(S, f"{n_test} test pairs", T))
    return Table4(t4, res_cbow, unk_latin1, unk_thesis_langs, n_train, n_dev, n_test)


def run_mlp_lr_gap(run, data: Data, feats: Features, t4: pd.DataFrame, ours: list[probe.ProbeSpec],
                   seeds: Sequence[int]) -> pd.DataFrame:
    """MLP minus LR on the repaired features, per XNLI language, with a paired bootstrap interval over the
    same test pairs and the per-seed range (:func:`.gap.mlp_lr_gap`); recorded as ``mlp_lr_gap``. The fits
    are Table 4's (same features, probes, seeds: the probe cache returns them), and their accuracies are
    checked against it.
    """
    out = gap.mlp_lr_gap(list(data.xnli.values()), feats.F["repaired"], ours, seeds=list(seeds))
    rep = t4.set_index(["lang", "classifier"])["repaired"]
    for r in out.itertuples(index=False):
        for clf, acc in (("LR", r.LR), ("MLP", r.MLP)):
            if (r.lang, clf) in rep.index and not np.isclose(rep[(r.lang, clf)], acc):
                raise AssertionError(f"nyholm2020: the MLP-LR gap's {clf} accuracy for {r.lang} ({acc:.2f}) is not "
                                     f"Table 4's ({rep[(r.lang, clf)]:.2f}): the paired fits differ from Table 4's")
    return run.record("mlp_lr_gap", out, title="MLP minus LR on the same XNLI test pairs (repaired features, "
                                               "points, mean over seeds; paired bootstrap 95% interval)")


def run_unk_correlation(run, unk_latin1: dict[str, float]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Spearman correlation of the thesis' XNLI accuracy with the unknown-token share.

    Returns:
        (the correlations, one row per classifier and language subset with n and p, recorded as
        ``unk_correlation``; the scatter's points, :func:`unk_points`, recorded as figure ``unk_share``).
    """
    corr = run.record("unk_correlation", report.unk_correlations(paper_table(PAPER, "table4"), unk_latin1),
                      title="Spearman correlation: thesis XNLI accuracy vs unknown-token share (e5 tokenizer as proxy)")
    run.notes.append(report.correlation_note(corr))
    points = run.figure("unk_share", unk_points(unk_latin1),
                        title="Thesis XNLI accuracy (%) vs words lost on its input path (%, e5 tokenizer)")
    return corr, points


def unk_points(unk_latin1: dict[str, float]) -> pd.DataFrame:
    """The thesis' Table 4 accuracies with each language's unknown-token share (%): the scatter's data."""
    p = paper_table(PAPER, "table4")
    return p.assign(**{"UNK %": 100 * p["lang"].map(unk_latin1)})[["lang", "classifier", "UNK %", "value"]].rename(
        columns={"value": "thesis acc (%)"})


def run_table6(run, t4: pd.DataFrame, enc) -> pd.DataFrame:
    """Table 6's MultiSent row by the thesis' rule (best of MLP/LR by test accuracy); recorded as ``table6``."""
    ours_t6 = report.table6(t4, paper_table(PAPER, "table6")["lang"].unique())
    return run.compare("table6", ours_t6, ["model", "lang"], title="Table 6: XNLI accuracy next to other systems (%)",
                       note="only the MultiSent row is run here, as " + report.SELECTION_ON_TEST + "; the fine-tuned "
                            "rows are literature numbers that need the training split and a GPU")


# --------------------------------------------------------------------------- XED
@dataclass
class Xed:
    """Tables 5 and 7 (compared frames) and the CBOW runs on XED."""

    table5: pd.DataFrame
    table7: pd.DataFrame
    cbow: pd.DataFrame


def run_xed(run, data: Data, feats: Features, enc, ours: list[probe.ProbeSpec], seeds: Sequence[int],
            thesis_seeds: Sequence[int]) -> Xed:
    """Tables 5 and 7 (XED): thesis configuration (once per seed of ``thesis_seeds``),
    repaired pipeline (``ours``) and CBOW (once per seed of ``seeds``), each as mean and seed range;
    majority-class accuracy."""
    thesis_xed = multisent.thesis_probes("xed")
    xtasks, S, T = list(data.xed.values()), list(seeds), list(thesis_seeds)
    xres_thesis = probe_tasks.run_grid(xtasks, {"thesis": feats.XF["thesis"]}, thesis_xed, seeds=T)
    xres_fixed = probe_tasks.run_grid(xtasks, {"repaired": feats.XF["repaired"]}, ours, seeds=S)
    xres_cbow = probe_tasks.run_grid(xtasks, {"cbow": feats.XF["cbow"]}, ours[:1], seeds=S)
    majority = {lang: 100 * np.bincount(t.test.labels).max() / len(t.test.labels) for lang, t in data.xed.items()}
    ours_t5 = report.table5(xres_thesis, xres_fixed, xres_cbow, majority)
    t5 = run.compare("table5", ours_t5, ["lang", "classifier"], title="Table 5: XED test accuracy (%)",
                     note=f"ours = the thesis' configuration with {enc.name}; released XED, single-label lines; "
                          + seeds_note(S, "test lines", T))
    t7 = run.compare("table7", report.table7(t5), ["classifier", "lang"],
                     title="Table 7: XED accuracy next to Kajava (2018) (%)",
                     note="Kajava's MLP (3 x 100 ReLU units, 10-fold CV, her data) is not rerun; MultiSent rows as Table 5")
    return Xed(t5, t7, xres_cbow)


# --------------------------------------------------------------------------- which choices move the result
@dataclass
class LayerSweep:
    """Accuracy by pooling and layer (long), the layer chosen per task on held-out data, and the
    CBOW baseline's test accuracy per task (the reference line of the figure)."""

    sweep: pd.DataFrame
    best_layer: pd.DataFrame
    cbow: dict[str, float] = field(default_factory=dict)


def run_layer_sweep(run, data: Data, feats: Features, enc, xnli_cbow: pd.DataFrame, xed_cbow: pd.DataFrame,
                    spec: probe.ProbeSpec, seed: int) -> LayerSweep:
    """One logistic regression (``spec``, our LR) per pooling and layer, per study language (20 % of the
    training pairs held out for selection) and for XED English (its own dev split); recorded as
    ``layer_sweep``."""
    grid = [{"pooling": p, "layer": l} for p in ("mean", "first") for l in range(enc.n_layers)]
    sweeps = []
    for lang in data.study:
        task = probe_tasks.with_holdout(data.xnli[lang], 0.2, seed)
        sweeps.append(probe_tasks.sweep(task, lambda pooling, layer, b=feats.fixed[lang]: b.batcher(pooling, layer),
                                        grid, spec, seed=seed, progress=False).assign(task=f"XNLI {lang}"))
    if "en" in data.xed:  # XED has its own dev split for early stopping and the held-out score
        sweeps.append(probe_tasks.sweep(data.xed["en"],
                                        lambda pooling, layer, b=feats.xed_fixed["en"]: b.batcher(pooling, layer),
                                        grid, spec, seed=seed, progress=False).assign(task="XED en"))
    sweep = pd.concat(sweeps, ignore_index=True)
    best = sweep[sweep["pooling"] == "mean"].loc[lambda d: d.groupby("task")["dev_acc"].idxmax()]
    run.record("layer_sweep", sweep[["task", "pooling", "layer", "acc", "macro_f1", "dev_acc"]],
               title="Accuracy by pooling and layer (logistic regression)")
    cb = {f"XNLI {lang}": float(xnli_cbow.loc[xnli_cbow["lang"] == lang, "acc"].iloc[0]) for lang in data.study}
    cb.update({f"XED {lang}": float(xed_cbow.loc[xed_cbow["lang"] == lang, "acc"].iloc[0]) for lang in data.xed})
    return LayerSweep(sweep, best.reset_index(drop=True), cb)


def run_classifier_size(run, data: Data, feats: Features, classifier_sizes: Sequence[int], probe_training: str,
                        senteval_config: str, seed: int) -> pd.DataFrame:
    """MLPs of growing hidden size (``classifier_sizes``; 0 = logistic regression, trained as our probes:
    :func:`our_probe_settings`) on the repaired features of the first two study languages and the first
    XED language; recorded as ``classifier_size``."""
    specs = [probe.ProbeSpec(f"nhid={h}", kind="mlp" if h else "logreg", nhid=h,
                             **our_probe_settings("mlp" if h else "logreg", probe_training, senteval_config))
             for h in as_list(classifier_sizes)]
    tasks = [data.xnli[lang] for lang in data.study[:2]] + [data.xed[lang] for lang in list(data.xed)[:1]]
    res = pd.concat([probe_tasks.run_grid(
        [t], {"repaired": feats.XF["repaired"] if t.name.startswith("XED") else feats.F["repaired"]},
        specs, seed=seed) for t in tasks], ignore_index=True)
    res["hidden units"] = res["probe"].str.replace("nhid=", "").astype(int)
    run.record("classifier_size", res[["task", "hidden units", "acc", "macro_f1", "reg"]],
               title="Accuracy by MLP hidden size (0 = logistic regression)")
    return res


def run_learning_curve(run, data: Data, feats: Features, spec: probe.ProbeSpec, xnli_train_sizes: Sequence[int],
                       xed_train_sizes: Sequence[int], seed: int) -> pd.DataFrame:
    """Logistic regression (``spec``, our LR) on stratified training subsets of ``xnli_train_sizes`` /
    ``xed_train_sizes``, repaired and thesis features (XNLI en and zh where run, else the first two study
    languages; XED's first language); recorded as ``learning_curve``."""
    langs = [lang for lang in ("en", "zh") if lang in data.study] or data.study[:2]
    jobs = [(f"XNLI {lang}", data.xnli[lang], feats.F, as_list(xnli_train_sizes)) for lang in langs]
    jobs += [(f"XED {lang}", data.xed[lang], feats.XF, as_list(xed_train_sizes)) for lang in list(data.xed)[:1]]
    curves = pd.concat([pd.DataFrame(probe_tasks.learning_curve(task, fs[name], spec, sizes, seed=seed))
                        .assign(task=label, features=name)
                        for label, task, fs, sizes in jobs for name in ("repaired", "thesis")], ignore_index=True)
    run.record("learning_curve", curves[["task", "features", "n_train", "acc", "macro_f1"]],
               title="Accuracy by training-set size (logistic regression)")
    return curves


def thesis_steps(data: Data, feats: Features, thesis_seeds: Sequence[int]) -> dict[str, list[dict]]:
    """Steps A-D of the diagnosis (:data:`STEPS`): the thesis' probes, early-stopped on the dev split, once per
    seed of ``thesis_seeds``, for the study languages' XNLI (A-D) and XED English (B-D: XED has no Latin-1
    path). Returns task name ("XNLI de", "XED en") -> one result row per step and probe, in step order."""
    thesis_xnli, thesis_xed = multisent.thesis_probes("xnli"), multisent.thesis_probes("xed")
    a, b, c, d, _, _ = STEPS
    last, T = feats.last, list(thesis_seeds)
    out = {}
    for lang in data.study:
        dev_task = data.thesis[lang]  # the thesis configuration early-stops on its dev split
        fixed = feats.fixed[lang]
        out[f"XNLI {lang}"] = probe_tasks.run_steps(data.xnli[lang], [
            (a, feats.thesis[lang].batcher("first", last), thesis_xnli, dev_task),
            (b, feats.thesis_utf8[lang].batcher("first", last), thesis_xnli, dev_task),
            (c, fixed.batcher("first", last), thesis_xnli, dev_task),
            (d, fixed.batcher("mean", last), thesis_xnli, dev_task),
        ], seeds=T, meta={"task": f"XNLI {lang}"})
    if "en" in data.xed:
        xed = feats.xed_fixed["en"]
        out["XED en"] = probe_tasks.run_steps(data.xed["en"], [
            (b, feats.xed_thesis["en"].batcher("first", last), thesis_xed),
            (c, xed.batcher("first", last), thesis_xed),
            (d, xed.batcher("mean", last), thesis_xed),
        ], seeds=T, meta={"task": "XED en"})
    return out


def run_diagnosis(run, data: Data, feats: Features, best_layer: pd.DataFrame, ours: list[probe.ProbeSpec],
                  seeds: Sequence[int], thesis_seeds: Sequence[int]) -> pd.DataFrame:
    """Undo the thesis' pipeline one step at a time (:data:`STEPS`) for the study languages and XED
    English; steps A-D keep the thesis' probes (:func:`thesis_steps`), once per seed of ``thesis_seeds``,
    E and F use ``ours``, once per seed of ``seeds``; each as mean and seed range, so its
    findings can be checked across seeds. Recorded as ``diagnosis`` (``n_seeds`` per row); returns one row
    per task, step and probe."""
    layer_for = dict(zip(best_layer["task"], best_layer["layer"]))
    *_, e, f = STEPS
    last = feats.last
    S = list(seeds)
    before = thesis_steps(data, feats, thesis_seeds)
    steps = []
    for lang in data.study:
        fixed = feats.fixed[lang]
        steps += before[f"XNLI {lang}"] + probe_tasks.run_steps(data.xnli[lang], [
            (e, fixed.batcher("mean", last), ours),
            (f, fixed.batcher("mean", int(layer_for[f"XNLI {lang}"])), ours),
        ], seeds=S, meta={"task": f"XNLI {lang}"})
    if "en" in data.xed:
        xed = feats.xed_fixed["en"]
        steps += before["XED en"] + probe_tasks.run_steps(data.xed["en"], [
            (e, xed.batcher("mean", last), ours),
            (f, xed.batcher("mean", int(layer_for["XED en"])), ours),
        ], seeds=S, meta={"task": "XED en"})
    ladder = pd.DataFrame(steps)
    run.record("diagnosis", ladder[["task", "step", "probe", "acc", "acc_lo", "acc_hi", "acc_min", "acc_max",
                                    "macro_f1", "pred_majority_share", "collapsed_seeds", "n_seeds",
                                    "selection", "early_stopping"]],
               title="Undoing the thesis' pipeline step by step (mean over seeds; acc_lo/acc_hi: 95% bootstrap "
                     "interval; acc_min/acc_max: seed range)")
    return ladder


# --------------------------------------------------------------------------- the whole chapter
@dataclass
class Chapter5:
    """Everything chapter 5 shows (see each ``run_*`` for the parts)."""

    data: Data
    data_tables: dict[str, pd.DataFrame]
    examples: pd.DataFrame
    features: Features
    table4: Table4
    mlp_lr_gap: pd.DataFrame
    unk_correlation: pd.DataFrame
    unk_points: pd.DataFrame
    table6: pd.DataFrame
    xed: Xed
    layers: LayerSweep
    classifier_size: pd.DataFrame
    learning_curve: pd.DataFrame
    diagnosis: pd.DataFrame
    model: str


NOTES = (
    ("XNLI classifiers are trained on the labelled dev set (our probes' L2 by k-fold cross-validation, "
     "a premise's hypotheses in one fold) and tested on the labelled test set; the thesis trained on "
     "392,702 machine-translated pairs."),
    "Table 6 selects the better of MLP and LR by test accuracy, as the thesis did: selection on test.",
    ("Thesis configuration: SentEval's SNLI cap of 15 epochs replaced by its general cap of 200 "
     "(early stopping), since 15 epochs are a few dozen updates on a few hundred training pairs."),
    ("The thesis configuration trains in double precision, where SentEval trains in single precision; "
     "its architecture, optimiser, early stopping and data sizes are unchanged. An early-stopped seed can "
     "still end on another epoch when the inputs move by rounding, so it is averaged over more seeds than "
     "our probes (thesis_seeds) and its verdicts need a margin beyond that move. Our probes train on the "
     "whole training set to convergence (L-BFGS, float64): inputs perturbed at float32 rounding scale "
     "changed none of their test predictions."),
)


def run_chapter(P, run, enc) -> Chapter5:
    """Run every experiment of chapter 5 in the chapter's order, recording each table in ``run``.

    Args:
        P: the chapter's parameters (:func:`xalign.papers.meta.parameters`); only this function reads them,
            handing each experiment the values it uses.
        run: the :class:`~xalign.book.results.ChapterRun` the tables are recorded in.
        enc: the encoder (:func:`xalign.core.encoders.load_encoder`).

    Returns:
        a :class:`Chapter5` with every table and every figure's data.
    """
    data = load_profile_data(P)
    ours, seeds = our_probes(P.mlp_hidden, P.probe_training, P.senteval_config), probe_seeds(P.seeds)
    data_tables = run_data_tables(run, data, P.xed_label_policy)
    examples = trace_examples(data, enc.tokenizer)
    feats = encode_features(enc, data, P.layer)
    thesis_seeds = probe_seeds(P.thesis_seeds)
    t4 = run_table4(run, data, feats, enc, ours, seeds, P.xnli_test_pairs, P.seed, thesis_seeds)
    mlp_lr = run_mlp_lr_gap(run, data, feats, t4.table, ours, seeds)
    corr, points = run_unk_correlation(run, t4.unk_latin1)
    t6 = run_table6(run, t4.table, enc)
    xed = run_xed(run, data, feats, enc, ours, seeds, thesis_seeds)
    layers = run_layer_sweep(run, data, feats, enc, t4.cbow, xed.cbow, ours[0], P.seed)
    size = run_classifier_size(run, data, feats, P.classifier_sizes, P.probe_training, P.senteval_config, P.seed)
    curves = run_learning_curve(run, data, feats, ours[0], P.xnli_train_sizes, P.xed_train_sizes, P.seed)
    ladder = run_diagnosis(run, data, feats, layers.best_layer, ours, seeds, thesis_seeds)
    n_dev = len(data.thesis[data.langs[0]].dev.labels)
    early = (f"Thesis configuration: early stopping on a dev split of {n_dev} XNLI dev pairs "
             "disjoint from training (SentEval's SplitClassifier).")
    run.notes.extend([NOTES[0], early, *NOTES[1:]])
    return Chapter5(data, data_tables, examples, feats, t4, mlp_lr, corr, points, t6, xed, layers, size, curves, ladder, enc.name)


def evidence(result: Chapter5) -> str:
    """The closing section ("What the evidence supports") as Markdown, from a chapter's results
    (:func:`xalign.papers.nyholm2020.findings.evidence`)."""
    return findings.evidence(result.table4.table, result.xed.table5, result.diagnosis, result.unk_correlation,
                           result.layers.sweep, result.layers.best_layer, result.layers.cbow, result.table4.unk_latin1,
                           paper_table(PAPER, "table4"), paper_table(PAPER, "table5"), result.model,
                           mlp_lr_gap=result.mlp_lr_gap)


def headline(result: Chapter5) -> str:
    """The chapter's result in one sentence (:func:`xalign.papers.nyholm2020.findings.headline`)."""
    return findings.headline(result.table4.table, result.model)
