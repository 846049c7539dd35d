"""Table and prose assembly for chapter 1 (Gaschi et al. 2022): what the notebook displays.

Every function takes results computed in the run and returns frames or
Markdown-ready numbers; nothing here runs a model. The prose functions write every model name
through :func:`xalign.core.markup.text` (a name is text on the page, never markup); the frames keep
names as they are (:func:`xalign.book.display.table_html` escapes their cells).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from xalign.core.markup import text
from xalign.data.paper_tables import paper_table
from xalign.measures import layerwise as LW
from xalign.measures.interval_text import ci, interval
from xalign.papers.gaschi2022 import weakstrong as WS
from xalign.papers.gaschi2022.extraction_eval import AUTHORS_VARIANT, MERGED_VARIANT

# the paper's model names for the Hugging Face ids it evaluated
PAPER_NAMES = {"bert-base-multilingual-cased": "mBERT", "xlm-roberta-base": "XLM-R Base",
               "xlm-roberta-large": "XLM-R Large", "FacebookAI/xlm-roberta-base": "XLM-R Base",
               "FacebookAI/xlm-roberta-large": "XLM-R Large", "xlm-mlm-100-1280": "XLM-100",
               "aneuraz/awesome-align-with-co": "AWESOME", "facebook/mbart-large-cc25": "mBART"}

# sentence poolings of Table I: label -> how the mean is taken
AVG_WHOLE = "avg (whole input)"
AVG_TOKENS = "avg (sentence tokens)"

# Table II's row for our own dictionary extraction (the pairs the chapter uses); the paper's
# "dictionary" row is set against the authors' extraction, reconstructed
OUR_DICTIONARY = "dictionary (ours)"
# the page's name for the row ``method="dictionary"`` (what it is: the authors' extraction, rebuilt by us)
AUTHORS_DICTIONARY = "dictionary (the authors' extraction, reconstructed)"


def paper_model_for(model: str) -> str:
    """The paper's row to compare a model with (mBERT unless the paper evaluated the model too)."""
    return PAPER_NAMES.get(model, "mBERT")


def avg_convention(encoder) -> str:
    """The mean pooling Table I's ``avg`` uses for this model family.

    e5 models are trained to pool over their whole input (prefix and special
    tokens included): their own convention. The paper's models average the
    sentence's tokens (the authors' code masks [CLS], [SEP] and padding).
    """
    return AVG_WHOLE if (encoder.prefix or "e5" in encoder.name.lower()) else AVG_TOKENS


def compare_best_last(run, runs_df: pd.DataFrame, table: str, title: str, paper_model: str,
                      static_rows: dict[str, pd.DataFrame], encoder_name: str) -> pd.DataFrame:
    """Best and last layer next to the paper's row for the comparable model (and FastText)."""
    paper = paper_table("gaschi2022", table)
    paper = paper[paper["model"].isin([paper_model, "FastText"])]
    ours = pd.concat([WS.best_last_rows(runs_df, paper_model), static_rows[table]])
    return run.compare(table, ours, keys=["model", "layer", "pair"], paper=paper, title=title,
                       note=f"ours: {encoder_name}; paper row: {paper_model}. "
                            "FastText row needs aligned .vec files")


def table1_ours(sent_runs: pd.DataFrame, convention: str, paper_model: str,
                static_rows: pd.DataFrame) -> pd.DataFrame:
    """Table I rows: CLS and the family's default mean pooling (labelled ``avg``), plus FastText."""
    keep = sent_runs[sent_runs["pooling"].isin(["CLS", convention])]
    keep = keep.assign(pooling=keep["pooling"].replace({convention: "avg"}))
    return pd.concat([WS.best_last_rows(keep, paper_model, group=["pooling", "pair"], keep_first=True),
                      static_rows])


