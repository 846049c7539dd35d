"""Chapter 5's figures (Nyholm 2020), drawn from the frames :mod:`.experiments` returns.

Every function returns a matplotlib figure (not shown; the chapter stores it with
:func:`xalign.book.display.figure`). Legends sit outside the axes so they hide no
data; log axes carry ticks only at the plotted values (no overlapping minor labels).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from xalign.measures.intervals import error_bar_lengths
from xalign.papers.nyholm2020.inputs import chance

#: Table 4's series in the bar chart: column -> legend label ({model} is our encoder)
TABLE4_SERIES = {"paper": "thesis (M-BERT, Table 4)", "ours": "thesis configuration, {model}",
                 "repaired": "repaired pipeline, {model}", "repaired zero-shot from en": "repaired, zero-shot from en",
                 "CBOW": "CBOW baseline, {model}"}


def _grid(n: int, ncols: int = 3, width: float = 3.4, height: float = 2.7):
    import matplotlib.pyplot as plt

    ncols = max(1, min(ncols, n))
    nrows = int(np.ceil(n / ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(width * ncols, height * nrows), squeeze=False)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    return fig, list(axes.flat[:n])


def _log_ticks(ax, values: Sequence[float], labels: Sequence[str] | None = None) -> None:
    """Ticks on a log x axis only at ``values`` (no minor ticks, so no labels overlap)."""
    from matplotlib.ticker import FixedLocator, NullFormatter, NullLocator

    values = sorted({float(v) for v in values})
    ax.xaxis.set_major_locator(FixedLocator(values))
    ax.set_xticklabels(labels if labels is not None else [f"{v:g}" for v in values])
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_minor_formatter(NullFormatter())


def _legend_below(fig, axes, ncol: int = 3) -> None:
    handles, labels = axes[0].get_legend_handles_labels()
    seen = dict(zip(labels, handles))
    for ax in axes[1:]:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(lab, h)
    fig.tight_layout()
    fig.legend(seen.values(), seen.keys(), loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=ncol, frameon=False)


def plot_table4(t4: pd.DataFrame, model: str, classifier: str = "LR"):
    """Table 4 as grouped bars: per language this run has, the thesis' accuracy and ours (with 95 % intervals)."""
    import matplotlib.pyplot as plt

    rows = t4[t4["classifier"] == classifier].sort_values("lang")
    ran = [c for c in TABLE4_SERIES if c != "paper" and c in rows.columns]
    rows = rows[rows[ran].notna().any(axis=1)] if ran else rows  # the languages this run has
    series = [c for c in TABLE4_SERIES if c in rows.columns and rows[c].notna().any()]
    langs = list(rows["lang"])
    fig, ax = plt.subplots(figsize=(9, 3.6))
    width = 0.8 / len(series)
    x = np.arange(len(langs))
    for i, col in enumerate(series):
        y = rows[col].to_numpy(float)
        lo_col, hi_col = ("ours CI lo", "ours CI hi") if col == "ours" else (f"{col} CI lo", f"{col} CI hi")
        yerr = None
        if lo_col in rows and hi_col in rows:
            yerr = error_bar_lengths(y, rows[lo_col], rows[hi_col])
        ax.bar(x + (i - (len(series) - 1) / 2) * width, np.nan_to_num(y), width, yerr=yerr, capsize=1.5,
               label=TABLE4_SERIES[col].format(model=model), error_kw={"lw": 0.7})
    ax.axhline(chance("XNLI"), color="k", ls=":", lw=1, label=f"chance ({chance('XNLI'):.1f} %)")
    ax.set_xticks(x, langs)
    ax.set_xlabel("XNLI language")
    ax.set_ylabel("test accuracy (%)")
    ax.set_ylim(0, 100)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=3, frameon=False)
    fig.tight_layout()
    return fig


#: unknown-token share (%) above which the scatter's languages share one label (they overlap)
CROWDED_UNK = 95.0


