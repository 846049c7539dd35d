"""Table and prose assembly for chapter 1 (Gaschi et al. 2022): what the notebook displays.

Every function takes results computed in the run and returns frames or
Markdown-ready numbers; nothing here runs a model.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from xalign.data.paper_tables import paper_table
from xalign.measures import layerwise as LW
from xalign.papers.gaschi2022 import weakstrong as WS

# the paper's model names for the Hugging Face ids it evaluated
PAPER_NAMES = {"bert-base-multilingual-cased": "mBERT", "xlm-roberta-base": "XLM-R Base",
               "xlm-roberta-large": "XLM-R Large", "FacebookAI/xlm-roberta-base": "XLM-R Base",
               "FacebookAI/xlm-roberta-large": "XLM-R Large", "xlm-mlm-100-1280": "XLM-100",
               "aneuraz/awesome-align-with-co": "AWESOME", "facebook/mbart-large-cc25": "mBART"}

# sentence poolings of Table I: label -> how the mean is taken
AVG_WHOLE = "avg (whole input)"
AVG_TOKENS = "avg (sentence tokens)"


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


def variant_sentence(variants: pd.DataFrame) -> str:
    """'pair: variant P (change); ...' for the prose under the variants table."""
    if variants.empty:
        return "none run"
    parts = []
    for pair, sub in variants.groupby("pair", sort=False):
        items = [f"{r['variant']} {r['value']:.1f} ({r['change vs xalign']:+.1f})" for _, r in sub.iloc[1:].iterrows()]
        parts.append(f"{pair}: ours {sub.iloc[0]['value']:.1f}; " + "; ".join(items))
    return " | ".join(parts)


def value(frame: pd.DataFrame, column: str = "ours", **where) -> float:
    """The single cell of ``column`` where every ``key == value`` (NaN when absent): for prose."""
    sub = frame
    for k, v in where.items():
        sub = sub[sub[k] == v]
    return float(sub[column].iloc[0]) if len(sub) else float("nan")
