"""Chapter 3's table assembly: per-setup rows, confidence intervals, the blocks of Tables 1-9.

The notebook calls these and displays what they return; nothing here trains
or encodes except through :mod:`.calibrated` and :mod:`.transfer`.

Confidence intervals (:mod:`xalign.measures.intervals`, percentile bootstrap,
``N_BOOT`` resamples, level ``LEVEL``, fixed seed) sit beside every sampled
number as ``ci_lo`` / ``ci_hi``:

- a Tatoeba or XNLI accuracy: resampling its sentences (rows);
- an STS Spearman: resampling its sentence pairs;
- an average over Tatoeba languages or STS tracks: each language / track
  resampled on its own (they are independent samples);
- an average, transfer rate or gap over XNLI languages: the test rows of all
  languages resampled *together* (XNLI's languages are translations of the same
  rows, so their errors are correlated);
- a change with fine-tuning: the same sentences before and after, resampled
  together.

Frames that carry the per-item arrays (``hits``, ``items``) must pass through
:func:`drop_items` before they are recorded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from xalign.data.xnli_manual import XNLIManual
from xalign.measures.interval_text import with_interval
from xalign.measures.intervals import accuracy_ci, paired_bootstrap_ci, stratified_bootstrap_ci
from xalign.measures.sts import spearman
from xalign.measures.transfer import transfer_rate
from xalign.papers.calibrated2023 import calibrated as cal
from xalign.papers.calibrated2023 import correlations, finetune, transfer

LEVEL = 0.95
N_BOOT = 1000
CI = f"{LEVEL:.0%} CI"
ITEM_COLUMNS = ("hits", "items")


def drop_items(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame without its per-item arrays (for recording and display)."""
    return frame.drop(columns=[c for c in ITEM_COLUMNS if c in frame.columns])


def _spearman100(a: np.ndarray) -> float:
    """Spearman x 100 between column 0 (cosines) and the last column (gold)."""
    return float(100 * spearman(a[:, 0], a[:, -1]))


def _with_ci(frame: pd.DataFrame, seed: int) -> pd.DataFrame:
    """``ci_lo`` / ``ci_hi`` for every row that holds ``hits`` (accuracy) or ``items`` (Spearman)."""
    out = frame.copy()
    lo, hi = [], []
    for _, r in out.iterrows():
        if isinstance(r.get("hits"), np.ndarray):
            ci = accuracy_ci(r["hits"], N_BOOT, LEVEL, seed, scale=100)
        elif isinstance(r.get("items"), np.ndarray):
            ci = paired_bootstrap_ci([r["items"]], _spearman100, N_BOOT, LEVEL, seed)
        else:
            ci = (np.nan, np.nan)
        lo.append(ci[0])
        hi.append(ci[1])
    out["ci_lo"], out["ci_hi"] = lo, hi
    return out


# ------------------------------------------------------------------ sections 2-5: rows per setup
def tatoeba_at_best(tat: dict, best: dict, setup: str, seed: int = 0) -> pd.DataFrame:
    """Tatoeba rows of each model at its layer (``best[model]``; 0 for a model without layers),
    labelled ``setup``, with intervals where the frame kept its ``hits``."""
    frames = [cal.at_layer(t, best.get(m, 0)).assign(model=m, setup=setup) for m, t in tat.items()]
    return _with_ci(pd.concat(frames, ignore_index=True), seed)


def sts_rows(encoders: dict, best: dict, setup: str, n: int | None = None, seed: int = 0) -> pd.DataFrame:
    """STS 2017 (monolingual tracks) of each encoder at its layer, with intervals and ``items``."""
    frames = [cal.sts_scores(e, cal.STS_MONOLINGUAL, layers=[best[m]] if getattr(e, "n_layers", 1) > 1 else None,
                             n=n, keep_items=True).assign(model=m, setup=setup)
              for m, e in encoders.items()]
    return _with_ci(pd.concat(frames, ignore_index=True), seed)