def pooling_variants(sent_runs: pd.DataFrame, paper_model: str) -> pd.DataFrame:
    """Both mean poolings side by side (first, best and last layer, x 100) with the paper's avg."""
    rows = WS.best_last_rows(sent_runs[sent_runs["pooling"].isin([AVG_WHOLE, AVG_TOKENS])], paper_model,
                             group=["pooling", "pair"], keep_first=True)
    wide = rows.pivot_table(index=["pair", "layer"], columns="pooling", values="value").reset_index()
    paper = paper_table("gaschi2022", "table1")
    paper = paper[(paper["model"] == paper_model) & (paper["pooling"] == "avg")]
    wide = wide.merge(paper[["pair", "layer", "value"]].rename(columns={"value": f"paper ({paper_model})"}),
                      on=["pair", "layer"], how="left")
    wide["whole - tokens"] = wide[AVG_WHOLE] - wide[AVG_TOKENS]
    order = {"first": 0, "best": 1, "last": 2}
    return wide.sort_values(["pair", "layer"], key=lambda c: c.map(order) if c.name == "layer" else c)


def strong_before_after(align_runs: pd.DataFrame, paper_model: str) -> pd.DataFrame:
    """S_strong as computed by xalign 0.1 and as the authors compute it, best and last layer (x 100).

    The best layer is picked separately for each formula (as each table would).
    """
    out = []
    for metric, label in (("S_strong_xalign01", "xalign 0.1"), ("S_strong", "authors' definition")):
        rows = WS.best_last_rows(align_runs[align_runs["metric"] == metric], paper_model)
        out.append(rows.assign(formula=label))
    both = pd.concat(out)
    wide = both.pivot_table(index=["pair", "layer"], columns="formula",
                            values=["value", "our layer"]).reset_index()
    wide.columns = [" ".join(str(x) for x in c if x).replace("value ", "") for c in wide.columns]
    wide["change"] = wide["authors' definition"] - wide["xalign 0.1"]
    paper = paper_table("gaschi2022", "table4")
    paper = paper[paper["model"] == paper_model][["pair", "layer", "value"]]
    return wide.merge(paper.rename(columns={"value": f"paper ({paper_model})"}), on=["pair", "layer"], how="left")


def strong_gap_by_layer(align_runs: pd.DataFrame) -> pd.DataFrame:
    """Mean (xalign 0.1 - authors') S_strong per pair and layer, x 100."""
    s = LW.summarise(align_runs, ["metric", "pair", "layer"], scale=100)
    wide = s.pivot_table(index=["pair", "layer"], columns="metric", values="mean").reset_index()
    wide["gap"] = wide["S_strong_xalign01"] - wide["S_strong"]
    return wide[["pair", "layer", "S_strong_xalign01", "S_strong", "gap"]]


def table2_variants(variants: dict[str, list[dict]]) -> pd.DataFrame:
    """Table II dictionary-precision variants per gold pair, with the paper's value and the gaps."""
    paper = paper_table("gaschi2022", "table2")
    paper = paper[paper["method"] == "dictionary"].set_index("pair")["value"]
    rows = []
    for pair, vs in variants.items():
        base = vs[0]["value"]
        for v in vs:
            rows.append({"pair": pair, **v, "change vs xalign": v["value"] - base,
                         "paper": paper.get(pair, np.nan), "ours - paper": v["value"] - paper.get(pair, np.nan)})
    return pd.DataFrame(rows)


def authors_dictionary_rows(variants: dict[str, list[dict]]) -> list[dict]:
    """Table II rows ``method="dictionary"`` from the authors' extraction (the variant
    :data:`AUTHORS_VARIANT` of each gold pair that has it): pair, value (points), n pairs."""
    return [{"method": "dictionary", "pair": pair, "value": v["value"], "n pairs": v["n pairs"]}
            for pair, vs in variants.items() for v in vs if v["variant"] == AUTHORS_VARIANT]


