"""Table assembly for chapter 5 (Nyholm 2020): long probe results -> the thesis' tables.

Every accuracy measured on a sample of test items comes with its 95 %
bootstrap interval over those items (``<column> CI lo`` / ``<column> CI hi``,
from the probe engine); where a probe was trained with several seeds the
accuracy is the mean over seeds and its seed range sits beside it
(``<column> seed min`` / ``<column> seed max``,
:func:`xalign.measures.probe_seeds.seed_scores`). The thesis-configuration
runs carry ``collapsed`` (every seed predicts one class for every test item)
and ``collapsed seeds`` (how many); :func:`with_intervals` folds intervals and
seed ranges into readable columns for display.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from xalign.data.scripts import scripts_of
from xalign.measures.interval_text import with_interval
from xalign.papers.nyholm2020 import inputs as CH
from xalign.papers.nyholm2020.wording import (
    COLLAPSED_SHARE,
    NOISE_POINTS,
    REPAIRED_NOISE_POINTS,
    change_phrase,
    runs_with,
)

KEYS = ["lang", "classifier"]


def wide(df: pd.DataFrame, name: str, value: str = "acc") -> pd.Series:
    """One result column indexed by (lang, classifier): ``df[value]`` renamed ``name``."""
    return df.rename(columns={"probe": "classifier"}).set_index(KEYS)[value].rename(name)


def with_ci(df: pd.DataFrame, name: str, ci: str | None = None) -> list[pd.Series]:
    """The accuracy column ``name``, its interval bounds ``<ci> CI lo`` / ``<ci> CI hi`` and, where the
    runs had several seeds (``acc_min`` / ``acc_max``), its seed range ``<ci> seed min`` / ``<ci> seed max``
    (``ci``: ``name``, or ``"ours"`` for the ``value`` column that :meth:`ChapterRun.compare` renames ``ours``)."""
    ci = ci or name
    cols = [wide(df, name), wide(df, f"{ci} CI lo", "acc_lo"), wide(df, f"{ci} CI hi", "acc_hi")]
    if "acc_min" in df.columns:
        cols += [wide(df, f"{ci} seed min", "acc_min"), wide(df, f"{ci} seed max", "acc_max")]
    return cols


def collapse_flags(df: pd.DataFrame) -> list[pd.Series]:
    """``collapsed`` (bool: every seed's classifier predicts one class for (nearly) every test item),
    ``collapsed seeds`` (how many seeds of ``n_seeds``) and, where scored, ``learning seeds`` and ``ours
    (seeds that learn)`` (their mean accuracy), from seed-scored runs; none without them."""
    if "collapsed" not in df.columns:
        return []
    cols = [wide(df, "collapsed", "collapsed").astype(bool), wide(df, "collapsed seeds", "collapsed_seeds"),
            wide(df, "seeds", "n_seeds")]
    if "acc_learning" in df.columns:
        cols += [wide(df, "learning seeds", "learning_seeds"), wide(df, "thesis configuration, seeds that learn (%)", "acc_learning")]
    return cols


def table4(res_thesis, res_fixed, res_zero, res_cbow, unk_latin1: Mapping[str, float]) -> pd.DataFrame:
    """Table 4 (XNLI per language): the thesis configuration (``value``), the repaired pipeline,
    zero-shot from English and CBOW, each with its interval; plus the unknown-token share (%)."""
    cols = [*with_ci(res_thesis, "value", "ours"), wide(res_thesis, "thesis macro-F1", "macro_f1"),
            wide(res_thesis, "majority share", "pred_majority_share"), *collapse_flags(res_thesis),
            wide(res_thesis, "thesis early stopping", "early_stopping"),
            *with_ci(res_fixed, "repaired"), *with_ci(res_cbow, "CBOW")]
    if len(res_zero):
        cols += with_ci(res_zero, "repaired zero-shot from en")
    out = pd.concat(cols, axis=1).reset_index()
    out["UNK % (thesis path)"] = out["lang"].map(lambda lang: 100 * unk_latin1.get(lang, np.nan))
    return out


def table5(xres_thesis, xres_fixed, xres_cbow, majority: Mapping[str, float]) -> pd.DataFrame:
    """Table 5 (XED): thesis configuration and repaired pipeline with intervals, macro-F1, CBOW,
    and the majority-class accuracy of each test split."""
    out = pd.concat([*with_ci(xres_thesis, "value", "ours"), wide(xres_thesis, "thesis macro-F1", "macro_f1"),
                     wide(xres_thesis, "majority share", "pred_majority_share"), *collapse_flags(xres_thesis),
                     *with_ci(xres_fixed, "repaired"), wide(xres_fixed, "repaired macro-F1", "macro_f1"),
                     *with_ci(xres_cbow, "CBOW")], axis=1).reset_index()
    out["majority-class accuracy"] = out["lang"].map(majority)
    return out


SELECTION_ON_TEST = "best of MLP/LR by test accuracy (selection on test, as in the thesis)"


def chosen_label(g: pd.DataFrame, col: str) -> str:
    """Which classifier scores higher in ``col`` (one language's rows): its name when it leads the other by more
    than the noise a rerun makes (:data:`~xalign.papers.nyholm2020.wording.NOISE_POINTS` for the thesis
    configuration's ``ours``, :data:`~xalign.papers.nyholm2020.wording.REPAIRED_NOISE_POINTS` for our probes'
    ``repaired``), else both names ("LR or MLP (within the noise)"): rounding on another machine could pick either."""
    order = g.sort_values(col, ascending=False)
    margin = REPAIRED_NOISE_POINTS if col == "repaired" else NOISE_POINTS
    if len(order) < 2 or float(order[col].iloc[0]) - float(order[col].iloc[1]) > margin:
        return str(order["classifier"].iloc[0])
    return " or ".join(sorted(order["classifier"].astype(str))) + " (within the noise)"


def table6(t4: pd.DataFrame, langs: Sequence[str]) -> pd.DataFrame:
    """Table 6's MultiSent row: per language the higher of MLP and LR *by test accuracy*, as the thesis
    did; this is selection on the test set, so the row is labelled so. The repaired column takes
    the same rule; intervals are those of the chosen classifier."""
    rows = []
    for lang, g in t4[t4["lang"].isin(langs)].groupby("lang"):
        row = {"model": "MultiSent M-BERT features", "lang": lang, "selection": SELECTION_ON_TEST}
        for col, name in (("ours", "value"), ("repaired", "repaired")):
            g_ok = g.dropna(subset=[col])
            if not len(g_ok):
                continue
            best = g_ok.loc[g_ok[col].idxmax()]
            carried = [c for c in (f"{col} CI lo", f"{col} CI hi", f"{col} seed min", f"{col} seed max")
                       if c in best.index]
            row |= {name: best[col], **{c: best[c] for c in carried}, f"{col} classifier": chosen_label(g_ok, col)}
            if col == "ours" and "collapsed" in best.index:
                row |= {"collapsed": bool(best["collapsed"]), "collapsed seeds": best["collapsed seeds"],
                        "seeds": best["seeds"]}
        if "value" in row:
            rows.append(row)
    return pd.DataFrame(rows)


def table7(t5: pd.DataFrame) -> pd.DataFrame:
    """Table 7's MultiSent rows: Table 5 keyed by classifier name as the thesis prints it."""
    keep = ["classifier", "lang", "ours", "ours CI lo", "ours CI hi", "ours seed min", "ours seed max", "collapsed",
            "collapsed seeds", "seeds", "repaired", "repaired CI lo", "repaired CI hi", "repaired seed min",
            "repaired seed max"]
    return t5.assign(classifier="MultiSent " + t5["classifier"])[[c for c in keep if c in t5.columns]].rename(
        columns={"ours": "value"})


def with_intervals(frame: pd.DataFrame, digits: int = 1) -> pd.DataFrame:
    """For display: every ``X`` with ``X CI lo`` / ``X CI hi`` becomes one column ``X [95% CI]``
    (text such as ``"45.3 [40.1, 50.2]"``; ``None`` where ``X`` is missing, shown as "–"), every
    ``X seed min`` / ``X seed max`` one column ``X seed range`` (``"44.0-46.1"``), and ``collapsed
    seeds`` with ``seeds`` one column ``collapsed (seeds)`` (``"3 of 3"``, ``"no"``)."""
    out = frame.copy()
    for lo in [c for c in frame.columns if c.endswith(" seed min")]:
        col, hi = lo[: -len(" seed min")], lo[: -len(" seed min")] + " seed max"
        if hi in out.columns:
            out[f"{col} seed range"] = [None if pd.isna(a) else f"{a:.{digits}f}-{b:.{digits}f}"
                                        for a, b in zip(out[lo], out[hi])]
            out = out.drop(columns=[lo, hi])
    if "collapsed seeds" in out.columns and "seeds" in out.columns:
        out["collapsed (seeds)"] = [None if pd.isna(k) else "no" if k == 0 else f"{int(k)} of {int(n)}"
                                    for k, n in zip(out["collapsed seeds"], out["seeds"])]
        out = out.drop(columns=["collapsed seeds", "seeds", "collapsed"], errors="ignore")
    for lo in [c for c in frame.columns if c.endswith(" CI lo")]:
        col = lo[: -len(" CI lo")]
        hi = f"{col} CI hi"
        if col not in out.columns or hi not in out.columns:
            continue
        fmt = lambda r, c=col, a=lo, b=hi: with_interval(r[c], r[a], r[b], digits)
        out[col] = out.apply(fmt, axis=1)
        out = out.drop(columns=[lo, hi]).rename(columns={col: f"{col} [95% CI]"})
    return out.round(digits)


def is_latin(lang: str) -> bool:
    return "Latin" in scripts_of(lang)


def unk_correlations(paper_t4: pd.DataFrame, unk: Mapping[str, float]) -> pd.DataFrame:
    """Spearman correlation of the thesis' XNLI accuracy with the unknown-token share, per classifier,
    over every thesis language with a share, and within the Latin-script languages only; with n."""
    from xalign.measures.sts import spearman_test

    rows = []
    p = paper_t4.assign(unk=paper_t4["lang"].map(unk)).dropna(subset=["unk", "value"])
    for clf, g in p.groupby("classifier"):
        for subset, sel in (("all thesis languages", g), ("Latin-script languages only", g[g["lang"].map(is_latin)])):
            rho, p_value = spearman_test(sel["unk"], sel["value"]) if len(sel) > 2 else (np.nan, np.nan)
            rows.append({"classifier": clf, "languages": subset, "n": len(sel),
                         "spearman_rho": rho, "p_value": p_value,
                         "mean UNK %": 100 * float(sel["unk"].mean()), "mean thesis acc": float(sel["value"].mean()),
                         "which": ", ".join(sorted(sel["lang"]))})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- prose from results
def _rng(values, digits: int = 1) -> str:
    v = [float(x) for x in values if pd.notna(x)]
    if not v:
        return "n/a"
    lo, hi = min(v), max(v)
    return f"{lo:.{digits}f}" if round(lo, digits) == round(hi, digits) else f"{lo:.{digits}f}-{hi:.{digits}f}"


def raw_xnli_premise(lang: str, startswith: str) -> str:
    """The first premise of XNLI dev (``lang``) that starts with ``startswith``, as the file has it."""
    from xalign.data import taskdata

    for p in taskdata.xnli_pairs(lang, "dev"):
        if p.premise.startswith(startswith):
            return p.premise
    raise KeyError(f"no XNLI dev premise of {lang!r} starts with {startswith!r}")


def unk_summary(unk: Mapping[str, float]) -> str:
    """One paragraph: unknown-token shares on the Latin-1 path, Latin-script vs other languages."""
    latin = {k: v for k, v in unk.items() if is_latin(k)}
    other = {k: v for k, v in unk.items() if not is_latin(k)}
    fmt = lambda d: ", ".join(f"{k} {100 * v:.0f} %" for k, v in sorted(d.items(), key=lambda kv: kv[1]))
    return (f"Share of words that become the unknown token on the Latin-1 path, all {len(unk)} languages "
            f"(e5 tokenizer, test sample): Latin-script languages {fmt(latin)}; other scripts {fmt(other)}.")


def _partly(ours: pd.DataFrame, collapsed: pd.DataFrame) -> str:
    """ "; in 2 more, 1 of 3 seeds does": runs where some seeds collapse and others learn (per-seed counts)."""
    if "collapsed seeds" not in ours:
        return ""
    k = ours.drop(collapsed.index)["collapsed seeds"].fillna(0)
    n = int((k > 0).sum())
    return f"; in {n} more, some seeds do and the others learn" if n else ""


def table4_summary(t4: pd.DataFrame) -> str:
    """What Table 4 shows about our runs, in numbers from the run."""
    ours = t4.dropna(subset=["ours"])
    collapsed = ours[ours["collapsed"].eq(True)] if "collapsed" in ours else \
        ours[ours["majority share"] >= COLLAPSED_SHARE]
    es = ", ".join(sorted(set(ours["thesis early stopping"].dropna())))
    parts = [(f"**Thesis configuration (`ours`)**, early-stopped on {es}: accuracy {_rng(ours['ours'])} % over "
              f"{len(ours)} runs (language x classifier){_seeds_words(ours)}; {len(collapsed)} of them predict one label "
              f"for (nearly) every test pair{' in every seed' if 'collapsed seeds' in ours else ''} (majority share "
              f">= {COLLAPSED_SHARE:.0f} %, i.e. at or next to chance on XNLI's balanced test sets; flagged in the "
              f"table){_partly(ours, collapsed)}.")]
    if len(collapsed) == len(ours):
        parts.append("In our runs this configuration therefore cannot separate the languages by itself: with a few "
                     "hundred training pairs its unregularised, unscaled probes do not leave their initial plateau "
                     "even with a real dev split.")
    elif len(collapsed):
        parts.append("Runs that collapse: " + ", ".join(f"{r.lang} {r.classifier}" for r in collapsed.itertuples())
                     + ".")
    rep = t4.dropna(subset=["repaired"])
    parts.append(f"**Repaired** (mean pooling, our probes, raw UTF-8 text): {_rng(rep['repaired'])} %; the lowest "
                 f"interval bound is {rep['repaired CI lo'].min():.1f} %.")
    if "repaired zero-shot from en" in t4:
        z = t4.dropna(subset=["repaired zero-shot from en"])
        if len(z):
            d = z["repaired zero-shot from en"] - z["repaired"]
            parts.append(f"**Zero-shot from en** (the English-trained probe on each language's test set), against the "
                         f"in-language probe, {change_phrase(d)}.")
    return " ".join(parts)


def probe_setup(dev_pairs: int, mlp_hidden: int, seeds: Sequence[int], thesis_seeds: Sequence[int]) -> str:
    """Table 4's method paragraph with this run's sizes: ``dev_pairs`` XNLI dev pairs per language for the
    thesis configuration's early stopping, ``mlp_hidden`` hidden units of our MLP, and the number of training
    seeds of each configuration; each size names the parameter that sets it."""
    n, n_thesis = len(seeds), len(thesis_seeds)
    seeds_phrase = lambda k: f"{k} seed{'s' if k != 1 else ''}"
    more = ("The thesis configuration gets more seeds: an early-stopped seed can end on another epoch when the "
            "inputs move by rounding." if n_thesis > n else "")
    return (f"**Thesis configuration**: SentEval prototyping, no regularisation, MLP (5 sigmoid units) or logistic "
            f"regression, early-stopped on a **separate dev split** as in SentEval's SNLI task: in the thesis the "
            f"2,490 XNLI dev pairs, here {dev_pairs:,} pairs per language (`xnli_dev_pairs`) sharing no premise with "
            f"our training pairs; SentEval's general cap of 200 epochs replaces the SNLI cap of 15. **Our probes** "
            f"for the repaired features: logistic regression and an MLP with {mlp_hidden} hidden units "
            f"(`mlp_hidden`) on standardised features, trained on the whole training set in float64 to convergence, "
            f"L2 by k-fold log-loss with a premise's three hypotheses in one fold (split apart, a fold scored a "
            f"premise-memorising probe below chance); a seed moves the MLP's initial weights only. Tables 4-7 train "
            f"our probes with {seeds_phrase(n)} (`seeds`) and the thesis configuration with "
            f"{seeds_phrase(n_thesis)} (`thesis_seeds`): mean, seed range, 95 % bootstrap interval over test "
            f"pairs; a run is left out of any agreement with the thesis only when every seed collapsed. {more}").rstrip()


def _seeds_words(t: pd.DataFrame) -> str:
    """ ", each the mean of 3 training seeds" where the rows carry their seed count, else empty."""
    if "seeds" not in t or not len(t) or int(t["seeds"].max()) < 2:
        return ""
    return f", each the mean of {int(t['seeds'].max())} training seeds"


def correlation_note(corr: pd.DataFrame) -> str:
    r = corr[corr["languages"] == "all thesis languages"]
    return "Spearman rho, thesis XNLI accuracy vs unknown-token share (e5 tokenizer as stand-in for M-BERT's): " + \
        "; ".join(f"{x.classifier} {x.spearman_rho:.2f} (n = {x.n})" for x in r.itertuples())


def correlation_summary(corr: pd.DataFrame) -> str:
    """The correlation paragraph, with n and the within-Latin check."""
    al = corr[corr["languages"] == "all thesis languages"]
    la = corr[corr["languages"] != "all thesis languages"]
    fmt = lambda d: "; ".join(f"{x.classifier} rho = {x.spearman_rho:.2f} (n = {x.n}, p = {x.p_value:.2g})"
                              for x in d.itertuples())
    la1, al1 = la.iloc[0], al.iloc[0]
    n_other = al1["n"] - la1["n"]
    other_unk = (al1["mean UNK %"] * al1["n"] - la1["mean UNK %"] * la1["n"]) / max(n_other, 1)
    other_acc = (al1["mean thesis acc"] * al1["n"] - la1["mean thesis acc"] * la1["n"]) / max(n_other, 1)
    return (f"Over all thesis languages with a share: {fmt(al)}. Within the Latin-script languages only: {fmt(la)}. "
            f"The shares come from e5's tokenizer standing in for M-BERT's. Much of the all-language correlation is "
            f"the split between scripts: the {la1['n']} Latin-script languages lose {la1['mean UNK %']:.0f} % of "
            f"their words on average and the thesis reports {la1['mean thesis acc']:.1f} % for them "
            f"({la1['classifier']}); the {n_other} others lose {other_unk:.0f} % and get {other_acc:.1f} %. The "
            f"within-Latin figure rests on {la1['n']} languages.")


def xed_summary(t5: pd.DataFrame) -> str:
    t = t5.dropna(subset=["ours", "repaired"])
    gain = t["repaired"] - t["ours"]
    above = t[(t["ours CI lo"] > t["majority-class accuracy"])
              & (t["ours seed min"] > t["majority-class accuracy"] if "ours seed min" in t else True)]
    return (f"On XED the thesis configuration scores {_rng(t['ours'])} % (majority class: "
            f"{_rng(t['majority-class accuracy'])} %); {runs_with(len(above), len(t))} whole interval"
            f"{', and every seed,' if 'ours seed min' in t else ''} above the majority-class accuracy. The repaired pipeline "
            f"{change_phrase(gain)} "
            f"({_rng(t['repaired'])} %).")


def sweep_summary(sweep: pd.DataFrame, best_layer: pd.DataFrame, cbow: Mapping[str, float]) -> str:
    piv = sweep.pivot_table(index=["task", "layer"], columns="pooling", values="acc")
    wins = int((piv["mean"] > piv["first"]).sum())
    layers = ", ".join(f"{r.task}: layer {int(r.layer)}" for r in best_layer.itertuples())
    l0 = sweep[(sweep["layer"] == 0) & (sweep["pooling"] == "mean")].set_index("task")["acc"]
    near = ", ".join(f"{k} {v:.1f} vs CBOW {cbow[k]:.1f}" for k, v in l0.items() if k in cbow)
    return (f"Mean pooling beats the first token at {wins} of {len(piv)} (task, layer) points. Layers chosen on "
            f"held-out data: {layers}. Layer 0, mean pooling, vs the CBOW baseline (test accuracy): {near}.")


def diagnosis_summary(ladder: pd.DataFrame, unk: Mapping[str, float], paper_t4: pd.DataFrame,
                      with_steps: bool = True) -> str:
    """The diagnosis in numbers: step D (thesis probes on good features) vs E (our probes), and the
    thesis' own numbers for the languages our tokenizer says lose (nearly) every word.

    ``with_steps=False`` leaves out the D/E numbers (the closing section gives them with intervals)."""
    parts = []
    for task, g in ladder.groupby("task"):
        acc = g.groupby(g["step"].str[0])["acc"]
        d, e = acc.max().get("D"), acc.max().get("E")
        if d is not None and e is not None:
            parts.append(f"{task}: best of step D {d:.1f} %, of step E {e:.1f} %")
    out = ("Steps D -> E (thesis probes vs ours on the same mean-pooled features): " + "; ".join(parts) + "."
           if with_steps and parts else "")
    p = paper_t4.pivot_table(index="lang", columns="classifier", values="value")
    lost = [lang for lang in p.index if 100 * unk.get(lang, 0) >= 90]
    if lost:
        level = CH.chance("XNLI") + CH.chance_band("XNLI", CH.XNLI_TEST_ITEMS)  # the thesis gives no intervals
        chance = [lang for lang in lost if (p.loc[lang] <= level).all()]
        above = [lang for lang in lost if lang not in chance]
        out += (" " if out else "**Languages that lose nearly every word** ") + (
            f"(at least 90 % on the path, our proxy): {', '.join(lost)}; the thesis reports chance level "
            f"(<= {level:.1f} %, chance plus the 95% binomial half-width over XNLI's "
            f"{CH.XNLI_TEST_ITEMS:,} test items) for {', '.join(chance) or 'none of them'}")
        if above:
            out += ", but above chance for " + ", ".join(
                f"{lang} ({' / '.join(f'{c} {p.loc[lang, c]:.1f}' for c in p.columns)})" for lang in above)
            out += ("; so something other than whole words (the sentence length, which a run of `<unk>` still "
                    "carries, or segmented input) reached those classifiers")
        out += "."
    return out


# --------------------------------------------------------------------------- tables for display
#: headers of the compared tables as the chapter shows them (units in the headers)
SHOWN = {"paper": "thesis (%)", "ours [95% CI]": "ours, thesis configuration (%) [95% CI]",
         "value [95% CI]": "ours, thesis configuration (%) [95% CI]",
         "ours seed range": "thesis configuration: seed min-max (%)",
         "collapsed (seeds)": "thesis configuration collapsed (seeds)",
         "repaired [95% CI]": "ours, repaired (%) [95% CI]", "repaired seed range": "repaired: seed min-max (%)",
         "diff": "diff (ours − thesis, points)"}


def shown(frame: pd.DataFrame, keys: Sequence[str], unit: str = "%") -> tuple[pd.DataFrame, list[str]]:
    """A compared table for :func:`xalign.book.display.table`: intervals folded into one column each,
    headers carrying the unit, and the short set of columns (keys, thesis, ours, repaired, diff).

    Args:
        frame: a frame from :meth:`ChapterRun.compare` (``paper``, ``ours``, ``diff``, ``X CI lo/hi``).
        keys: the key columns, shown first.
        unit: the cells' unit for the headers (``"%"`` for accuracies; ``""`` for counts).

    Returns:
        (the full table for display, the names of its short columns).
    """
    out = with_intervals(frame)
    names = dict(SHOWN)
    if unit != "%":
        points = "%" in unit  # a difference of percentages is in points; of counts, in the count's unit
        names = {k: v.replace(" (%)", f" ({unit})" if unit else "").replace(", points", ", points" if points else "")
                 for k, v in names.items()}
        names["paper"] = f"thesis ({unit})" if unit else "thesis"
    out = out.rename(columns={c: names[c] for c in out.columns if c in names})
    if "ours" in out.columns:
        out = out.rename(columns={"ours": f"ours ({unit})" if unit else "ours"})
    short = [*keys, *[c for c in out.columns if c not in keys and (c in names.values() or c.startswith("ours ("))]]
    return out, short


def correlation_table(corr: pd.DataFrame) -> pd.DataFrame:
    """The correlations for display: rho to two decimals, p as text (``"0.0051"``), the languages listed."""
    out = corr.rename(columns={"spearman_rho": "Spearman rho", "mean UNK %": "mean UNK (%)",
                               "mean thesis acc": "mean thesis acc (%)", "which": "languages (codes)"})
    out["p"] = [None if pd.isna(p) else f"{p:.2g}" for p in corr["p_value"]]
    return out[["classifier", "languages", "n", "Spearman rho", "p", "mean UNK (%)", "mean thesis acc (%)",
                "languages (codes)"]]


def diagnosis_table(ladder: pd.DataFrame) -> pd.DataFrame:
    """The diagnosis as one row per task and probe, one column per step (``"A (%)"`` ... ``"F (%)"``)."""
    wide = ladder.assign(step=ladder["step"].str[0] + " (%)").pivot_table(
        index=["task", "probe"], columns="step", values="acc", sort=False).reset_index()
    wide.columns.name = None
    return wide[["task", "probe", *sorted(c for c in wide.columns if c.endswith(" (%)"))]]