def ft_config(model: str, *, ft_by_model: Mapping | None, ft_lr: float | None, ft_batch_size: int | None,
              ft_warmup: float | None, ft_nli_epochs: int | None, ft_sts_epochs: int | None, ft_checkpoints: int,
              ft_freeze_embeddings: bool, seed: int, ft_bf16: bool | None = None,
              **extra) -> finetune.SentenceFinetuneConfig:
    """Table 10 (per model, ``ft_by_model``) overridden by the explicit ``ft_*`` parameters (None: Table 10's),
    then by ``extra`` (``checkpoints=1``, ``seed=...``). The keywords are the chapter's parameter names."""
    cfg = {"lr": 2e-5, "batch_size": 128, "warmup": 0.1, "nli_epochs": 1, "sts_epochs": 10}
    cfg.update((ft_by_model or {}).get(model, {}))
    explicit = {"lr": ft_lr, "batch_size": ft_batch_size, "warmup": ft_warmup, "nli_epochs": ft_nli_epochs,
                "sts_epochs": ft_sts_epochs, "bf16": ft_bf16}
    cfg.update({k: v for k, v in explicit.items() if v is not None})
    cfg.update(checkpoints=ft_checkpoints, freeze_embeddings=bool(ft_freeze_embeddings), seed=seed)
    cfg.update(extra)
    return finetune.SentenceFinetuneConfig(**cfg)


def layer_for_xnli(model: str, best: dict, xnli_layer) -> int:
    """The layer XNLI features are read at: the validation layer (``"best"``) or a fixed index;
    -1 for a model without layers."""
    if model not in best:
        return -1
    return best[model] if xnli_layer == "best" else int(xnli_layer)


def transfer_scores(model: str, train_langs: Sequence[str], feats: dict, data: XNLIManual, *, xnli_method: str,
                    xnli_Cs: Sequence[float], xnli_classifier: str, seed: int, xnli_lrs: Sequence[float],
                    xnli_batch_sizes: Sequence[int], xnli_seeds: Sequence[int],
                    xnli_epochs: int) -> tuple[pd.DataFrame, dict]:
    """XNLI test accuracy per language after training on ``train_langs`` with the profile's protocol
    (``xnli_method``: ``frozen``, with per-row ``hits``; ``finetune``: the paper's protocol, no per-row hits).
    The keywords are the chapter's parameter names."""
    if xnli_method == "frozen":
        return transfer.frozen_transfer(feats[model], train_langs, Cs=xnli_Cs, classifier=xnli_classifier,
                                        seed=seed, keep_hits=True)
    return transfer.finetune_transfer(model, data, train_langs, lrs=xnli_lrs, batch_sizes=xnli_batch_sizes,
                                      seeds=xnli_seeds, epochs=xnli_epochs)


