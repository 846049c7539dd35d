"""Chapter 3's experiments, one ``run_*`` function each: what the chapter's notebook calls.

The chapter runs them in this order, each one reading what the earlier ones returned::

    setup = run_setup(P, run)                                   # encoders, their paper counterparts
    plain = run_no_finetuning(P, setup, run)                    # layer choice; Tatoeba, STS (Tables 5, 6)
    calib = run_calibration(P, setup, plain, run)               # Sentence-BERT fine-tuning (Table 10, Fig. 2)
    control = run_control(P, setup, plain, calib, run)          # XNLI control; Table 1

    xnli = transfer_experiments.run_transfer(P, setup, plain, calib, control, run)  # Tables 2, 3, 4, 8, 9
    known = run_known_answers(P, setup, plain, run)             # checks whose answer is known in advance
    finish(calib, run, P.xnli_method, P.xnli_classifier, P.tatoeba_n, P.compare_direction)  # the run's notes

(:mod:`.transfer_experiments` holds the XNLI transfer protocol).

``P`` is the chapter's parameters (:func:`xalign.papers.meta.parameters`: typed, frozen, lists of numbers
as numbers; only these ``run_*`` functions read it, each handing the steps it calls the values they use);
``run`` a
:class:`xalign.book.results.ChapterRun` (anything with its ``record`` / ``compare`` /
``figure`` / ``not_run`` / ``use_encoder`` methods): each function records the tables
it computes there, under the same names as before the chapter called these
functions, so saved results stay comparable. Nothing is displayed here; the
figures are drawn by :mod:`.figures`, the prose by :mod:`.evidence`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

import pandas as pd

from xalign.core.draws import sample_rows
from xalign.core.profiles import as_list
from xalign.data.paper_tables import paper_table
from xalign.data.xnli_manual import XNLIManual, xnli_manual
from xalign.papers.calibrated2023 import calibrated as cal
from xalign.papers.calibrated2023 import cost_controls, finetune, report, seed_spread, transfer
from xalign.papers.meta import check_model_layers

CHAPTER = "03_calibrated_retrieval_transfer_rate"
PAPER = "calibrated2023"
#: what Fig. 2's retrieval axis is called in its data
FIG2_METRICS = {"tatoeba": "sentence retrieval (Tatoeba)", "validation": "sentence retrieval (WMT21 validation)",
                "sts": "STS 2017"}


# ------------------------------------------------------------------ setup
@dataclass
class Setup:
    """The run's models and languages, and the loaded encoders."""

    models: list[str]                    # encoders evaluated and fine-tuned
    sentence_models: list[str]           # sentence-level models (no layers, no fine-tuning)
    tatoeba_langs: list[str]
    val_pairs: list[tuple[str, str]]     # WMT21 validation pairs, (src, tgt)
    xnli_langs: list[str]
    fig2_models: list[str]
    xnli_models: list[str]               # models run on XNLI (sentence models only with frozen features)
    counterpart: dict[str, str]          # our model -> the paper model its numbers are compared with
    encoders: dict                       # model -> Encoder (layers)
    sentence_encoders: dict              # model -> sentence encoder
    data_sizes: pd.DataFrame             # data, part, pairs: the evaluation sets' sizes before sampling

    @property
    def all_encoders(self) -> dict:
        """Every encoder, layered ones first."""
        return {**self.encoders, **self.sentence_encoders}


def run_setup(P, run) -> Setup:
    """Load the encoders (no progress bars or weight-loading reports) and name their paper counterparts.

    Args:
        P: the chapter's parameters.
        run: the chapter run; the first model is recorded as the one its numbers come from.
    """
    from transformers.utils import logging as hf_logging

    from xalign.core.loading import load_encoder
    from xalign.core.sentvec import load_sentence_encoder

    hf_logging.set_verbosity_error()  # no weight-loading reports in the book
    hf_logging.disable_progress_bar()
    models = as_list(P.models)
    sentence_models = as_list(P.sentence_models)
    val_pairs = [tuple(p.split("-")) for p in as_list(P.val_pairs)]
    sizes = data_sizes(as_list(P.tatoeba_langs), val_pairs)
    encoders = {m: load_encoder(m, progress=False) for m in models}  # progress bars per language instead
    for m, e in encoders.items():
        check_model_layers("calibrated2023", P, e.n_layers, m)  # xnli_layer within every model
    sentence_encoders = {m: load_sentence_encoder(m) for m in sentence_models}
    run.use_encoder(encoders[models[0]])
    return Setup(models=models, sentence_models=sentence_models, tatoeba_langs=as_list(P.tatoeba_langs),
                 val_pairs=val_pairs, xnli_langs=as_list(P.xnli_langs),
                 fig2_models=as_list(P.fig2_models) or models,
                 xnli_models=models + (sentence_models if P.xnli_method == "frozen" else []),
                 counterpart=cal.counterparts(models, P.reference_model), encoders=encoders,
                 sentence_encoders=sentence_encoders, data_sizes=sizes)