def extraction_differences(variants: pd.DataFrame) -> str:
    """Markdown: how our dictionary extraction differs from the authors' on the gold sets, in pairs and points.

    Args:
        variants: :func:`table2_variants`' frame (first row of each pair: ours; the row
            :data:`AUTHORS_VARIANT` with its ``lost`` / ``capitalised`` / ``gained`` counts).

    Returns:
        One paragraph per gold pair that has the authors' row; "" when none has.
    """
    parts = []
    for pair, sub in variants.groupby("pair", sort=False):
        auth = sub[sub["variant"] == AUTHORS_VARIANT]
        if auth.empty:
            continue
        ours, a = sub.iloc[0], auth.iloc[0]
        merged = sub[sub["variant"] == MERGED_VARIANT]
        lower = merged.iloc[0] if len(merged) else None
        gap = a["value"] - a["paper"]
        close = ("matches the paper's" if abs(gap) < 0.05 else
                 f"is {abs(gap):.2f} points {'above' if gap > 0 else 'below'} the paper's")
        text = (f"**{pair}.** Ours: {int(ours['n pairs']):,} pairs, {ours['value']:.2f}% precise. The authors' "
                f"extraction, reconstructed: {int(a['n pairs']):,} pairs, {a['value']:.2f}%, which {close} "
                f"{a['paper']:.1f}.")
        if lower is not None and not pd.isna(a.get("lost")):
            text += (f" Against the same extraction with the gold tokens lower-cased ({int(lower['n pairs']):,} "
                     f"pairs, {lower['value']:.2f}%), it loses {int(a['lost']):,} pairs and gains "
                     f"{int(a['gained']):,}; {int(a['capitalised']):,} of the lost pairs have a source word that "
                     f"starts with a capital letter, which no longer matches its lower-cased dictionary entry.")
        parts.append(text)
    return "\n\n".join(parts)


def variant_sentence(variants: pd.DataFrame) -> str:
    """'pair: variant P (change); ...' for the prose under the variants table."""
    if variants.empty:
        return "none run"
    parts = []
    for pair, sub in variants.groupby("pair", sort=False):
        items = [f"{r['variant']} {r['value']:.1f} ("
                 + ("unchanged" if abs(r["change vs xalign"]) < 0.05 else f"{r['change vs xalign']:+.1f}") + ")"
                 for _, r in sub.iloc[1:].iterrows()]
        parts.append(f"{pair}: ours {sub.iloc[0]['value']:.1f}; " + "; ".join(items))
    return " | ".join(parts)


def value(frame: pd.DataFrame, column: str = "ours", **where) -> float:
    """The single cell of ``column`` where every ``key == value`` (NaN when absent): for prose."""
    sub = frame
    for k, v in where.items():
        sub = sub[sub[k] == v]
    return float(sub[column].iloc[0]) if len(sub) else float("nan")


# --- what the page shows: comparison tables, the evidence section and the headline -----------------

def ci95(std: float, runs: int) -> float:
    """Half-width of the 95% confidence interval of a mean over ``runs`` runs with this std."""
    return 1.96 * float(std) / np.sqrt(max(int(runs), 1))


def comparison_view(frame: pd.DataFrame, model: str, runs: int) -> tuple[pd.DataFrame, list[str]]:
    """A comparison frame (``run.compare``'s paper / ours / diff) labelled for the page.

    The ``model`` key column names the paper's row each line is compared with; our numbers come
    from ``model`` (the column headers say so). ``ours`` gains its 95% interval over ``runs``.

    Returns:
        (the relabelled frame, the short set of columns shown before the dropdown).
    """
    out = frame.copy()
    keys = [c for c in out.columns if c not in ("paper", "paper_std", "ours", "ours_std", "our layer", "diff",
                                                "n pairs", "unseeded")]
    ours = f"ours: {model} (points)"
    if "ours_std" in out:
        out["ours 95% CI"] = [
            "–" if pd.isna(m) or pd.isna(s) else interval(m - ci95(s, runs), m + ci95(s, runs))
            for m, s in zip(out["ours"], out["ours_std"])]
    out = out.rename(columns={"model": "paper's model", "paper": "paper (points)", "ours": ours,
                              "diff": "ours - paper", "paper_std": "paper std", "ours_std": "ours std",
                              "n pairs": "pairs (count)"})
    keys = ["paper's model" if k == "model" else k for k in keys]
    short = [*keys, "paper (points)", ours, *(["ours 95% CI"] if "ours 95% CI" in out else []), "ours - paper"]
    return out, short


def table2_labels(frame: pd.DataFrame) -> pd.DataFrame:
    """Table II for the page: the row compared with the paper's dictionary row is named for what it is
    (:data:`AUTHORS_DICTIONARY`), beside ours (:data:`OUR_DICTIONARY`)."""
    return frame.assign(method=frame["method"].replace({"dictionary": AUTHORS_DICTIONARY}))


