"""Chapter 3's tables as the book shows them: flat frames with readable headers and labels.

The chapter hands these to ``xalign.book.display.table`` (which renders "–" for a missing cell and
integers as integers); each ``*_table`` function returns ``(frame, short columns)``: the columns
shown by default, the full frame going into the dropdown.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from xalign.measures.interval_text import interval
from xalign.papers.calibrated2023.seed_spread import spread_note  # noqa: F401 (captions: the seeds' spread)

CI_COLUMN = "95% CI"
DIFF_COLUMN = "diff (ours − paper)"
SEEDS_COLUMN = "over fine-tuning seeds"

#: readable names of the key values in the results
NAMES = {
    "none": "no fine-tuning", "sentence_embedding": "sentence-embedding fine-tuning", "qa": "QA fine-tuning",
    "zero_shot": "zero-shot (from en)", "translate_train_all": "trained on all languages (human translations)",
    "transfer_rate": "transfer rate", "calibrated_retrieval": "calibrated retrieval",
    "corr_zero_shot_calibrated": "r: zero-shot ~ calibrated retrieval",
    "corr_zero_shot_translate_train_all": "r: zero-shot ~ trained on all",
    "corr_transfer_rate_calibrated": "r: transfer rate ~ calibrated retrieval",
    "xnli_manual": "XNLI Manual", "xnli": "XNLI (MT)", "avg": "average", "gap": "transfer gap",
    "CLSR": "CLSR (Tatoeba accuracy, %)", "STS": "STS (Spearman x 100)",
}
#: short names of column groups ("before: paper"): the caption says what before and after are
GROUP_NAMES = {"none": "before", "sentence_embedding": "after", "qa": "QA"}
#: the order of the column groups
GROUP_ORDER = ("before", "after", "QA")
#: summary rows (averages, the transfer gap), shown after the rows they summarise
SUMMARY_ROWS = ("avg", "gap")
#: readable names of key columns
KEY_NAMES = {"lang": "language", "setup": "setup", "block": "measure", "track": "track", "task": "task",
             "data": "data", "model": "paper model", "ours_model": "our model"}


def _seed_range(values, digits: int = 1) -> str:
    """``"-14.3 to -13.0 (SD 0.7)"``: a table cell's range over fine-tuning seeds (the count is in the caption)."""
    v = np.asarray(list(values), float)
    sd = f" (SD {v.std(ddof=1):.{digits}f})" if len(v) > 1 else ""
    return f"{v.min():+.{digits}f} to {v.max():+.{digits}f}{sd}"


def _c_text(values) -> list[str]:
    """Regularisation strengths as written (``0.01``, ``1``), not rounded to the table's one decimal."""
    return [f"{float(c):g}" for c in values]


def interval_text(lo, hi, digits: int = 1) -> str | None:
    """``"[44.1, 46.5]"`` for an interval (:func:`xalign.measures.interval_text.interval`), None (shown as
    "–") when either end is missing."""
    return interval(lo, hi, digits)


def _name(value) -> str:
    return NAMES.get(str(value), str(value))