def data_sizes(tatoeba_langs, val_pairs) -> pd.DataFrame:
    """The evaluation sets' sizes before sampling: ``data, part, pairs`` (sentence pairs) for each
    Tatoeba language, WMT21 validation pair and STS 2017 monolingual track."""
    from xalign.data import corpora, sentdata

    rows = [{"data": "Tatoeba", "part": lang, "pairs": len(sentdata.tatoeba_pairs(lang))} for lang in tatoeba_langs]
    rows += [{"data": "WMT21 newstest", "part": f"{s}-{t}", "pairs": len(corpora.wmt_newstest("wmt21", f"{s}-{t}"))}
             for s, t in val_pairs]
    rows += [{"data": "STS 2017", "part": t, "pairs": len(sentdata.sts2017_pairs(t))} for t in cal.STS_MONOLINGUAL]
    return pd.DataFrame(rows)


def checkpoint_val_n(ckpt_val_n: int | None, val_n: int | None) -> int | None:
    """Sentence pairs per WMT21 pair that choose the fine-tuning checkpoint (``ckpt_val_n``; None: all).

    A larger sample than the layer choice's ``val_n``: on 120 pairs per language pair (720 queries)
    every checkpoint scored about 98%, so two queries decided; more candidates per query make the
    retrieval harder and the choice rests on many queries.

    Raises:
        ValueError: if ``ckpt_val_n`` is set and smaller than ``val_n`` or below 1.
    """
    n = ckpt_val_n
    if n is None:
        return None
    if int(n) < 1 or (val_n is not None and int(n) < int(val_n)):
        raise ValueError(f"ckpt_val_n must be None (all pairs) or an integer >= val_n ({val_n}), got {n}")
    return int(n)


# ------------------------------------------------------------------ no fine-tuning
@dataclass
class NoFinetuning:
    """Retrieval and STS of the encoders as published."""

    validation: dict            # model -> validation accuracy per pair, layer, direction
    best: dict                  # model -> layer chosen on validation
    layers: pd.DataFrame        # model, best layer, of layers, validation accuracy (%)
    tatoeba: dict               # model -> Tatoeba per language, layer, direction (with hits)
    curves: pd.DataFrame        # model, data, direction, layer, value: means over languages / pairs
    per_language: pd.DataFrame  # Tatoeba per model, language and layer, mean of the directions
    t5: pd.DataFrame            # Tatoeba at the chosen layer, setup "none", with intervals
    sts: pd.DataFrame           # STS 2017 at the chosen layer, setup "none", with intervals


def run_no_finetuning(P, setup: Setup, run) -> NoFinetuning:
    """Validation retrieval at every layer picks each encoder's layer; Tatoeba at every layer and
    STS 2017 at that layer (records ``layer_curves``)."""
    enc = setup.all_encoders
    val = {m: cal.validation_retrieval(e, setup.val_pairs, n=P.val_n, seed=P.seed, method=P.method)
           for m, e in enc.items()}
    best = {m: cal.validation_best_layer(v) for m, v in val.items()}
    layers = pd.DataFrame([{"model": m, "best layer": best[m], "of layers": getattr(e, "n_layers", 1),
                            "validation accuracy (%)": cal.at_layer(val[m][val[m].direction == "mean"],
                                                                    best[m])["value"].mean()}
                           for m, e in enc.items()])
    tat = {m: cal.tatoeba_retrieval(e, setup.tatoeba_langs, n=P.tatoeba_n, seed=P.seed, method=P.method,
                                    keep_hits=True) for m, e in enc.items()}
    curves = pd.concat([
        pd.concat([report.drop_items(tat[m]).assign(model=m, data="Tatoeba (mean of languages)"),
                   val[m].assign(model=m, data="WMT21 validation (mean of pairs)")])
        for m in setup.encoders], ignore_index=True)
    curves = curves[curves.direction != "mean"].groupby(["model", "data", "direction", "layer"],
                                                        as_index=False)["value"].mean()
    run.record("layer_curves", curves, title="Retrieval accuracy at every layer (no fine-tuning)")
    per_language = pd.concat([report.drop_items(tat[m]).assign(model=m) for m in setup.encoders])
    per_language = per_language[per_language.direction == "mean"]
    t5 = report.tatoeba_at_best(tat, best, "none", seed=P.seed)
    sts = report.sts_rows(enc, best, "none", n=P.sts_n, seed=P.seed)
    return NoFinetuning(validation=val, best=best, layers=layers, tatoeba=tat, curves=curves,
                        per_language=per_language, t5=t5, sts=sts)