def _rows(frame: pd.DataFrame, **where) -> pd.DataFrame:
    sub = frame
    for k, v in where.items():
        sub = sub[sub[k] == v]
    return sub


def direction(a: float, a_half: float, b: float, b_half: float) -> str:
    """"above", "below" or "level with": a vs b, "level" when the two 95% intervals overlap."""
    if abs(a - b) <= a_half + b_half:
        return "level with"
    return "above" if a > b else "below"


def span(values: list[float], unit: str = "points") -> str:
    """"by 3.2 points" / "by 2.0 to 5.1 points" for sizes of changes (absolute values used)."""
    sizes = sorted(abs(v) for v in values)
    lo, hi = f"{sizes[0]:.1f}", f"{sizes[-1]:.1f}"
    return f"by {hi} {unit}" if lo == hi else f"by {lo} to {hi} {unit}"


def _vs_paper(table: pd.DataFrame, layer: str, runs: int) -> list[tuple[str, float, float, float, str]]:
    """(pair, ours, paper, ours - paper, direction) for our rows that have a paper value at ``layer``."""
    out = []
    for r in _rows(table, layer=layer).itertuples(index=False):
        d = r._asdict()
        if pd.isna(d.get("ours")) or pd.isna(d.get("paper")):
            continue
        paper_half = ci95(d.get("paper_std") or 0.0, 10)  # the paper reports std over 10 runs
        out.append((d["pair"], d["ours"], d["paper"], d["ours"] - d["paper"],
                    direction(d["ours"], ci95(d.get("ours_std") or 0.0, runs), d["paper"], paper_half)))
    return out


def _compare_sentence(items, model: str, paper_model: str, what: str) -> str:
    if not items:
        return ""
    dirs = {i[4] for i in items}
    listing = ", ".join(f"{p} {o:.1f} vs {q:.1f}" for p, o, q, _, _ in items)
    if dirs == {"above"}:
        verdict = f"{model} is above the paper's {paper_model} for every pair"
    elif dirs == {"below"}:
        verdict = f"{model} is below the paper's {paper_model} for every pair"
    elif dirs == {"level with"}:
        verdict = f"{model} is level with the paper's {paper_model} within the runs' spread"
    else:
        parts = [f"{d} it for {', '.join(i[0] for i in items if i[4] == d)}" for d in ("above", "below", "level with")
                 if d in dirs]
        verdict = f"{model} is " + " and ".join(parts).replace(" it for", f" the paper's {paper_model} for", 1)
    return f"{what} ({model} vs the paper's {paper_model}; {listing}): {verdict}."


def word_sample(counts: pd.DataFrame, runs: int) -> str:
    """The sample S_weak and S_strong score, in words: "N = 5,000 word pairs per run (ru-en 4,597), 10 runs".

    Both scores fall as N grows (each pair competes with the other N - 1), so every number of them names
    its N. ``counts``: the extraction's counts (``pair``, ``N used per run``); "" when it has none.
    """
    if counts is None or "N used per run" not in counts or counts.empty:
        return ""
    ns = {r["pair"]: int(r["N used per run"]) for r in counts.to_dict("records")}
    common = max(ns.values(), key=list(ns.values()).count)
    others = ", ".join(f"{p} {n:,}" for p, n in ns.items() if n != common)
    return (f"N = {common:,} word pairs per run" + (f" ({others})" if others else "")
            + f", {runs} run{'s' if runs != 1 else ''}")