def comparison_table(merged: pd.DataFrame, keys: Sequence[str], by: str | None = None,
                     diff_in_short: bool = True) -> tuple[pd.DataFrame, list[str]]:
    """A frame compared with the paper (``run.compare`` / ``compare_counterparts``) as a flat table.

    Args:
        merged: key columns, ``model`` (the paper's label), ``ours_model``, ``paper``, ``ours``,
            ``ci_lo``, ``ci_hi``, ``diff`` (points).
        keys: the key columns that make a row (e.g. ``["lang"]``), in the frame's order.
        by: a key column whose values become groups of columns ("before: paper", "after: ours",
            :data:`GROUP_NAMES`); None keeps one row per key and ``by`` value.
        diff_in_short: whether the short table shows the difference (False where the paper's numbers
            come from another protocol and the difference is no like-for-like comparison).

    Returns:
        (table, short columns). The table starts with "paper model" and "our model"; the short
        columns leave them out when one pair of models made every row.
    """
    m = merged.copy()
    m["ci"] = [interval_text(lo, hi) for lo, hi in zip(m["ci_lo"], m["ci_hi"])] if "ci_lo" in m else None
    if "ours_model" not in m:
        m["ours_model"] = None
    m["ours_model"] = m.groupby("model")["ours_model"].transform(lambda s: s.dropna().iloc[0] if s.notna().any()
                                                                 else None)
    values = {"paper": "paper", "ours": "ours", "ci": CI_COLUMN, "diff": DIFF_COLUMN}
    keys = list(keys)
    row_keys = ["model", "ours_model", *[k for k in keys if k != by]]
    *outer, last = [k for k in keys if k != by]  # averages and gaps go last within their block
    block = m[outer].astype(str).agg("|".join, axis=1) if outer else pd.Series("", index=m.index)
    first = {b: i for i, b in enumerate(dict.fromkeys(block))}
    m = m.iloc[np.lexsort(([str(v) in SUMMARY_ROWS for v in m[last]], [first[b] for b in block]))]
    for k in keys:
        m[k] = m[k].map(lambda v, k=k: GROUP_NAMES.get(str(v), _name(v)) if k == by else _name(v))
    empty: list[str] = []  # groups without a number of ours: shown in the full table only
    if by is None:
        out = m[row_keys + [k for k in keys if k not in row_keys] + list(values)].rename(columns=values)
    else:
        groups = sorted(dict.fromkeys(m[by]), key=lambda g: GROUP_ORDER.index(g) if g in GROUP_ORDER else 0)
        empty = [g for g in groups if m.loc[m[by] == g, "ours"].isna().all()]
        parts = []
        for g in groups:
            part = m[m[by] == g].set_index(row_keys)[list(values)]
            parts.append(part.rename(columns={v: f"{g}: {'diff' if v == 'diff' else label}"
                                              for v, label in values.items()}))
        order = list(dict.fromkeys(map(tuple, m[row_keys].itertuples(index=False, name=None))))
        out = pd.concat(parts, axis=1).reindex(pd.MultiIndex.from_tuples(order, names=row_keys)).reset_index()
    out = out.rename(columns=KEY_NAMES)
    single = out[["paper model", "our model"]].drop_duplicates().shape[0] <= 1
    short = [c for c in out.columns if not (single and c in ("paper model", "our model"))
             and (diff_in_short or not (c == DIFF_COLUMN or c.endswith(": diff")))
             and not any(c.startswith(f"{g}: ") for g in empty)]
    return out, short


def ours_table(frame: pd.DataFrame, keys: Sequence[str], models: Sequence[str] | None = None) -> pd.DataFrame:
    """Our numbers with their intervals, for models the paper has no counterpart of: one row per
    model and keys, ``ours`` and ``95% CI``."""
    f = frame if models is None else frame[frame.model.isin(list(models))]
    out = f[["model", *keys]].copy()
    for k in keys:
        out[k] = out[k].map(_name)
    out["ours"] = f["value"].to_numpy()
    out[CI_COLUMN] = [interval_text(lo, hi) for lo, hi in zip(f["ci_lo"], f["ci_hi"])] if "ci_lo" in f else None
    return out.rename(columns={**KEY_NAMES, "model": "model"}).reset_index(drop=True)


def models_compared(merged: pd.DataFrame) -> str:
    """In words, which of our models is compared with which of the paper's ("multilingual-e5-small
    vs the paper's LaBSE")."""
    pairs = merged[["ours_model", "model"]].dropna().drop_duplicates()
    return "; ".join(f"{o} vs the paper's {p}" for o, p in pairs.itertuples(index=False, name=None)) or \
        "no model of ours has a counterpart here"


def settings_table(ours: pd.DataFrame, paper: pd.DataFrame, counterpart: dict) -> pd.DataFrame:
    """Table 10: the paper's fine-tuning settings for each of its models, and ours (one row each)."""
    cols = ["lr", "batch_size", "warmup", "nli_epochs", "sts_epochs"]
    theirs = paper.assign(source="paper")[["source", "model", *cols]]
    mine = ours.assign(source="ours", model=[f"{m} (vs {counterpart.get(m, '–')})" for m in ours["model"]])
    extra = ["checkpoints", "freeze_embeddings", "max_length", "weight_decay"]
    out = pd.concat([theirs, mine[["source", "model", *cols, *[c for c in extra if c in mine]]]], ignore_index=True)
    out["lr"] = [f"{float(v):g}" for v in out["lr"]]  # 2e-05, not 0.000020
    return out.rename(columns={"lr": "learning rate", "batch_size": "batch size", "warmup": "warm-up (share)",
                               "nli_epochs": "NLI epochs", "sts_epochs": "STS-B epochs",
                               "checkpoints": "checkpoints", "freeze_embeddings": "embeddings frozen",
                               "max_length": "max tokens", "weight_decay": "weight decay"})