def run_prefix_choice(P, setup: Setup, plain: NoFinetuning, run) -> pd.DataFrame:
    """Tatoeba with the model card's prefix against the other documented one (e5: "query: " vs
    "passage: "), at the chosen and the last layer, on the chapter's sample (records ``prefix_choice``).

    Returns the rows of :func:`.prefix_choice.prefix_effect` for every model whose family documents two
    prefixes (an empty frame when none does).
    """
    from xalign.core.loading import load_encoder
    from xalign.core.prefixes import documented_prefix
    from xalign.papers.calibrated2023.prefix_choice import has_prefix_choice, prefix_effect

    frames = []
    for m in [m for m in setup.models if has_prefix_choice(m)]:
        enc = setup.encoders[m]
        other = documented_prefix(m, "passage")
        encoders = {enc.prefix: enc, other: load_encoder(m, prefix=other, progress=False)}
        layers = {"chosen": plain.best[m], "last": enc.n_layers - 1}
        frames.append(prefix_effect(m, encoders, setup.tatoeba_langs, layers, P.tatoeba_n, P.seed,
                                    P.compare_direction))
    out = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    if len(out):
        run.record("prefix_choice", out, title=f"Tatoeba accuracy ({P.compare_direction}) with each documented "
                   "input prefix, and the paired difference")
    return out


# ------------------------------------------------------------------ calibration (sentence-embedding fine-tuning)
@dataclass
class Calibration:
    """The fine-tuning runs, their checkpoints and the calibrated scores."""

    n_nli: tuple[int, int]      # (pairs used, pairs available): SNLI dev+test entailment pairs
    n_sts: tuple[int, int]      # (pairs used, pairs available): STS-B train
    nli_train: list
    sts_train: list
    settings: pd.DataFrame      # Table 10: our configuration per model
    runs: dict                  # model -> FinetuneResult
    losses: pd.DataFrame        # step, task, loss, model
    checkpoints: dict           # model -> validation / STS per checkpoint
    chosen: dict                # model -> the chosen checkpoint's row
    fig2: pd.DataFrame          # fraction, metric, value, model
    encoders: dict              # model -> the chosen checkpoint's encoder
    best: dict                  # model -> layer (= the layer chosen before fine-tuning)
    t5: pd.DataFrame            # Tatoeba, both setups, both directions, with intervals
    sts: pd.DataFrame           # STS 2017, both setups, with intervals
    table1: pd.DataFrame        # our Table 1 averages per model, setup and task
    deltas: pd.DataFrame        # change with fine-tuning, ours beside the paper's
    change_ci: pd.DataFrame     # intervals of our changes
    caption: str                # what the fine-tuning run was, generated
    seed_spread: dict           # model -> seed_spread.SeedSpread: the changes over fine-tuning seeds (measured once)
    table5: pd.DataFrame        # compared with the paper
    table6: pd.DataFrame
    untuned: dict = field(default_factory=dict)  # model -> the untuned model scored like a checkpoint (Fig. 2's 0)
    cost: pd.DataFrame = field(default_factory=pd.DataFrame)  # the layer or the prefix: what carries the cost