# ------------------------------------------------------------------ Table 1 and the changes
def table1_rows(tatoeba: pd.DataFrame, sts: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """Averages per (model, setup): CLSR = Tatoeba over languages (rows of one direction), STS over
    tracks; intervals by resampling each language / track on its own."""
    rows = []
    for task, frame, stat in (("CLSR", tatoeba, np.mean), ("STS", sts, _spearman100)):
        col = "hits" if task == "CLSR" else "items"
        for (model, setup), g in frame.groupby(["model", "setup"], sort=False):
            lo = hi = np.nan
            if col in g and g[col].map(lambda x: isinstance(x, np.ndarray)).all():
                groups = [h.astype(float) if task == "CLSR" else h for h in g[col]]
                lo, hi = stratified_bootstrap_ci(groups, stat, np.mean, N_BOOT, LEVEL, seed)
                if task == "CLSR":
                    lo, hi = 100 * lo, 100 * hi
            rows.append({"model": model, "setup": setup, "task": task, "value": g["value"].mean(),
                         "ci_lo": lo, "ci_hi": hi})
    return pd.DataFrame(rows)


def change_intervals(tatoeba: pd.DataFrame, sts: pd.DataFrame, before: str = "none",
                     after: str = "sentence_embedding", seed: int = 0) -> pd.DataFrame:
    """Intervals of the change (after - before) in average CLSR and STS per model: the same
    sentences before and after, resampled together (each language / track on its own)."""
    rows = []
    for task, frame, col in (("CLSR", tatoeba, "hits"), ("STS", sts, "items")):
        key = "lang" if task == "CLSR" else "track"
        if col not in frame:
            continue
        for model, g in frame.groupby("model", sort=False):
            b = g[g.setup == before].set_index(key)[col]
            a = g[g.setup == after].set_index(key)[col]
            keys = [k for k in b.index if k in a.index]
            if not keys or not all(isinstance(b[k], np.ndarray) and isinstance(a[k], np.ndarray) for k in keys):
                continue
            if task == "CLSR":
                groups = [np.c_[b[k], a[k]].astype(float) for k in keys]

                def stat(x):
                    return 100 * (x[:, 1].mean() - x[:, 0].mean())
            else:
                groups = [np.c_[b[k][:, 0], a[k][:, 0], b[k][:, 1]] for k in keys]

                def stat(x):
                    return 100 * (spearman(x[:, 1], x[:, 2]) - spearman(x[:, 0], x[:, 2]))
            lo, hi = stratified_bootstrap_ci(groups, stat, np.mean, N_BOOT, LEVEL, seed)
            rows.append({"model": model, "task": task, "ci_lo": lo, "ci_hi": hi})
    return pd.DataFrame(rows, columns=["model", "task", "ci_lo", "ci_hi"])


def finetune_caption(runs: dict, deltas: pd.DataFrame, change_ci: pd.DataFrame) -> str:
    """What the fine-tuning run was and whether it moved the model beyond sampling noise, from the run:
    steps, pairs, seconds, and per model the change in CLSR and STS with its interval."""
    parts = []
    for m, r in runs.items():
        info = r.info
        cfg = info["key"]["config"]
        line = (f"`{m}`: {info['steps']} optimiser steps (batch {cfg['batch_size']}) on {info['n_nli']} NLI + "
                f"{info['n_sts']} STS-B pairs, {info['seconds']:.0f} s of training")
        ours = deltas[(deltas.model == m) & (deltas.source == "ours")]
        moved = []
        for task in ("CLSR", "STS"):
            ci = change_ci[(change_ci.model == m) & (change_ci.task == task)]
            col = f"change in {task}"
            if ours.empty or col not in ours or ci.empty:
                continue
            lo, hi = float(ci.ci_lo.iloc[0]), float(ci.ci_hi.iloc[0])
            noise = lo <= 0 <= hi
            moved.append(f"{task} {with_interval(float(ours[col].iloc[0]), lo, hi, signed=True)}"
                         + (" (within sampling noise)" if noise else ""))
        if moved:
            line += "; change " + ", ".join(moved)
        parts.append(line)
    return ("Sentence-embedding fine-tuning run here (the paper: one epoch over AllNLI plus STS-B epochs, "
            "Table 10): " + "; ".join(parts) + ".")


# ------------------------------------------------------------------ XNLI blocks (Tables 2, 3, 4, 8, 9)
def _joint_ci(arrays: Sequence[np.ndarray], stat, seed: int) -> tuple[float, float]:
    """Interval of ``stat(*arrays)`` resampling the rows of line-parallel languages together."""
    if not arrays or not all(isinstance(a, np.ndarray) for a in arrays):
        return np.nan, np.nan
    return paired_bootstrap_ci(list(arrays), stat, N_BOOT, LEVEL, seed)


def _mean_acc(*hits) -> float:
    return float(100 * np.mean([h.mean() for h in hits]))


def xnli_rows(scores: dict, block: str, langs: Sequence[str] | None = None, avg_over: Sequence[str] | None = None,
              seed: int = 0) -> pd.DataFrame:
    """One block (zero-shot / translate-train-all) for every model: per-language accuracy with
    intervals, plus ``avg`` over ``avg_over`` (default: every language) with a joint interval."""
    frames = []
    for m, s in scores.items():
        s = s if langs is None else s[s.lang.isin(langs)]
        f = _with_ci(s, seed).assign(model=m, block=block)
        sub = f if avg_over is None else f[f.lang.isin(avg_over)]
        lo, hi = _joint_ci(list(sub["hits"]) if "hits" in sub else [], _mean_acc, seed)
        avg = {"lang": "avg", "value": sub["value"].mean(), "ci_lo": lo, "ci_hi": hi, "model": m, "block": block}
        frames += [drop_items(f), pd.DataFrame([avg])]
    return pd.concat(frames, ignore_index=True)


def rate_rows(zs: dict, tta: dict, avg_over: Sequence[str], seed: int = 0) -> pd.DataFrame:
    """Transfer rate (zero-shot / translate-train-all x 100) per language and its ``avg`` over
    ``avg_over``, intervals from the two classifiers' hits on the same test rows."""
    frames = []
    for m, z in zs.items():
        t = tta[m]
        rate = transfer.transfer_rate(z, t)
        hits = "hits" in z and "hits" in t
        rows = []
        for lang, value in zip(rate["lang"], rate["value"]):
            pair = [d.loc[d.lang == lang, "hits"].item() for d in (z, t)] if hits else []
            lo, hi = _joint_ci(pair, lambda a, b: transfer_rate(a.mean(), b.mean()), seed)
            rows.append({"lang": lang, "value": value, "ci_lo": lo, "ci_hi": hi})
        r = pd.DataFrame(rows)
        sub = r[r.lang.isin(avg_over)]
        k = len(sub)
        arrays = ([z.set_index("lang").loc[lang, "hits"] for lang in sub.lang]
                  + [t.set_index("lang").loc[lang, "hits"] for lang in sub.lang]) if hits else []

        def avg_rate(*h, k=k):
            return float(np.mean([transfer_rate(h[i].mean(), h[k + i].mean()) for i in range(k)]))
        lo, hi = _joint_ci(arrays, avg_rate, seed)
        r = pd.concat([r, pd.DataFrame([{"lang": "avg", "value": sub["value"].mean(), "ci_lo": lo, "ci_hi": hi}])],
                      ignore_index=True)
        frames.append(r.assign(model=m, block="transfer_rate"))
    return pd.concat(frames, ignore_index=True)


def calibrated_rows(tatoeba: pd.DataFrame, langs: Sequence[str], seed: int = 0) -> pd.DataFrame:
    """Calibrated retrieval per language (one direction's rows of ``tatoeba``) and its ``avg``
    over ``langs``, each language resampled on its own."""
    frames = []
    for m, g in tatoeba[tatoeba.lang.isin(langs)].groupby("model", sort=False):
        row = {"lang": "avg", "value": g["value"].mean(), "ci_lo": np.nan, "ci_hi": np.nan}
        if "hits" in g and g["hits"].map(lambda x: isinstance(x, np.ndarray)).all():
            lo, hi = stratified_bootstrap_ci([h.astype(float) for h in g["hits"]], np.mean, np.mean,
                                             N_BOOT, LEVEL, seed)
            row.update(ci_lo=100 * lo, ci_hi=100 * hi)
        per = drop_items(g)[["lang", "value", "ci_lo", "ci_hi"]]
        frames.append(pd.concat([per, pd.DataFrame([row])], ignore_index=True).assign(model=m))
    return pd.concat(frames, ignore_index=True).assign(block="calibrated_retrieval")


def urdu_rows(ur: dict, source: str = "ur", seed: int = 0) -> pd.DataFrame:
    """Table 2 (XNLI Manual block): accuracy per language after training on ``source``, their
    ``avg`` (all languages) and the transfer ``gap`` (source - mean of the others), joint intervals."""
    frames = []
    for m, s in ur.items():
        f = xnli_rows({m: s}, "xnli_manual", seed=seed).drop(columns="block")
        hits = list(s["hits"]) if "hits" in s else []
        src = list(s["lang"]).index(source)

        def gap(*h, src=src):
            return float(100 * (h[src].mean() - np.mean([x.mean() for i, x in enumerate(h) if i != src])))
        lo, hi = _joint_ci(hits, gap, seed)
        frames += [f, pd.DataFrame([{"lang": "gap", "value": transfer.transfer_gap(s, source), "ci_lo": lo,
                                     "ci_hi": hi, "model": m}])]
    return pd.concat(frames, ignore_index=True).assign(data="xnli_manual")


# ------------------------------------------------------------------ display
def show(merged: pd.DataFrame, index: Sequence[str], columns: Sequence[str], digits: int = 1) -> pd.DataFrame:
    """:func:`cal.side_by_side` with our interval as a ``95% CI`` column between ours and the diff."""
    m = merged.copy()
    if "ci_lo" in m:
        m[CI] = [f"[{lo:.{digits}f}, {hi:.{digits}f}]" if np.isfinite(lo) and np.isfinite(hi) else ""
                 for lo, hi in zip(m["ci_lo"].astype(float), m["ci_hi"].astype(float))]
        return cal.side_by_side(m, index, columns, values=("paper", "ours", CI, "diff"), digits=digits)
    return cal.side_by_side(m, index, columns, digits=digits)


def paper_outside_ci(merged: pd.DataFrame) -> pd.DataFrame:
    """Rows whose paper number lies outside our interval (a difference sampling noise does not explain)."""
    m = merged.dropna(subset=["paper", "ours"])
    if "ci_lo" not in m:
        return m.iloc[0:0]
    return m[(m["paper"] < m["ci_lo"]) | (m["paper"] > m["ci_hi"])]


# ------------------------------------------------------------------ known answers (checked on every run)
def known_answers(encoders: dict, sentences: Sequence[str], layers: dict, paper8: pd.DataFrame,
                  method: str = "cosine") -> pd.DataFrame:
    """Checks with an answer known in advance, run through the chapter's own code.

    - each encoder retrieves every one of ``sentences`` (distinct) from an identical copy:
      100% at its layer (``layers[model]``), both directions;
    - the paper's Table 8 transfer rates, recomputed from its own zero-shot and
      translate-train-all rows, equal the printed ones up to rounding (per language);
    - the paper's across-model correlations, recomputed from its own rows, equal the printed ones.

    Returns one row per check: ``check``, ``expected``, ``got``, ``tolerance``, ``ok``.
    """
    sentences = list(dict.fromkeys(sentences))
    rows = []
    for m, e in encoders.items():
        layer = [layers[m]] if m in layers and getattr(e, "n_layers", 1) > 1 else None
        got = cal.paired_retrieval(e, [(s, s) for s in sentences], layers=layer, method=method)["value"].min()
        rows.append({"check": f"{m}: a sentence retrieves its identical copy ({len(sentences)} sentences)",
                     "expected": 100.0, "got": float(got), "tolerance": 0.0})
    per_lang = paper8[paper8.lang != "avg"]
    rate = transfer.transfer_rate(per_lang[per_lang.block == "zero_shot"],
                                  per_lang[per_lang.block == "translate_train_all"], keys=["model", "lang"])
    printed = rate.merge(per_lang[per_lang.block == "transfer_rate"], on=["model", "lang"], suffixes=("", "_paper"))
    rows.append({"check": f"paper Table 8: transfer rate = zero-shot / translate-train-all x 100 "
                          f"({len(printed)} cells, largest difference)",
                 "expected": 0.0, "got": float((printed["value"] - printed["value_paper"]).abs().max()),
                 "tolerance": 0.06})
    wide = paper8[paper8.model.isin(cal.PAPER_MODELS.values())].pivot_table(
        index=["model", "lang"], columns="block", values="value").reset_index()
    corr = correlations.paper_correlations(wide, over="model", by="lang", intervals=False).merge(
        paper8[["block", "lang", "value"]], on=["block", "lang"], suffixes=("", "_paper"))
    rows.append({"check": f"paper Tables 3/8: Pearson r across the four models ({len(corr)} cells, largest "
                          f"difference)", "expected": 0.0,
                 "got": float((corr["value"] - corr["value_paper"]).abs().max()), "tolerance": 0.06})
    out = pd.DataFrame(rows)
    out["ok"] = (out["got"] - out["expected"]).abs() <= out["tolerance"] + 1e-9
    return out


def language_changes(tatoeba: pd.DataFrame, before: str = "none", after: str = "sentence_embedding",
                     seed: int = 0) -> pd.DataFrame:
    """Per model and language, the change in accuracy with fine-tuning (after - before, points) and its
    interval: the same sentences before and after, resampled together.

    Args:
        tatoeba: Tatoeba rows of one direction (``model, setup, lang, value`` and ``hits``).

    Returns:
        ``model, lang, change, ci_lo, ci_hi``; models without both setups are left out.
    """
    rows = []
    for model, g in tatoeba.groupby("model", sort=False):
        b = g[g.setup == before].set_index("lang")
        a = g[g.setup == after].set_index("lang")
        for lang in [x for x in b.index if x in a.index]:
            pair = [b.loc[lang, "hits"], a.loc[lang, "hits"]] if "hits" in g else []
            lo, hi = _joint_ci(pair, lambda x, y: 100 * (y.mean() - x.mean()), seed)
            rows.append({"model": model, "lang": lang, "change": a.loc[lang, "value"] - b.loc[lang, "value"],
                         "ci_lo": lo, "ci_hi": hi})
    return pd.DataFrame(rows, columns=["model", "lang", "change", "ci_lo", "ci_hi"])