def evidence(table1: pd.DataFrame, table2: pd.DataFrame, table3: pd.DataFrame, table4: pd.DataFrame,
             fig8: pd.DataFrame | None, model: str, paper_model: str, runs: int, sample: str = "") -> str:
    """The chapter's closing section, every number and every verdict taken from the results.

    Args:
        table1, table2, table3, table4: the comparison frames of Tables I-IV (points).
        fig8: Fig. 8's tidy scores (layer, run, value in [0, 1], input) or None.
        model: the model that ran; paper_model: the paper's row it is compared with.
        runs: runs per score (the intervals are 95% CIs of the mean over them).
        sample: the S_weak / S_strong sample in words (:func:`word_sample`), named beside their numbers.

    Returns:
        Markdown: one bullet per claim. A comparison inside the runs' spread is called level,
        and a model-vs-model comparison says in words which two models it sets side by side.
    """
    name, model, paper_model = model, text(model), text(paper_model)
    out = []
    t2 = {(r["method"], r["pair"]): r for r in table2.to_dict("records") if not pd.isna(r.get("ours"))}
    # our extraction (the pairs the chapter uses) where the run has it, else the single dictionary row
    dic = OUR_DICTIONARY if any(m == OUR_DICTIONARY for m, _ in t2) else "dictionary"
    both = [gp for (m, gp) in t2 if m == dic and ("aligner", gp) in t2]
    if both:
        better = [gp for gp in both if t2[(dic, gp)]["ours"] > t2[("aligner", gp)]["ours"]]
        listing = ", ".join(f"{gp} {t2[(dic, gp)]['ours']:.1f}% from {int(t2[(dic, gp)]['n pairs'])} "
                            f"pairs vs {t2[('aligner', gp)]['ours']:.1f}% from {int(t2[('aligner', gp)]['n pairs'])}"
                            for gp in both)
        verdict = ("more precise than the aligner's on every gold set, as the paper finds" if len(better) == len(both)
                   else "not more precise than the aligner's on every gold set, unlike the paper"
                   if not better else f"more precise only for {', '.join(better)}")
        whose = "Our dictionary pairs" if dic == OUR_DICTIONARY else "Dictionary pairs"
        out.append(f"**Table II (no model involved).** {whose} are {verdict} ({listing}).")
    if dic == OUR_DICTIONARY:
        auth = [r for (m, _), r in t2.items() if m == "dictionary" and not pd.isna(r.get("paper"))]
        if auth:
            worst = max(abs(r["ours"] - r["paper"]) for r in auth)
            listing = ", ".join(f"{r['pair']} {r['ours']:.2f}% vs the paper's {r['paper']:.1f}" for r in auth)
            verdict = (f"reproduces the paper's dictionary row to within {worst:.2f} points" if worst < 0.5 else
                       f"stays up to {worst:.1f} points from the paper's dictionary row")
            out.append(f"**Table II, the authors' extraction** (reconstructed, no model involved) {verdict} "
                       f"({listing}).")
    ours1 = table1[table1["model"] != "FastText"] if "model" in table1 else table1
    best = _rows(ours1, layer="best")
    pools = []
    for pair, sub in best.groupby("pair", sort=False):
        avg, cls = _rows(sub, pooling="avg"), _rows(sub, pooling="CLS")
        if len(avg) and len(cls) and not pd.isna(avg["ours"].iloc[0]) and not pd.isna(cls["ours"].iloc[0]):
            a, c = avg.iloc[0], cls.iloc[0]
            pools.append((pair, a["ours"], c["ours"],
                          direction(a["ours"], ci95(a["ours_std"], runs), c["ours"], ci95(c["ours_std"], runs))))
    if pools:
        dirs = {p[3] for p in pools}
        listing = ", ".join(f"{p} {a:.1f} vs {c:.1f}" for p, a, c, _ in pools)
        verdict = ("beats the first token for every pair, as in the paper" if dirs == {"above"} else
                   "is level with the first token within the runs' spread" if dirs == {"level with"} else
                   "does not beat the first token for every pair (unstable or reversed)")
        out.append(f"**Table I.** At {model}'s best layer, mean pooling {verdict} (avg vs CLS, S_weak: {listing}).")
    of = f" ({sample})" if sample else ""
    s3 = _compare_sentence(_vs_paper(table3, "best", runs), model, paper_model, f"**Table III, best layer, S_weak**{of}")
    s4 = _compare_sentence(_vs_paper(table4, "best", runs), model, paper_model, f"**Table IV, best layer, S_strong**{of}")
    out += [s for s in (s3, s4) if s]
    s4l = _compare_sentence(_vs_paper(table4, "last", runs), model, paper_model, "At the last layer, S_strong")
    if s4l:
        out.append(s4l)
    weak_best = {r["pair"]: r for r in _rows(table3, layer="best").to_dict("records") if not pd.isna(r.get("ours"))}
    strong_best = {r["pair"]: r for r in _rows(table4, layer="best").to_dict("records") if not pd.isna(r.get("ours"))}
    gaps = [(p, weak_best[p]["ours"] - strong_best[p]["ours"]) for p in weak_best if p in strong_best]
    if gaps:
        below = [g for _, g in gaps if g > 0]
        if len(below) == len(gaps) and all(g >= 0.05 for g in below):
            out.append(f"**Weak vs strong.** S_strong is below S_weak at the best layer for every pair "
                       f"({span([g for _, g in gaps])}): a word's translation is its nearest neighbour among the "
                       f"target-language words more often than among the source-language words, so {model}'s "
                       "words still sit closer to their own language, as the paper finds for its models.")
        else:
            out.append("**Weak vs strong.** S_strong is not below S_weak for every pair at the best layer ("
                       + ", ".join(f"{p} {g:+.1f}" for p, g in gaps) + " points, S_weak - S_strong).")
    masked = masked_sentence(fig8, name)
    if masked:
        out.append(f"**Fig. 8.** {masked}")
    return "\n".join(f"- {s}" for s in out) if out else "No result of this run supports a conclusion."