def run_calibration(P, setup: Setup, plain: NoFinetuning, run) -> Calibration:
    """Sentence-BERT fine-tuning on English (NLI + STS-B), a checkpoint chosen on validation,
    Fig. 2's curve, and Tatoeba and STS of the chosen checkpoint at the layer chosen before.

    Records ``table10``, ``checkpoints``, ``Fig. 2``, ``tatoeba_all``, ``sts_all``,
    ``finetuning_cost_controls`` and compares ``table5`` and ``table6`` with the paper.
    """
    from xalign.core.loading import load_encoder
    from xalign.data import sentdata

    enc, best = setup.encoders, plain.best
    nli_all = finetune.nli_training_pairs(sentdata.snli_rows(("dev", "test")))
    sts_all = finetune.sts_training_pairs(sentdata.stsbenchmark_pairs("train"))
    nli_train = finetune.subsample(nli_all, P.nli_pairs, seed=P.seed)
    sts_train = finetune.subsample(sts_all, P.sts_pairs, seed=P.seed)
    ft_config = partial(report.ft_config, ft_by_model=P.ft_by_model, ft_lr=P.ft_lr, ft_batch_size=P.ft_batch_size,
                        ft_warmup=P.ft_warmup, ft_nli_epochs=P.ft_nli_epochs, ft_sts_epochs=P.ft_sts_epochs,
                        ft_checkpoints=P.ft_checkpoints, ft_freeze_embeddings=P.ft_freeze_embeddings, seed=P.seed,
                        ft_bf16=P.ft_bf16)  # model -> its fine-tuning settings
    settings = pd.DataFrame([{"model": m, **vars(ft_config(m))} for m in setup.models])
    run.record("table10", settings, title="Table 10: our settings")
    runs = {m: finetune.finetune_sentence_encoder(m, nli_train, sts_train, ft_config(m),
                                                  prefix=enc[m].prefix) for m in setup.models}
    losses = pd.concat([r.losses.assign(model=m) for m, r in runs.items()])
    fig2_langs = as_list(P.fig2_tatoeba_langs)

    def evaluate(m, checkpoints):
        return cal.evaluate_checkpoints(checkpoints, prefix=enc[m].prefix,
                                        val_n=checkpoint_val_n(P.ckpt_val_n, P.val_n), seed=P.seed,
                                        sts_n=P.sts_n, tatoeba_langs=fig2_langs, tatoeba_n=P.tatoeba_n,
                                        method=P.method, val_pairs=setup.val_pairs, layer=best[m])

    ckpt = {m: evaluate(m, r.checkpoints) for m, r in runs.items()}
    chosen = {m: cal.choose_checkpoint(c) for m, c in ckpt.items()}
    run.record("checkpoints", pd.concat([c.assign(model=m) for m, c in ckpt.items()]).drop(columns="path"),
               title="Validation retrieval and STS of every fine-tuning checkpoint")
    untuned = {m: evaluate(m, [(0.0, finetune.resolve_base(m)[0])]) for m in setup.fig2_models if m in runs}
    fig2 = figure2_data(setup, nli_train, sts_train, ckpt, evaluate, untuned, ft_config=ft_config,
                        fig2_mode=P.fig2_mode, fig2_fractions=P.fig2_fractions,
                        fig2_tatoeba_langs=P.fig2_tatoeba_langs, seed=P.seed)
    run.figure("Fig. 2", fig2, title="Fig. 2: change in retrieval and STS with the share of fine-tuning data")

    cal_enc = {m: load_encoder(chosen[m]["path"], prefix=enc[m].prefix, progress=False) for m in setup.models}
    cal_best = {m: int(chosen[m]["layer"]) for m in setup.models}  # = best[m]: the layer is kept
    tat_after = {m: cal.tatoeba_retrieval(e, setup.tatoeba_langs, n=P.tatoeba_n, seed=P.seed, layers=[cal_best[m]],
                                          method=P.method, keep_hits=True) for m, e in cal_enc.items()}
    t5_se = report.tatoeba_at_best(tat_after, cal_best, "sentence_embedding", seed=P.seed)
    sts_se = report.sts_rows(cal_enc, cal_best, "sentence_embedding", n=P.sts_n, seed=P.seed)
    t5 = pd.concat([plain.t5, t5_se], ignore_index=True)
    sts = pd.concat([plain.sts, sts_se], ignore_index=True)
    run.record("tatoeba_all", report.drop_items(t5), title="Tatoeba accuracy, both directions, before and after "
               "fine-tuning (95% bootstrap interval)")
    run.record("sts_all", report.drop_items(sts), title="STS 2017, before and after fine-tuning (95% bootstrap "
               "interval)")
    t5_dir = t5[t5.direction == P.compare_direction]
    ours1 = report.table1_rows(t5_dir, sts, seed=P.seed)
    deltas = cal.finetuning_changes(paper_table(PAPER, "table1"), ours1)
    change_ci = report.change_intervals(t5_dir, sts, seed=P.seed)
    matched = seed_spread.matched_parameters(P.to_dict())
    spread = {m: seed_spread.load_seed_spread(matched, m, enc[m]) for m in setup.models}
    caption = f"{report.finetune_caption(runs, deltas, change_ci)} {seed_spread.spread_note(spread)}"

    cp = setup.counterpart
    table5 = cal.compare_counterparts(
        run, "table5", t5_dir[["model", "setup", "lang", "value", "ci_lo", "ci_hi"]], ["setup", "lang"], cp,
        title="Table 5: Tatoeba accuracy per language",
        note=f"ours: {', '.join(cp)} ({P.compare_direction}, {P.tatoeba_n or 'all'} pairs per language) vs the "
             f"paper's {', '.join(cp.values())}; QA fine-tuning not run. {caption}")
    table6 = cal.compare_counterparts(run, "table6", sts[["model", "setup", "track", "value", "ci_lo", "ci_hi"]],
                                      ["setup", "track"], cp, title="Table 6: STS 2017 (Spearman x 100)",
                                      note="ours vs the paper's counterpart model; QA fine-tuning not run")
    cost = cost_controls.run_cost_controls(setup, plain, cal_enc, chosen, run, val_n=P.val_n, tatoeba_n=P.tatoeba_n,
                                           seed=P.seed, method=P.method, compare_direction=P.compare_direction)
    return Calibration(n_nli=(len(nli_train), len(nli_all)), n_sts=(len(sts_train), len(sts_all)),
                       nli_train=nli_train, sts_train=sts_train, settings=settings, runs=runs, losses=losses,
                       checkpoints=ckpt, chosen=chosen, fig2=fig2, encoders=cal_enc, best=cal_best, t5=t5, sts=sts,
                       table1=ours1, deltas=deltas, change_ci=change_ci, caption=caption, seed_spread=spread,
                       table5=table5, table6=table6, untuned=untuned, cost=cost)