def checkpoints_table(checkpoints: dict, chosen: dict, runs: dict | None = None) -> pd.DataFrame:
    """Every checkpoint's optimiser step (with ``runs``, model -> FinetuneResult), validation retrieval
    and STS, the chosen one marked."""
    rows = []
    for m, c in checkpoints.items():
        steps = checkpoint_steps(runs[m]) if runs and m in runs else {}
        for _, r in c.iterrows():
            step = steps.get(round(float(r["fraction"]), 6))
            rows.append({"model": m, **({"step": step} if steps else {}),
                         "share of steps (%)": 100 * r["fraction"], "layer": int(r["layer"]),
                         "validation retrieval (%)": r["validation"], "STS 2017 (Spearman x 100)": r["sts"],
                         **({"Tatoeba (%)": r["tatoeba"]} if "tatoeba" in r else {}),
                         "chosen": r["path"] == chosen[m]["path"]})
    return pd.DataFrame(rows)


def checkpoint_steps(run) -> dict[float, int]:
    """A fine-tuning run's checkpoints: share of the steps (rounded to 6 digits) -> optimiser step."""
    return {round(float(c["fraction"]), 6): int(c["step"]) for c in run.info.get("checkpoints", [])}


def control_table(control: pd.DataFrame) -> pd.DataFrame:
    """The XNLI control before and after fine-tuning, readable headers."""
    out = control[["model", "state", "C", "source", "targets (mean)", "targets / source x 100"]].rename(
        columns={"state": "fine-tuning", "C": "C (inverse regularisation)", "source": "English accuracy (%)",
                 "targets (mean)": "target languages, mean accuracy (%)",
                 "targets / source x 100": "targets / English x 100"})
    out["C (inverse regularisation)"] = _c_text(out["C (inverse regularisation)"])
    if "ci_lo" in control:  # paired bootstrap: the same test rows in every language and state
        out[f"ratio: {CI_COLUMN}"] = [interval_text(lo, hi) for lo, hi in zip(control.ci_lo, control.ci_hi)]
        out["change of the ratio (points)"] = control["change"].to_numpy()
        out[f"change: {CI_COLUMN}"] = [interval_text(lo, hi) for lo, hi in
                                       zip(control.change_ci_lo, control.change_ci_hi)]
    return out


def across_table(across: pd.DataFrame) -> pd.DataFrame:
    """Pearson r x 100 across the target languages: one row per model and pair of measures, with the
    number of languages and the interval (languages resampled; "–" where r is undefined)."""
    out = across[["model", "pair", "n", "value"]].rename(columns={"pair": "correlation", "n": "languages",
                                                                   "value": "r x 100"})
    out["languages"] = out["languages"].astype(int)
    out[CI_COLUMN] = ([interval_text(lo, hi) for lo, hi in zip(across["ci_lo"], across["ci_hi"])]
                      if "ci_lo" in across else None)
    return out.reset_index(drop=True)


def classifier_table(settings: pd.DataFrame) -> pd.DataFrame:
    """What the XNLI classifier chose per model and setting (C, validation accuracy, training rows)."""
    out = settings.dropna(axis=1, how="all").rename(columns={
        "setting": "training", "C": "C (inverse regularisation)", "val_accuracy": "validation accuracy (%)",
        "n_train": "training rows", "classifier": "classifier", "lr": "learning rate", "batch_size": "batch size"})
    out["training"] = out["training"].str.replace("translate-train-all", "all languages (human translations)")
    if "C (inverse regularisation)" in out:
        out["C (inverse regularisation)"] = _c_text(out["C (inverse regularisation)"])
    return out.drop(columns=[c for c in ("grid_val", "seeds") if c in out])