def plot_unk_correlation(points: pd.DataFrame):
    """The thesis' XNLI accuracy against the share of words its input path turns into ``<unk>``."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for clf, marker in (("LR", "o"), ("MLP", "x")):
        pts = points[points["classifier"] == clf].dropna(subset=["UNK %"])
        ax.scatter(pts["UNK %"], pts["thesis acc (%)"], marker=marker, label=f"thesis (M-BERT), {clf}")
        if clf == "LR":  # the languages that lose nearly every word sit on top of each other: one label for them
            crowd = pts["UNK %"] >= CROWDED_UNK
            for lang, x, y in zip(pts.loc[~crowd, "lang"], pts.loc[~crowd, "UNK %"], pts.loc[~crowd, "thesis acc (%)"]):
                ax.annotate(lang, (x, y), fontsize=7, xytext=(3, 3), textcoords="offset points")
            if crowd.any():
                c = pts[crowd]
                ax.annotate(", ".join(sorted(c["lang"])), (c["UNK %"].min(), c["thesis acc (%)"].max()), fontsize=7,
                            xytext=(-50, 40), textcoords="offset points", ha="right",
                            arrowprops={"arrowstyle": "-", "lw": 0.5, "color": "grey"})
    ax.axhline(chance("XNLI"), color="k", ls=":", lw=1, label=f"chance ({chance('XNLI'):.1f} %)")
    ax.set_xlabel("words turned into <unk> on the thesis' input path (%, e5 tokenizer)")
    ax.set_ylabel("thesis XNLI test accuracy (%)")
    ax.set_xlim(0, 105)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=3, frameon=False)
    fig.tight_layout()
    return fig


def _two_series_panels(data: pd.DataFrame, column: str, series, x: str):
    """One panel per task of ``data`` (in order), each with accuracy against ``x`` for the two ``series``
    ((value of ``column``, legend label); circles, then squares). Returns (figure, axes, [(axis, task,
    the task's rows)]) for the caller's reference lines and labels."""
    tasks = list(dict.fromkeys(data["task"]))
    fig, axes = _grid(len(tasks))
    panels = []
    for ax, task in zip(axes, tasks):
        g = data[data["task"] == task]
        for (value, label), marker in zip(series, ("o", "s")):
            s = g[g[column] == value].sort_values(x)
            ax.plot(s[x], s["acc"], marker=marker, ms=3, lw=1.2, label=label)
        panels.append((ax, task, g))
    return fig, axes, panels


def plot_layer_sweep(sweep: pd.DataFrame, cbow: Mapping[str, float]):
    """Test accuracy by layer, mean vs first-token pooling, one panel per task; CBOW and chance as lines."""
    fig, axes, panels = _two_series_panels(sweep, "pooling", (("mean", "mean pooling"), ("first", "first pooling")),
                                           "layer")
    for ax, task, g in panels:
        if task in cbow:
            ax.axhline(cbow[task], color="grey", ls="--", lw=1, label="CBOW baseline")
        ax.axhline(chance(task), color="k", ls=":", lw=1, label="chance")
        ax.set_title(task)
        ax.set_xlabel("layer (0 = embeddings)")
        ax.set_ylabel("test accuracy (%)")
        ax.set_xticks(range(0, int(sweep["layer"].max()) + 1, 2))
    _legend_below(fig, axes, ncol=4)
    return fig


def plot_classifier_size(size: pd.DataFrame):
    """Test accuracy by MLP hidden size (0 = logistic regression), one line per task, log x axis."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.4))
    units = sorted(size["hidden units"].unique())
    for task, g in size.groupby("task", sort=False):
        g = g.sort_values("hidden units")
        ax.plot(g["hidden units"].clip(lower=1), g["acc"], marker="o", ms=4, label=task)
    ax.set_xscale("log")
    _log_ticks(ax, [max(u, 1) for u in units], ["LR" if u == 0 else str(int(u)) for u in units])
    ax.set_xlabel("MLP hidden units (LR = logistic regression, no hidden layer)")
    ax.set_ylabel("test accuracy (%)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=3, frameon=False)
    fig.tight_layout()
    return fig


def plot_learning_curve(curves: pd.DataFrame):
    """Test accuracy by training-set size, repaired vs thesis features, one panel per task (log x)."""
    fig, axes, panels = _two_series_panels(
        curves, "features", (("repaired", "repaired features"), ("thesis", "thesis features")), "n_train")
    for ax, task, g in panels:
        ax.axhline(chance(task), color="k", ls=":", lw=1, label="chance")
        ax.set_xscale("log")
        _log_ticks(ax, g["n_train"].unique(), [f"{int(v):,}" for v in sorted(g["n_train"].unique())])
        ax.tick_params(axis="x", labelrotation=45)
        ax.set_title(task)
        ax.set_xlabel("training items")
        ax.set_ylabel("test accuracy (%)")
    _legend_below(fig, axes, ncol=3)
    return fig


def plot_diagnosis(ladder: pd.DataFrame):
    """Test accuracy (with its 95 % interval) at each step A-F of the diagnosis, one panel per task."""
    tasks = list(dict.fromkeys(ladder["task"]))
    steps = sorted(ladder["step"].str[0].unique())
    fig, axes = _grid(len(tasks))
    probes = sorted(ladder["probe"].unique())
    for ax, task in zip(axes, tasks):
        g = ladder[ladder["task"] == task]
        for j, name in enumerate(probes):
            s = g[g["probe"] == name].assign(sid=lambda d: d["step"].str[0]).set_index("sid").reindex(steps)
            x = np.arange(len(steps)) + (j - (len(probes) - 1) / 2) * 0.12
            y = s["acc"].to_numpy(float)
            err = error_bar_lengths(y, s["acc_lo"], s["acc_hi"])
            ax.errorbar(x, y, yerr=err, marker="o", ms=3, lw=1, capsize=2, label=name)
        ax.axhline(chance(task), color="k", ls=":", lw=1, label="chance")
        ax.set_xticks(range(len(steps)), steps)
        ax.set_title(task)
        ax.set_xlabel("step (A-F, see the text)")
        ax.set_ylabel("test accuracy (%)")
    _legend_below(fig, axes, ncol=3)
    return fig