def headline(table3: pd.DataFrame, model: str, paper_model: str, runs: int) -> str:
    """One sentence with one number and its 95% interval: S_weak at the best layer of the first pair
    (Markdown; the model names as page text)."""
    model, paper_model = text(model), text(paper_model)
    rows = _rows(table3, layer="best")
    rows = rows[rows["ours"].notna()] if len(rows) else rows
    if not len(rows):
        return f"No S_weak score was computed for {model} in this run."
    r = rows.iloc[0]
    half = ci95(r["ours_std"], runs)
    layer = "" if pd.isna(r.get("our layer")) else f" (layer {int(r['our layer'])})"
    paper = "" if pd.isna(r.get("paper")) else f"; the paper's {paper_model} scores {r['paper']:.1f}%"
    return (f"{model}'s best layer{layer} retrieves the translation of {r['ours']:.1f}% "
            f"({ci(r['ours'] - half, r['ours'] + half)}) of {r['pair']} words in context "
            f"(weak alignment, S_weak){paper}.")


#: Gaschi et al., Sec. V (Fig. 8): "a decrease of around 15 points" when the words are masked
PAPER_MASK_DROP = 15.0


def masked_sentence(fig8: pd.DataFrame | None, model: str) -> str:
    """Fig. 8 at the last layer: S_weak of the mask token alone vs the words (empty when not run), naming
    Fig. 8's own sample (``fig8.attrs``: ``pairs_per_run``, ``pair``; smaller than Table III's, so its
    "words" value differs from Table III's cell) and set beside the paper's drop of about 15 points."""
    if fig8 is None or not len(fig8):
        return ""
    model = text(model)
    s = LW.summarise(fig8, ["input", "layer"], scale=100)
    last = int(s["layer"].max())
    w = _rows(s, input="words", layer=last).iloc[0]
    m = _rows(s, input="masked", layer=last).iloc[0]
    d = direction(m["mean"], m["ci95"], w["mean"], w["ci95"])
    rel = "as high as (within the runs' spread)" if d == "level with" else f"{abs(m['mean'] - w['mean']):.1f} points {d}"
    share = m["mean"] / w["mean"] if w["mean"] else float("nan")
    reading = ("last-layer word scores here mostly identify the sentence, not the word"
               if share >= 0.8 else "the word itself still carries much of the last-layer score")
    n, pair = fig8.attrs.get("pairs_per_run"), fig8.attrs.get("pair", "")
    sample = (f" (Fig. 8's own sample: {int(n):,} {pair} pairs per run, fewer than Table III's, so the words' "
              "value differs from Table III's cell)") if n else " (Fig. 8's own sample, not Table III's)"
    paper = f"; the paper's models lose about {PAPER_MASK_DROP:.0f} points under masking"
    if d != "level with":
        paper += f", {model} loses {w['mean'] - m['mean']:.1f}"
    return (f"At {model}'s last layer (layer {last}) the mask token alone retrieves the translation "
            f"{m['mean']:.1f}% of the time, {rel} the words themselves ({w['mean']:.1f}%){sample}{paper}: "
            f"{reading}.")