def data_table(sizes: pd.DataFrame, n_nli: tuple[int, int], n_sts: tuple[int, int], xnli_sizes: pd.DataFrame,
               tatoeba_n: int | None, val_n: int | None, ckpt_val_n: int | None, sts_n: int | None) -> pd.DataFrame:
    """One row per data set: its parts, the sentence pairs per part (fewest–most) and what the run uses.

    Args:
        sizes: ``data, part, pairs`` (:func:`.experiments.data_sizes`).
        n_nli, n_sts: (pairs used, pairs available) of the fine-tuning data.
        xnli_sizes: XNLI Manual's ``lang, train, val, test`` rows per language (after sampling).
        tatoeba_n, val_n, ckpt_val_n, sts_n: the chapter's samples of those names (None: all).
    """
    def span(s: pd.Series) -> str:
        return f"{int(s.min()):,}" if s.min() == s.max() else f"{int(s.min()):,}–{int(s.max()):,}"

    def used(n) -> str:
        return "all" if n is None else f"up to {int(n):,} (seeded sample)"

    rows = []
    for data, what, n in (("Tatoeba", "language", tatoeba_n), ("WMT21 newstest", "language pair", val_n),
                          ("STS 2017", "monolingual track", sts_n)):
        g = sizes[sizes.data == data]
        if len(g):
            parts = f"{len(g)} {what}{'s' if len(g) != 1 else ''}"
            use = used(n) if data != "STS 2017" else ("all" if n is None else f"first {n}")
            if data == "WMT21 newstest":
                use = f"layer choice: {use}; checkpoint choice: {used(ckpt_val_n)}"
            rows.append({"data set": data, "parts": parts, "sentence pairs per part": span(g["pairs"]),
                         "used per part": use})
    rows.append({"data set": "SNLI dev + test, entailment pairs (fine-tuning)", "parts": "1",
                 "sentence pairs per part": f"{n_nli[1]:,}", "used per part": f"{n_nli[0]:,}"})
    rows.append({"data set": "STS Benchmark train (fine-tuning)", "parts": "1",
                 "sentence pairs per part": f"{n_sts[1]:,}", "used per part": f"{n_sts[0]:,}"})
    if len(xnli_sizes):
        split = ", ".join(f"{s} {span(xnli_sizes[s])}" for s in ("train", "val", "test"))
        rows.append({"data set": "XNLI Manual (dev + test, split 8:1:1 by premise)",
                     "parts": f"{len(xnli_sizes)} languages", "sentence pairs per part": None,
                     "used per part": split})
    return pd.DataFrame(rows)


def changes_table(deltas: pd.DataFrame, change_ci: pd.DataFrame, spread: dict | None = None) -> pd.DataFrame:
    """Table 1's changes with fine-tuning (points), the paper's models and ours: one row per model and task
    (narrow enough for a page), our interval beside ours.

    Args:
        deltas: :func:`.calibrated.finetuning_changes`; ``change_ci``: :func:`.report.change_intervals`.
        spread: our model -> :class:`.seed_spread.SeedSpread`; adds the change's range over the measured
            fine-tuning seeds ("not measured for this configuration" where none matches).

    Returns:
        Columns ``model`` (the paper's marked "(paper)"), ``task``, ``change (points)``, the 95% interval
        (ours) and, with ``spread``, the range over fine-tuning seeds and its SD (ours).
    """
    rows = []
    for task in ("CLSR", "STS"):
        ci = change_ci[change_ci.task == task].set_index("model")
        for d in deltas.to_dict("records"):
            m, ours = d["model"], d["source"] == "ours"
            row = {"model": m if ours else f"{m} (paper)", "task": task, "change (points)": d[f"change in {task}"],
                   CI_COLUMN: interval_text(ci.ci_lo.get(m), ci.ci_hi.get(m)) if ours else None}
            if spread is not None:
                row[SEEDS_COLUMN] = None if not ours else (
                    _seed_range(spread[m].changes[task]) if m in spread and spread[m].available
                    else "not measured for this configuration")
            rows.append(row)
    return pd.DataFrame(rows)


def prefix_table(effect: pd.DataFrame) -> pd.DataFrame:
    """The prefix comparison for display: one row per language (all languages pooled first), the accuracy
    with each prefix and the paired difference with its interval; a layer tag in the headers only when two
    layers are shown (the caption, :func:`.prefix_choice.prefix_caption`, names the layer)."""
    from xalign.papers.calibrated2023.prefix_choice import distinct_layers

    shown = distinct_layers(effect)
    prefixes = [c for c in effect.columns if c.endswith(": ")]
    one_model, one_layer = effect.model.nunique() == 1, shown.layer.nunique() == 1
    rows = []
    for (model, lang), g in shown.groupby(["model", "lang"], sort=False):
        row = {} if one_model else {"model": model}
        row |= {"language": "all (pooled)" if lang == "all" else lang, "pairs": int(g.n_pairs.iloc[0])}
        for _, r in g.iterrows():
            tag = "" if one_layer else f", layer {int(r.layer_index)}"
            for p in prefixes:
                row[f"{p.strip()}{tag} (%)"] = r[p]
            row[f"difference{tag} (points)"] = r["diff"]
            row[f"95% CI{tag}"] = interval_text(r.ci_lo, r.ci_hi)
        rows.append(row)
    out = pd.DataFrame(rows)
    return pd.concat([out[out.language == "all (pooled)"], out[out.language != "all (pooled)"]], ignore_index=True)