def figure2_data(setup: Setup, nli_train, sts_train, checkpoints: dict, evaluate, untuned: dict | None = None, *,
                 ft_config: Callable[..., finetune.SentenceFinetuneConfig] | None, fig2_mode: str,
                 fig2_fractions: list[float], fig2_tatoeba_langs: list[str] | str, seed: int) -> pd.DataFrame:
    """Fig. 2: retrieval and STS minus their value before fine-tuning (``untuned[model]``: the base model
    scored like a checkpoint, at share 0), or without it minus their value at the smallest share.

    Measured from the untuned model, a reader sees what fine-tuning costs or gains; measured from the
    first checkpoint, a fall before it would show as a rise after it (issue 45, finding 4).

    ``fig2_mode == "runs"``: one fine-tuning run per share (``fig2_fractions``), each with the model's
    settings ``ft_config(model, checkpoints=1)`` (:func:`.report.ft_config`), as the paper; otherwise the
    checkpoints of the one run (``checkpoints``). ``evaluate(model, checkpoints)`` scores a list of
    (fraction, directory); ``fig2_tatoeba_langs`` (empty: validation) names the retrieval axis.
    """
    if fig2_mode == "runs":
        scored = {}
        for m in setup.fig2_models:
            runs = [finetune.finetune_sentence_encoder(
                m, finetune.subsample(nli_train, fraction=f, seed=seed),
                finetune.subsample(sts_train, fraction=f, seed=seed), ft_config(m, checkpoints=1),
                prefix=setup.encoders[m].prefix) for f in fig2_fractions]
            scored[m] = evaluate(m, [(f, r.final) for f, r in zip(fig2_fractions, runs)])
    else:
        scored = {m: checkpoints[m] for m in setup.fig2_models if m in checkpoints}
    untuned = untuned or {}
    scored = {m: pd.concat([untuned[m], ev], ignore_index=True) if m in untuned else ev for m, ev in scored.items()}
    axis = "tatoeba" if as_list(fig2_tatoeba_langs) else "validation"
    fig2 = pd.concat([cal.relative_to_first(ev, [axis, "sts"]).assign(model=m) for m, ev in scored.items()])
    fig2["metric"] = fig2["metric"].map(FIG2_METRICS)
    return fig2


# ------------------------------------------------------------------ the control and Table 1
@dataclass
class Control:
    """XNLI Manual, its frozen features, and the control before / after fine-tuning."""

    data: XNLIManual
    features: dict              # model -> lang -> split -> (X, y), before fine-tuning
    control: pd.DataFrame       # state, C, source, targets (mean), targets / source x 100, model
    table1: pd.DataFrame        # compared with the paper


