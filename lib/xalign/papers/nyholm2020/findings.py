"""Chapter 5's closing section ("What the evidence supports") and headline, generated from the results.

Each function takes the chapter's frames and returns Markdown; a claim is stated only where the 95 %
bootstrap intervals over the test items support it, otherwise it is called unstable, and classifiers
that predict one class are named and kept out of any agreement with the thesis.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from xalign.core import markup
from xalign.measures.interval_text import ci
from xalign.papers.nyholm2020.gap import gap_summary
from xalign.papers.nyholm2020.report import _rng, diagnosis_summary, sweep_summary, xed_summary
from xalign.papers.nyholm2020.wording import (
    change_phrase,
    every_seed,
    held_by_seeds,
    points,
    run_collapsed,
    seeds_collapsed_note,
    separated,
    some_of,
    verb,
)


def _step_rows(ladder: pd.DataFrame, step: str) -> pd.DataFrame:
    return ladder[ladder["step"].str[0] == step].set_index(["task", "probe"])


def step_effect(ladder: pd.DataFrame, before: str, after: str, tasks_prefix: str = "XNLI") -> dict:
    """The effect of one diagnosis step (``before`` -> ``after``, step letters) on every task and probe.

    Returns:
        ``{"rows": [(task, probe, acc before, acc after, separation, both collapsed, note)], "verdict": ...}``
        where "both collapsed" means every seed collapsed at both steps (judged per seed, never "some
        seed"), the note counts the seeds that collapse in a run where others learn, and verdict is
        ``"up"`` / ``"down"`` (every other run moves that way with intervals and, with several seeds, seed
        ranges separated by more than the noise margin), ``"none"`` (no run does) or ``"mixed"``.
    """
    a, b = _step_rows(ladder, before), _step_rows(ladder, after)
    rows = []
    for key in [k for k in a.index if k in b.index and str(k[0]).startswith(tasks_prefix)]:
        ra, rb = a.loc[key], b.loc[key]
        sep = held_by_seeds(separated((ra["acc"], ra["acc_lo"], ra["acc_hi"]),
                                      (rb["acc"], rb["acc_lo"], rb["acc_hi"])), ra, rb)
        both = run_collapsed(ra) and run_collapsed(rb)
        note = "; ".join(n for n in (seeds_collapsed_note(ra, before), seeds_collapsed_note(rb, after)) if n)
        rows.append((key[0], key[1], float(ra["acc"]), float(rb["acc"]), sep, both, note))
    live = [r for r in rows if not r[5]]
    seps = {r[4] for r in live}
    verdict = ("none" if seps <= {0} else "up" if seps == {1} else "down" if seps == {-1} else "mixed")
    return {"rows": rows, "verdict": verdict}


def _ladder_seed_count(ladder: pd.DataFrame, runs: list[tuple[str, str]], steps: tuple[str, ...]) -> int:
    """How many seeds the ladder's rows of ``runs`` ((task, probe) pairs) at ``steps`` (letters) were trained
    with: the fewest over those rows (1 without an ``n_seeds`` column). Steps A-D and E-F can train on
    different seed sets (``thesis_seeds``, ``seeds``), so the count comes from the rows a sentence describes."""
    if "n_seeds" not in ladder:
        return 1
    rows = ladder[ladder["step"].str[0].isin(steps)].set_index(["task", "probe"])
    counts = rows.loc[rows.index.isin(runs), "n_seeds"].dropna()
    return int(counts.min()) if len(counts) else 1


def utf8_step_summary(ladder: pd.DataFrame) -> str:
    """Finding: what reading XNLI as UTF-8 instead of Latin-1 (step A -> B) does, per language and probe."""
    eff = step_effect(ladder, "A", "B")
    rows = eff["rows"]
    if not rows:
        return ""
    live = [r for r in rows if not r[5]]
    dead = [r for r in rows if r[5]]
    lang = lambda t: t.split(" ", 1)[1]
    parts = []
    by_probe: dict[str, list] = {}
    for r in live:
        by_probe.setdefault(r[1], []).append(r)
    moves = "; ".join(f"{probe} " + ", ".join(f"{lang(r[0])} {r[2]:.1f} -> {r[3]:.1f}" + (f" ({r[6]})" if r[6] else "")
                                              for r in rs) for probe, rs in by_probe.items())
    if dead:
        probes = sorted({r[1] for r in dead})
        every = len(dead) == sum(1 for r in rows if r[1] in probes)
        n_dead_lang = len({r[0] for r in dead})
        where_dead = ("" if n_dead_lang == 1 and every else " in every language run" if every
                      else " in " + ", ".join(lang(r[0]) for r in dead))
        n_seeds = _ladder_seed_count(ladder, [(r[0], r[1]) for r in dead], ("A", "B"))
        every_seed_words = f", in every one of {n_seeds} seeds" if n_seeds > 1 else ""
        accs = sorted({round(x, 1) for r in dead for x in r[2:4]})
        acc = f"{accs[0]:.1f} %" if len(accs) == 1 else f"{accs[0]:.1f}-{accs[-1]:.1f} %"
        parts.append(f"{' and '.join(probes)} predict{'s' if len(probes) == 1 else ''} one class at both steps"
                     f"{where_dead}{every_seed_words} ({acc})")
    n_lang = len({r[0] for r in rows})
    where = "the one language run" if n_lang == 1 else f"the {n_lang} languages run"
    if not live:
        head = f"**Reading XNLI as UTF-8 instead of Latin-1** (diagnosis step A -> B) cannot be judged in {where}: "
        return head + "; ".join(parts) + "."
    seeded = "acc_min" in ladder.columns
    both = " and seed ranges" if seeded else ""
    verdict = {"none": ("shows no effect beyond the bootstrap intervals and in every seed" if seeded
                        else "shows no effect beyond the bootstrap intervals"),
               "mixed": "shows no consistent effect",
               "up": f"raises accuracy, with separate intervals{both}, in every run that learns",
               "down": f"lowers accuracy, with separate intervals{both}, in every run that learns"}[eff["verdict"]]
    if eff["verdict"] in ("none", "mixed") and len({np.sign(round(r[3] - r[2], 1)) for r in live}) > 1:
        verdict = "shows no consistent effect (the accuracy moves both ways)"
    return (f"**Reading XNLI as UTF-8 instead of Latin-1** (diagnosis step A -> B, the direct test of the "
            f"input-path explanation) {verdict} in {where}: {moves}" + ("; " + "; ".join(parts) if parts else "")
            + ".")


def collapse_summary(t4: pd.DataFrame, model: str = "multilingual-e5-small") -> str:
    """Finding: the thesis-configuration runs that predict one class, and the agreement with the thesis
    over the runs that do not (collapsed classifiers are left out of the agreement). With several seeds a
    run is collapsed when any seed's classifier is (``collapsed``), and the text says in how many seeds."""
    ours = t4.dropna(subset=["ours"])
    if not len(ours):
        return ""
    flag = lambda d: d["collapsed"].eq(True) if "collapsed" in d else \
        d["majority share"].map(lambda x: run_collapsed({"pred_majority_share": x}))
    coll = ours[flag(ours)]
    parts = []
    for clf, g in ours.groupby("classifier"):
        c = g[flag(g)]
        if not len(c):
            continue
        exact = bool((c["majority share"] >= 100 - 1e-9).all())
        one = "one class for every test pair" if exact else "one class for (nearly) every test pair"
        runs = verb(len(g), "run", "runs")
        does = verb(len(c), "predicts", "predict") if len(c) < len(g) or len(g) == 1 else "predict"
        where = "" if len(c) == len(g) else f" ({', '.join(sorted(c['lang']))})"
        parts.append(f"{some_of(len(c), len(g))} thesis-configuration {clf} {runs} {does} {one}{where}"
                     + _seed_count(c))
    text = "**Collapsed classifiers.** On XNLI, " + "; ".join(parts) + "." if parts else \
        "**Collapsed classifiers.** No thesis-configuration run on XNLI predicts one class for every test pair."
    partly = [f"{r['lang']} {r['classifier']} ({seeds_collapsed_note(_seed_row(r))})" for _, r in ours.iterrows()
              if not flag(pd.DataFrame([r])).iloc[0] and seeds_collapsed_note(_seed_row(r))]
    if partly:
        text += (f" In {verb(len(partly), 'one run', f'{len(partly)} runs')} only some seeds predict one class: "
                 + "; ".join(partly) + "; such a run's mean counts its collapsed seeds at chance.")
    live = ours[~flag(ours) & ours["paper"].notna()]
    gaps = live["diff"].abs()
    spread = (f"{points(gaps.iloc[0])}" if len(live) == 1 else
              f"a median {gaps.median():.1f} points (largest {gaps.max():.1f})" if len(live) else "")
    if len(coll) and len(live):
        who = "the one run that learns" if len(live) == 1 else f"the {len(live)} runs that learn"
        text += (f" Leaving those out, {who} ({model_phrase(model)}) {verb(len(live), 'differs', 'differ')} from the "
                 f"thesis by {spread}.")
    elif len(coll):
        text += " No run is left to compare with the thesis' numbers: agreement at chance says nothing."
    elif len(live):
        who = "The one run" if len(live) == 1 else f"The {len(live)} runs"
        text += f" {who} ({model_phrase(model)}) {verb(len(live), 'differs', 'differ')} from the thesis by {spread}."
    return text


def _seed_row(r) -> dict:
    """A Table 4 row's seed counts under the names :func:`.wording.seeds_collapsed_note` reads."""
    get = lambda k: r[k] if k in r else float("nan")
    return {"collapsed_seeds": get("collapsed seeds"), "n_seeds": get("seeds"),
            "learning_seeds": get("learning seeds"), "acc_learning": get("thesis configuration, seeds that learn (%)")}


def _seed_count(c: pd.DataFrame) -> str:
    """ " (in every one of its 3 seeds)" / " (in 1 to 3 of its 3 seeds)": how many seeds collapse, from
    ``collapsed seeds`` and ``seeds``; empty with one seed or without the columns."""
    if "collapsed seeds" not in c or "seeds" not in c or not len(c) or int(c["seeds"].max()) < 2:
        return ""
    k, n = c["collapsed seeds"].astype(int), int(c["seeds"].max())
    if (k == n).all():
        return f" (in every one of its {n} seeds)"
    return f" (in {k.min()} to {k.max()} of its {n} seeds)" if k.min() != k.max() else f" (in {k.min()} of its {n} seeds)"


def model_phrase(model: str = "multilingual-e5-small") -> str:
    """What an "ours vs thesis" difference compares, in words."""
    return f"{markup.text(model)} features in the thesis configuration vs the thesis' M-BERT"


def probe_step_summary(ladder: pd.DataFrame) -> str:
    """Finding: the classifier settings (step D, the thesis' probes, -> E, ours, same features)."""
    eff = step_effect(ladder, "D", "E", tasks_prefix="")
    if not eff["rows"]:
        return ""
    best = {}
    for task, g in ladder.groupby("task", sort=False):
        sub = g.assign(s=g["step"].str[0])
        d, e = sub[sub["s"] == "D"], sub[sub["s"] == "E"]
        if len(d) and len(e):
            bd, be = d.loc[d["acc"].idxmax()], e.loc[e["acc"].idxmax()]
            best[task] = (bd, be, held_by_seeds(separated((bd["acc"], bd["acc_lo"], bd["acc_hi"]),
                                                          (be["acc"], be["acc_lo"], be["acc_hi"])), bd, be))
    up = [t for t, v in best.items() if v[2] == 1]
    sd = " and in every seed" if "acc_min" in ladder.columns else ""
    nums = "; ".join(f"{t} {v[0]['acc']:.1f} -> {v[1]['acc']:.1f} %" for t, v in best.items())
    if len(up) == len(best):
        claim = (f"raise the best accuracy in all {len(best)} tasks, each time beyond the bootstrap interval{sd}"
                 if len(best) > 1 else f"raise the best accuracy beyond the bootstrap interval{sd}")
    elif up:
        claim = (f"raise the best accuracy beyond the bootstrap interval{sd} in {len(up)} of {len(best)} tasks "
                 f"({', '.join(up)}); elsewhere the change is within the noise (unstable)")
    else:
        claim = f"do not move the best accuracy beyond the bootstrap interval{sd} in any task (unstable)"
    return (f"**Classifier settings** (diagnosis step D -> E: the thesis' unregularised probes vs ours, on the same "
            f"mean-pooled features; best probe of each step): ours {claim}: {nums}.")


def repaired_summary(t4: pd.DataFrame) -> str:
    """Finding: the repaired pipeline vs the thesis configuration, same model and test pairs."""
    t = t4.dropna(subset=["ours", "repaired"])
    if not len(t):
        return ""
    sep = [separated((r["ours"], r["ours CI lo"], r["ours CI hi"]), (r["repaired"], r["repaired CI lo"],
                                                                   r["repaired CI hi"]))
           if every_seed(r, "ours", "repaired") or every_seed(r, "repaired", "ours") else 0
           for _, r in t.iterrows()]  # a difference that changes with the seeds is not separated
    n_up = sum(s == 1 for s in sep)
    gain = t["repaired"] - t["ours"]
    if n_up == len(t):
        claim = f"lies above the thesis configuration in all {len(t)} runs, with separate intervals{_for_seeds(t)}"
    elif n_up:
        claim = (f"lies above the thesis configuration with separate intervals{_for_seeds(t)} in {n_up} of "
                 f"{len(t)} runs; in the others the difference is unstable")
    else:
        claim = "is not separated from the thesis configuration in any run (unstable)"
    return (f"**The repaired pipeline** (raw UTF-8 text, the sub-word tokenizer, mean pooling, our probes; same "
            f"model and test pairs) {claim}: it {change_phrase(gain)} ({_rng(t['repaired'])} % against "
            f"{_rng(t['ours'])} %).")


def _for_seeds(t: pd.DataFrame) -> str:
    """ " and every seed above every seed" when the rows carry a seed range, else empty."""
    return " and every seed above every seed" if "repaired seed min" in t and "ours seed max" in t else ""


def correlation_finding(corr: pd.DataFrame) -> str:
    """Finding: the thesis' accuracy against the unknown-token share, worded by its p-values."""
    al = corr[corr["languages"] == "all thesis languages"].dropna(subset=["spearman_rho"])
    if not len(al):
        return ""
    sig = al[al["p_value"] < 0.05]
    nums = "; ".join(f"{x.classifier} rho = {x.spearman_rho:.2f} (n = {x.n}, p = {x.p_value:.2g})"
                     for x in al.itertuples())
    if len(sig) == len(al):
        head = "falls as more of a language's words are lost on the inferred input path"
    elif len(sig):
        head = "falls with the share of lost words for " + ", ".join(sig["classifier"]) + " only"
    else:
        head = "shows no correlation with the share of lost words that passes p < 0.05"
    return (f"**The input path (our inference from SentEval's code; the thesis does not say so).** The thesis' "
            f"XNLI accuracy {head}: {nums}, with e5's tokenizer standing in for M-BERT's; much of it is the split "
            f"between the Latin-script languages and the others (the scatter under Table 4).")


def thesis_range_note(paper_t5: pd.DataFrame, stated: tuple[float, float] = (25.2, 34.4)) -> str:
    """The thesis' own inconsistency: the XED range its conclusion states vs the range of its Table 5."""
    lo, hi = float(paper_t5["value"].min()), float(paper_t5["value"].max())
    if (round(lo, 1), round(hi, 1)) == stated:
        return ""
    return (f"A small inconsistency in the thesis itself: its conclusion gives the XED range as "
            f"{stated[0]:.1f}-{stated[1]:.1f} % while its Table 5 reports {lo:.1f}-{hi:.1f} %.")


def evidence(t4: pd.DataFrame, t5: pd.DataFrame, ladder: pd.DataFrame, corr: pd.DataFrame,
             sweep: pd.DataFrame, best_layer: pd.DataFrame, cbow: Mapping[str, float],
             unk: Mapping[str, float], paper_t4: pd.DataFrame, paper_t5: pd.DataFrame,
             model: str = "multilingual-e5-small", mlp_lr_gap: pd.DataFrame | None = None) -> str:
    """The chapter's closing section as Markdown: one numbered finding per line, every number from the
    results, each claim stated only where the bootstrap intervals support it (else called unstable);
    ``mlp_lr_gap`` (:func:`.gap.mlp_lr_gap`) adds the paired MLP-LR comparison."""
    items = [correlation_finding(corr), utf8_step_summary(ladder), diagnosis_summary(ladder, unk, paper_t4,
                                                                                      with_steps=False),
             collapse_summary(t4, model), probe_step_summary(ladder), repaired_summary(t4),
             gap_summary(mlp_lr_gap) if mlp_lr_gap is not None else "",
             "**Pooling and layer.** " + sweep_summary(sweep, best_layer, cbow),
             "**XED.** " + xed_summary(t5), thesis_range_note(paper_t5)]
    return "\n".join(f"{i}. {text}" for i, text in enumerate([t for t in items if t], start=1))


def headline(t4: pd.DataFrame, model: str, classifier: str = "LR") -> str:
    """The chapter in one sentence: the repaired pipeline's XNLI accuracy (English where run) with its
    interval, next to the thesis configuration with the same model and the thesis' M-BERT number."""
    t = t4.dropna(subset=["repaired"])
    t = t[t["classifier"] == classifier]
    if not len(t):
        return ""
    r = t[t["lang"] == "en"].iloc[0] if (t["lang"] == "en").any() else t.iloc[0]
    paper = "" if pd.isna(r.get("paper")) else f", against the thesis' {r['paper']:.1f} % with M-BERT"
    seeds = (f" (mean over training seeds, which give {r['repaired seed min']:.1f}–{r['repaired seed max']:.1f} %)"
             if "repaired seed min" in r and r["repaired seed min"] != r["repaired seed max"] else "")
    return (f"Frozen {markup.text(model)} sentence vectors with a cross-validated logistic regression reach "
            f"{r['repaired']:.1f} % ({ci(r['repaired CI lo'], r['repaired CI hi'])}) on XNLI "
            f"{r['lang']}{paper}{seeds}.")
