"""Chapter 3's prose generated from its results: the evidence section, the headline, and the
sentences of the method that quote numbers.

Every function returns Markdown (or one sentence) and picks its wording from the numbers: a change
is called a rise or a fall only when its 95% interval excludes zero, "within sampling noise"
otherwise, and a number that has no interval is said to have none (no conclusion is drawn from it).
Comparisons with another model say so in words ("multilingual-e5-small vs the paper's LaBSE").
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from xalign.core import markup
from xalign.data.paper_tables import paper_table
from xalign.measures.verdicts import finite as _finite
from xalign.papers.calibrated2023 import calibrated as cal
from xalign.papers.calibrated2023 import report
from xalign.papers.calibrated2023.seed_spread import seed_change_phrase, seed_verdict
from xalign.papers.calibrated2023.wording import _list, change_phrase, ci_text, signed, verdict


# ------------------------------------------------------------------ sentences of the method
def counterparts_sentence(counterpart: dict, sentence_models: Sequence[str] = ()) -> str:
    """Which paper model each of our models is set beside, in words."""
    pairs = _list([f"{markup.code(m)} beside the paper's {markup.text(p)}" + ("" if cal.paper_label(m) == p else " (a different model)")
                   for m, p in counterpart.items()])
    extra = (f" {_list([f'{markup.code(m)}' for m in sentence_models])} has no counterpart in the paper: its numbers are "
             f"shown without the paper's.") if sentence_models else ""
    return f"Our numbers are compared model for model: {pairs or 'none of our models has a counterpart'}.{extra}"


def paper_gains(paper5: pd.DataFrame, before: str = "none", after: str = "sentence_embedding") -> str:
    """What the paper's Table 5 says the fine-tuning does to retrieval: each model's average change,
    the largest per-language gain and the languages that fall (from the paper's printed numbers)."""
    w = paper5[paper5.lang != "avg"].pivot_table(index=["model", "lang"], columns="setup", values="value",
                                                 sort=False)
    gain = (w[after] - w[before]).dropna()
    models = list(dict.fromkeys(gain.index.get_level_values("model")))
    means = _list([f"{markup.text(m)} {signed(gain[m].mean())}" for m in models])
    top = gain.idxmax()
    falls = []
    for m in models:
        down = gain[m][gain[m] < 0]
        if len(down) > 3:
            falls.append(f"{markup.text(m)} in {len(down)} of {len(gain[m])} languages")
        elif len(down):
            falls.append(f"{markup.text(m)} in {_list(list(down.index))}")
    text = (f"In the paper's Table 5, English sentence-embedding fine-tuning changes the average Tatoeba accuracy "
            f"by {means} points, with per-language gains up to {signed(gain.max())} ({top[0]}, {top[1]})")
    return text + (f"; some languages fall ({'; '.join(falls)})." if falls else "; no language falls.")


def finetune_runs(runs: dict) -> str:
    """What each fine-tuning run was: optimiser steps, batch size and training pairs (no timings)."""
    parts = []
    for m, r in runs.items():
        info = r.info
        batch = info.get("key", {}).get("config", {}).get("batch_size")
        parts.append(f"{markup.code(m)}: {info['steps']} optimiser steps" + (f" (batch {batch})" if batch else "")
                     + f" on {info['n_nli']:,} NLI and {info['n_sts']:,} STS-B pairs")
    return ("Fine-tuning run here (the paper: one epoch over AllNLI and several over STS-B, its Table 10): "
            + "; ".join(parts) + ".")


def interval_widths(t5: pd.DataFrame, pairs_per_language) -> str:
    """How wide the per-language Tatoeba intervals are (median and largest), and what that means."""
    w = (t5["ci_hi"] - t5["ci_lo"]).dropna()
    if w.empty:
        return "The Tatoeba accuracies of this run carry no intervals."
    return (f"Each Tatoeba accuracy carries a {report.CI} ({pairs_per_language} sentence pairs per language, "
            f"{report.N_BOOT} resamples of its sentences): {float(w.median()):.1f} points wide at the median, "
            f"{float(w.max()):.1f} at most. A difference from the paper smaller than that is sampling noise.")


# ------------------------------------------------------------------ the evidence
def retrieval_before(table1: pd.DataFrame) -> list[str]:
    """Our average Tatoeba accuracy without fine-tuning beside the paper's counterpart model."""
    out = []
    rows = table1[(table1.task == "CLSR") & (table1.setup == "none") & table1["ours"].notna()]
    for _, r in rows.iterrows():
        out.append(f"Without fine-tuning, {markup.text(r['ours_model'])} finds the translation of {r['ours']:.1f}% of Tatoeba "
                   f"sentences on average ({ci_text(r['ci_lo'], r['ci_hi'], sign=False)}); the paper's "
                   f"{markup.text(r['model'])} finds {r['paper']:.1f}% ({markup.text(r['ours_model'])} vs the paper's {markup.text(r['model'])}: "
                   f"two different models, so the difference is theirs, not a replication error).")
    return out


def calibration_effect(deltas: pd.DataFrame, change_ci: pd.DataFrame, changes: pd.DataFrame,
                       counterpart: dict, spread: dict | None = None) -> list[str]:
    """The paper's first claim: English sentence-embedding fine-tuning moves retrieval (and STS).

    Args:
        deltas: :func:`calibrated.finetuning_changes` (ours and the paper's, per model).
        change_ci: :func:`report.change_intervals`.
        changes: :func:`report.language_changes` (per language, with intervals).
        counterpart: our model -> the paper model compared with.
        spread: our model -> :class:`.seed_spread.SeedSpread` (None: the changes are worded by their
            intervals alone).
    """
    paper = deltas[deltas.source == "paper"].set_index("model")
    out = []
    if "change in CLSR" in paper:
        listed = _list([f"{markup.text(m)} {signed(v)}" for m, v in paper["change in CLSR"].dropna().items()])
        out.append(f"The paper's average retrieval changes with English sentence-embedding fine-tuning: {listed} "
                   f"points (its Table 1).")
    ours = deltas[deltas.source == "ours"].set_index("model")
    for m, r in ours.iterrows():
        ref = counterpart.get(m)
        parts = []
        for task, what in (("CLSR", "average Tatoeba retrieval"), ("STS", "STS 2017 (Spearman x 100)")):
            col = f"change in {task}"
            ci = change_ci[(change_ci.model == m) & (change_ci.task == task)]
            if col not in r or not _finite(r[col]):
                continue
            lo, hi = (ci.ci_lo.iloc[0], ci.ci_hi.iloc[0]) if len(ci) else (np.nan, np.nan)
            theirs = paper[col].get(ref) if ref in paper.index and col in paper else None
            sp = (spread or {}).get(m)
            seeds = sp.changes[task] if sp is not None and sp.available else None
            phrase = seed_change_phrase(r[col], lo, hi, seeds) if spread is not None else change_phrase(r[col], lo, hi)
            parts.append(f"{what} {phrase}"
                         + (f", where the paper's {markup.text(ref)} changes by {signed(theirs)}" if _finite(theirs) else ""))
        if parts:
            sp = (spread or {}).get(m)
            unknown = spread is not None and (sp is None or not sp.available)
            out.append(f"With the fine-tuning run here, {markup.text(m)}'s " + "; its ".join(parts) + "."
                       + (" No seed spread is available for this configuration, so whether these changes hold "
                          "across fine-tuning seeds is not known." if unknown else ""))
        per = changes[changes.model == m]
        if len(per):
            sp = (spread or {}).get(m)
            out.append(language_sentence(m, per, sp.languages if sp is not None and sp.available else None))
    return out


def language_sentence(model: str, per: pd.DataFrame, seeds: dict | None = None) -> str:
    """How many languages rise or fall beyond their own interval, and the extremes; with ``seeds``
    (language -> the change with each fine-tuning seed), how many of those hold across the seeds."""
    up = per[per.ci_lo > 0]
    down = per[per.ci_hi < 0]
    n = len(per)
    hi, lo = per.loc[per.change.idxmax()], per.loc[per.change.idxmin()]
    if signed(hi.change) == signed(lo.change):
        span = ("no language's accuracy changes" if signed(hi.change) == signed(0)
                else f"every language changes by {signed(hi.change)}")
    else:
        span = f"per-language changes run from {signed(lo.change)} ({lo.lang}) to {signed(hi.change)} ({hi.lang})"
    if up.empty and down.empty:
        tally = f"none of its {n} languages changes beyond its own 95% interval"
    else:
        bits = [f"{len(up)} rise" if len(up) else "", f"{len(down)} fall" if len(down) else ""]
        tally = f"of its {n} languages {' and '.join(b for b in bits if b)} beyond their own 95% interval"
        if len(down):
            tally += f" (falling: {_list(list(down.lang))})"
        if seeds is not None:
            moved = pd.concat([up, down])
            unstable = [r.lang for r in moved.itertuples()
                        if seed_verdict(seeds.get(r.lang, [])) != ("up" if r.ci_lo > 0 else "down")]
            n_moved, held = len(moved), len(moved) - len(unstable)
            tally += (f"; {held} of these {n_moved} move the same way with every fine-tuning seed by more than the "
                      f"seeds' spread" + (f", {len(unstable)} {'is' if len(unstable) == 1 else 'are'} unstable "
                                          f"across fine-tuning seeds ({_list(unstable)})" if unstable else ""))
    return f"For {markup.text(model)}, {span}; {tally}."


def _moves(delta) -> str:
    return "does not move" if signed(delta) == signed(0) else f"moves by {signed(delta)} points"


def checkpoint_facts(run, chosen: pd.Series, evaluated: pd.DataFrame) -> dict:
    """What decided one model's checkpoint choice, from its fine-tuning run and scored checkpoints.

    Returns:
        ``step`` (of the chosen checkpoint, None if unknown), ``steps`` (of the run), ``fraction``,
        ``queries`` (validation queries behind each score, None if not recorded), ``margin`` (queries
        by which the chosen checkpoint beats the next best, None with one checkpoint),
        ``final_validation``, ``final_sts`` (the last checkpoint minus the chosen one, points).
    """
    steps = {round(float(c["fraction"]), 6): int(c["step"]) for c in run.info.get("checkpoints", [])}
    c = evaluated.sort_values("fraction")
    queries = int(c["n_queries"].iloc[0]) if "n_queries" in c and _finite(c["n_queries"].iloc[0]) else None
    others = c[c["path"] != chosen["path"]]["validation"] if "path" in c else c["validation"].iloc[:0]
    margin = None
    if queries and len(others):
        margin = round((float(chosen["validation"]) - float(others.max())) * queries / 100)
    last = c.iloc[-1]
    return {"step": steps.get(round(float(chosen["fraction"]), 6)), "steps": int(run.info["steps"]),
            "fraction": float(chosen["fraction"]), "queries": queries, "margin": margin,
            "final_validation": float(last["validation"] - chosen["validation"]),
            "final_sts": float(last["sts"] - chosen["sts"])}


def checkpoint_caption(runs: dict, chosen: dict, checkpoints: dict) -> str:
    """The checkpoint table's caption: the chosen step, its queries and margin, the final checkpoint's change."""
    parts = []
    for m, r in runs.items():
        f = checkpoint_facts(r, chosen[m], checkpoints[m])
        step = f"step {f['step']} of {f['steps']}" if f["step"] is not None else f"{f['fraction']:.0%} of the steps"
        text = f"{markup.text(m)}: validation chose {step}"
        if f["queries"]:
            lead = {None: "", 0: ", tied with another checkpoint: the earliest is taken"}.get(
                f["margin"], f", ahead of the next checkpoint by {f['margin']} queries")
            text += f" ({f['queries']:,} validation queries{lead})"
        if f["fraction"] < 1:
            text += (f"; the final checkpoint: validation {signed(f['final_validation'])}, STS "
                     f"{signed(f['final_sts'])} points")
        parts.append(text)
    return "Every checkpoint, scored at the layer chosen before fine-tuning. " + "; ".join(parts) + "."


def checkpoint_sentence(runs: dict, chosen: dict, checkpoints: dict, spread: dict | None = None,
                        untuned: dict | None = None) -> list[str]:
    """Which checkpoint validation chose, on how many queries and by what margin, and how much the final
    checkpoint and the first-to-last run moved validation retrieval and STS (one run: no interval); with
    ``spread`` (model -> :class:`.seed_spread.SeedSpread`), the steps chosen with each measured seed; with
    ``untuned`` (model -> the untuned model scored like a checkpoint), its validation score beside the
    checkpoints' range, so that a rise from the first checkpoint is not read as a gain."""
    out = []
    for m, r in runs.items():
        f = checkpoint_facts(r, chosen[m], checkpoints[m])
        c = checkpoints[m].sort_values("fraction")
        text = (f"Validation chose {markup.text(m)}'s checkpoint at {f['fraction']:.0%} of the {f['steps']} optimiser steps"
                + (f" (step {f['step']})" if f["step"] is not None else ""))
        if f["queries"] and f["margin"] is not None:
            text += (f", on {f['queries']:,} validation queries, ahead of the next checkpoint by {f['margin']} "
                     f"quer{'y' if f['margin'] == 1 else 'ies'}"
                     + (" (a tie, broken by taking the earliest)" if f["margin"] == 0 else ""))
        if f["fraction"] < 1:
            text += (f"; the final checkpoint differs from it by {signed(f['final_validation'])} points on "
                     f"validation and {signed(f['final_sts'])} on STS")
        if len(c) > 1:
            text += (f"; from the first checkpoint to the last, validation retrieval "
                     f"{_moves(c['validation'].iloc[-1] - c['validation'].iloc[0])} and STS "
                     f"{_moves(c['sts'].iloc[-1] - c['sts'].iloc[0])} (one run, no interval)")
        u = (untuned or {}).get(m)
        if u is not None and len(u):
            lo, hi = f"{c['validation'].min():.1f}", f"{c['validation'].max():.1f}"
            text += (f"; before fine-tuning the same validation queries score {float(u['validation'].iloc[0]):.1f}%, "
                     f"the checkpoints {lo if lo == hi else f'{lo}-{hi}'}%")
        sp = (spread or {}).get(m)
        if sp is not None and sp.available:
            text += (f"; with fine-tuning seeds {_list([str(x) for x in sp.seeds])} validation chose steps "
                     f"{_list([str(x) for x in sp.chosen_steps])}")
        out.append(text + ".")
    return out


def control_sentence(control: pd.DataFrame) -> list[str]:
    """The frozen-feature XNLI control before / after fine-tuning: the target/English ratio and its change,
    worded by the change's paired-bootstrap interval (or said to have none)."""
    out = []
    for m, g in control.groupby("model", sort=False):
        s = g.set_index("state")
        if not {"before", "after"} <= set(s.index):
            continue
        b, a = s.loc["before"], s.loc["after"]
        rb, ra = b["targets / source x 100"], a["targets / source x 100"]
        lo, hi = (a.get("change_ci_lo"), a.get("change_ci_hi"))
        text = (f"In the frozen-feature XNLI control, {markup.text(m)}'s target-language accuracy is {rb:.1f}% of its English "
                f"accuracy before fine-tuning ({ci_text(b.get('ci_lo'), b.get('ci_hi'), sign=False)}) and "
                f"{ra:.1f}% after ({ci_text(a.get('ci_lo'), a.get('ci_hi'), sign=False)}): the ratio "
                f"{change_phrase(ra - rb, lo, hi)}")
        if (v := verdict(lo, hi)) in ("noise", "exact"):
            text += "; this control detects no change in cross-lingual transfer beyond sampling noise."
        elif v in ("up", "down"):
            text += "; the fine-tuning changed how well the English classifier transfers."
        else:
            text += "; without an interval, this run does not say whether cross-lingual transfer moved."
        out.append(text)
    return out


def rate_intervals_sentence(blocks: pd.DataFrame, models: Sequence[str], n_test) -> list[str]:
    """How wide the per-language transfer-rate intervals are (median and widest), per model."""
    out = []
    for m in models:
        r = blocks[(blocks.model == m) & (blocks.block == "transfer_rate") & (blocks.lang != "avg")]
        w = (r["ci_hi"] - r["ci_lo"]).dropna()
        if w.empty:
            continue
        out.append(f"{markup.text(m)}'s per-language transfer rates rest on {n_test or 'all'} test rows each: their 95% "
                   f"intervals are {float(w.median()):.0f} points wide at the median and {float(w.max()):.0f} at "
                   f"most (the error bars of the transfer-rate panel under 'Correlations across languages'), so "
                   f"differences between single languages smaller than that are not established.")
    return out


def _avg(blocks: pd.DataFrame, model: str, block: str) -> pd.Series | None:
    r = blocks[(blocks.model == model) & (blocks.block == block) & (blocks.lang == "avg")]
    return r.iloc[0] if len(r) else None


def transfer_sentences(blocks: pd.DataFrame, models: Sequence[str], protocol: str) -> list[str]:
    """Zero-shot, training on all languages (human translations) and the transfer rate, averaged over
    the target languages, with intervals; whether zero-shot falls short of training on all languages."""
    out = []
    for m in models:
        zs, tta, rate = (_avg(blocks, m, b) for b in ("zero_shot", "translate_train_all", "transfer_rate"))
        if zs is None or tta is None or rate is None:
            continue
        v = verdict(rate.ci_lo - 100, rate.ci_hi - 100)
        reading = {"down": "zero-shot transfer falls short of training on every language's data",
                   "up": "zero-shot transfer beats training on every language's data",
                   "noise": "zero-shot transfer matches training on every language's data within sampling noise",
                   }.get(v, "no interval is computed for the rate")
        out.append(f"{markup.text(m)} ({protocol}): zero-shot from English reaches {zs.value:.1f}% on average over the target "
                   f"languages ({ci_text(zs.ci_lo, zs.ci_hi, sign=False)}); trained on all languages' "
                   f"human-translated training splits, {tta.value:.1f}% ({ci_text(tta.ci_lo, tta.ci_hi, sign=False)}); "
                   f"transfer rate {rate.value:.1f}% ({ci_text(rate.ci_lo, rate.ci_hi, sign=False)}): {reading}.")
    if out:
        out.append("The paper trains on machine-translated XNLI training sets and fine-tunes the whole encoder, "
                   "so its zero-shot, translate-train-all and transfer-rate numbers are no like-for-like reference "
                   "for these.")
    return out


def correlation_sentence(across: pd.DataFrame) -> list[str]:
    """Per model, which block zero-shot accuracy follows across languages; an ordering is claimed only
    when the two correlations' intervals (if computed) do not overlap."""
    out = []
    for m, g in across.groupby("model", sort=False):
        r = g.set_index("block")
        a, b = "corr_zero_shot_translate_train_all", "corr_zero_shot_calibrated"
        if not {a, b} <= set(r.index) or not _finite(r.loc[a, "value"], r.loc[b, "value"]):
            continue
        n = int(r["n"].max())
        ra, rb = r.loc[a], r.loc[b]
        has_ci = "ci_lo" in r and _finite(ra.get("ci_lo"), ra.get("ci_hi"), rb.get("ci_lo"), rb.get("ci_hi"))
        text = (f"Across {markup.text(m)}'s {n} target languages, zero-shot accuracy correlates with accuracy after training on "
                f"all languages at r = {ra.value / 100:.2f} and with calibrated retrieval at r = {rb.value / 100:.2f}")
        if has_ci and (ra.ci_lo > rb.ci_hi or rb.ci_lo > ra.ci_hi):
            stronger = "training on all languages" if ra.value > rb.value else "calibrated retrieval"
            text += f"; the correlation with {stronger} is the stronger one beyond their 95% intervals."
        elif has_ci:
            text += "; their 95% intervals overlap, so neither is shown to be the stronger."
        else:
            text += (f"; no interval is computed for these correlations over {n} languages, so which is stronger "
                     f"is not established (the paper correlates across its four models, which needs the paper "
                     f"profile).")
        out.append(text)
    return out


def urdu_sentence(urdu_rows: pd.DataFrame | None, counterpart: dict, paper2: pd.DataFrame | None = None) -> list[str]:
    """Table 2's transfer gap (Urdu minus the mean of the other languages) in words chosen by its interval."""
    if urdu_rows is None:
        return []
    out = []
    for m, g in urdu_rows[urdu_rows.lang == "gap"].groupby("model", sort=False):
        r = g.iloc[0]
        v = verdict(r.ci_lo, r.ci_hi)
        reading = {"down": "the other languages beat the source language, a negative transfer gap",
                   "up": "Urdu itself scores above the other languages, a positive transfer gap",
                   "noise": "the transfer gap is within sampling noise",
                   "exact": "the transfer gap is exactly zero",
                   }.get(v, "no interval is computed for the gap")
        theirs = ""
        ref = counterpart.get(m)
        if paper2 is not None and ref:
            p = paper2[(paper2.data == "xnli_manual") & (paper2.model == ref) & (paper2.lang == "gap")]
            if len(p):
                theirs = f"; the paper's {markup.text(ref)} on XNLI Manual: {signed(p.value.iloc[0])}"
        out.append(f"Trained on Urdu, {markup.text(m)}: {reading} ({signed(r.value)} points, {ci_text(r.ci_lo, r.ci_hi)}"
                   f"{theirs}).")
    return out


def outside_sentence(compared: dict[str, pd.DataFrame]) -> list[str]:
    """How many of the paper's cells lie outside our intervals, per compared table, named by model pair."""
    parts = []
    for table, merged in compared.items():
        both = merged.dropna(subset=["paper", "ours"])
        with_ci = both.dropna(subset=["ci_lo", "ci_hi"]) if "ci_lo" in both else both.iloc[0:0]
        if with_ci.empty:
            continue
        k = len(report.paper_outside_ci(with_ci))
        pairs = with_ci[["ours_model", "model"]].drop_duplicates()
        who = _list([f"{markup.text(o)} vs the paper's {markup.text(p)}" for o, p in pairs.itertuples(index=False, name=None)])
        parts.append(f"{table.replace('table', 'Table ')}: {k} of {len(with_ci)} ({who})")
    if not parts:
        return []
    return ["The paper's cells outside our 95% intervals: " + "; ".join(parts) + ". Where the models differ, such "
            "a count measures the models' difference, not a replication error."]


def evidence(setup, plain, calib, control, xnli, compare_direction: str, seed: int, xnli_method: str,
             xnli_n_test: int | None, paper2: pd.DataFrame | None = None) -> str:
    """The chapter's "What the evidence supports" section as a Markdown bullet list (no heading).

    Args:
        setup, plain, calib, control, xnli: what the ``run_*`` functions returned.
        compare_direction, seed, xnli_method, xnli_n_test: the chapter's parameters of those names.
        paper2: the paper's Table 2, for the Urdu gap's reference (default: the package's transcription).
    """
    paper2 = paper_table("calibrated2023", "table2") if paper2 is None else paper2
    t5_dir = calib.t5[calib.t5.direction == compare_direction]
    changes = report.language_changes(t5_dir, seed=seed)
    protocol = ("a logistic regression on frozen sentence features" if xnli_method == "frozen"
                else "full fine-tuning")
    items = [*retrieval_before(control.table1),
             *calibration_effect(calib.deltas, calib.change_ci, changes, setup.counterpart,
                                 getattr(calib, "seed_spread", None)),
             *checkpoint_sentence(calib.runs, calib.chosen, calib.checkpoints, getattr(calib, "seed_spread", None),
                                 getattr(calib, "untuned", None)),
             *control_sentence(control.control),
             *transfer_sentences(xnli.blocks, setup.xnli_models, protocol),
             *rate_intervals_sentence(xnli.blocks, setup.xnli_models, xnli_n_test),
             *correlation_sentence(xnli.across),
             *urdu_sentence(xnli.urdu_rows, setup.counterpart, paper2),
             *outside_sentence({"table5": calib.table5, "table6": calib.table6})]
    return "\n".join(f"- {s}" for s in items)


def headline(setup, calib) -> str:
    """One sentence with one number and its interval: what English sentence-embedding fine-tuning does
    to the first model's average Tatoeba retrieval, beside the paper's counterpart; a rise or fall the
    measured fine-tuning seeds do not all show (:func:`.seed_spread.seed_verdict`) is called unstable."""
    m = setup.models[0]
    ours = calib.deltas[(calib.deltas.source == "ours") & (calib.deltas.model == m)]
    ci = calib.change_ci[(calib.change_ci.model == m) & (calib.change_ci.task == "CLSR")]
    if ours.empty or "change in CLSR" not in ours:
        return f"No retrieval change could be measured for {markup.text(m)} in this run."
    value = float(ours["change in CLSR"].iloc[0])
    lo, hi = (float(ci.ci_lo.iloc[0]), float(ci.ci_hi.iloc[0])) if len(ci) else (np.nan, np.nan)
    ref = setup.counterpart.get(m)
    paper = calib.deltas[(calib.deltas.source == "paper") & (calib.deltas.model == ref)]
    theirs = f"; the paper's {markup.text(ref)}: {signed(paper['change in CLSR'].iloc[0])}" if len(paper) else ""
    v = verdict(lo, hi)
    if v == "exact":
        return (f"English sentence-embedding fine-tuning leaves {markup.text(m)}'s average Tatoeba retrieval exactly where it "
                f"was: no sentence changes its nearest neighbour (0.0 points, {ci_text(lo, hi)}){theirs}.")
    sp = getattr(calib, "seed_spread", {}).get(m)
    unstable = v in ("up", "down") and sp is not None and sp.available and seed_verdict(sp.changes["CLSR"]) != v
    verb = {"up": "raises", "down": "lowers"}.get(v, "changes") if not unstable else "changes"
    tail = (" — within sampling noise" if v == "noise" else
            f" — unstable across {len(sp.seeds)} fine-tuning seeds" if unstable else "")
    return (f"English sentence-embedding fine-tuning {verb} {markup.text(m)}'s average Tatoeba retrieval by {signed(value)} "
            f"points ({ci_text(lo, hi)}){tail}{theirs}.")