def run_control(P, setup: Setup, plain: NoFinetuning, calib: Calibration, run) -> Control:
    """Build XNLI Manual, encode its pair features, run the frozen-feature XNLI control before and after
    fine-tuning (in place of the paper's WikiANN NER), and compare Table 1.

    Records ``control_xnli_frozen``, ``table7`` (not run), ``table1``, ``table1_changes``,
    ``table1_changes_ci``.
    """
    data = xnli_manual(setup.xnli_langs, seed=P.seed, n_train=P.xnli_n_train, n_val=P.xnli_n_val,
                                n_test=P.xnli_n_test)
    feats = {m: transfer.encode_pair_features(e, data, layer=report.layer_for_xnli(m, plain.best, P.xnli_layer))
             for m, e in setup.all_encoders.items()}
    control_data = data.head("test", P.control_n_test)
    control_feats = {  # after fine-tuning, only what the control reads is encoded: English train, every test split
        m: (transfer.head_features(feats[m], "test", P.control_n_test),
            transfer.control_features(calib.encoders[m], control_data, "en",
                                      layer=report.layer_for_xnli(m, calib.best, P.xnli_layer)))
        for m in setup.models}
    control = pd.concat([transfer.control_before_after(b, a, "en", Cs=P.xnli_Cs, classifier=P.xnli_classifier,
                                                       seed=P.seed).assign(model=m)
                         for m, (b, a) in control_feats.items()], ignore_index=True)
    run.record("control_xnli_frozen", control, title="Control: frozen-feature XNLI zero-shot before/after "
               "fine-tuning", note="stands in for the paper's WikiANN NER control (Tables 1 and 7), which is not "
               "run here")
    run.not_run("table7", "Table 7: WikiANN NER (control)", "WikiANN is not available offline; "
                "replaced by a frozen-feature XNLI zero-shot control")
    table1 = cal.compare_counterparts(run, "table1", calib.table1, ["setup", "task"], setup.counterpart,
                                      title="Table 1: average CLSR and STS before/after fine-tuning",
                                      note="NER (WikiANN) and QA fine-tuning not run; see the XNLI control. "
                                           + calib.caption)
    run.record("table1_changes", calib.deltas, title="Change with sentence-embedding fine-tuning (Table 1)")
    run.record("table1_changes_ci", calib.change_ci, title="95% bootstrap interval of our changes (same "
               "sentences before and after, resampled together)")
    return Control(data=data, features=feats, control=control, table1=table1)


# ------------------------------------------------------------------ known answers
def run_known_answers(P, setup: Setup, plain: NoFinetuning, run) -> pd.DataFrame:
    """Checks whose answer is known before the run (:func:`report.known_answers`), recorded as
    ``known_answers``.

    Raises:
        AssertionError: naming the checks that failed (the chapter stops).
    """
    from xalign.data import sentdata

    pairs = sentdata.tatoeba_pairs(setup.tatoeba_langs[0])
    english = [pairs[i][1] for i in sample_rows(len(pairs), P.tatoeba_n, P.seed)]
    known = report.known_answers(setup.all_encoders, english, plain.best, paper_table(PAPER, "table8"),
                                 method=P.method)
    run.record("known_answers", known, title="Known-answer checks")
    if not known["ok"].all():
        raise AssertionError(f"known-answer checks failed: {known.loc[~known['ok'], 'check'].tolist()}")
    return known


def finish(calib: Calibration, run, xnli_method: str, xnli_classifier: str, tatoeba_n: int | None,
           compare_direction: str) -> None:
    """The run's notes (protocol, fine-tuning data, sizes, the corrected Table 5 labels, wall time); the
    arguments after ``run``: the chapter's parameters of those names."""
    import time

    run.notes += [
        f"Protocol for XNLI transfer: {xnli_method}"
        + (f" ({xnli_classifier} on frozen [u, v, |u-v|, u*v] features)" if xnli_method == "frozen" else ""),
        f"Fine-tuning data: {calib.n_nli[0]} SNLI dev+test entailment pairs, {calib.n_sts[0]} STS-B train pairs",
        f"Tatoeba pairs per language: {tatoeba_n or 'all'}; compared direction {compare_direction}",
        "Table 5 QA/SE labels corrected (paper prints them swapped; see table5.csv)",
        f"Wall time of the notebook body: {time.time() - run.started:.0f} s",
    ]
