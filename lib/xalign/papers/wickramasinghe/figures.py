"""Chapter 4's figures (Wickramasinghe and de Silva 2025, Figs. 1 and 2): our bars, the paper's values
as markers on the same axes.

Each function returns a matplotlib figure (the chapter stores it with
:func:`xalign.book.display.figure`). Bars carry our 95% bootstrap intervals
(``lo``/``hi`` of the results); the paper's numbers (LaBSE and its fastText
rows) are drawn as markers on rows of their own where we have no such method.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from xalign.measures.intervals import error_bar_lengths
from xalign.papers.wickramasinghe.report import _pick

#: bar colours of the two settings compared in each figure
COLORS = ("#4C72B0", "#DD8452")


def _paired_bars(ax, ours: pd.DataFrame, paper: pd.DataFrame, rows: list[str], hue: str,
                 levels: tuple[str, str], names: tuple[str, str]) -> None:
    """Horizontal bars of ``ours`` (two ``hue`` levels per row, with intervals) and the paper's markers."""
    y = np.arange(len(rows))
    height = 0.38
    for i, (level, name) in enumerate(zip(levels, names)):
        off = (i - 0.5) * height
        sub = ours[ours[hue] == level].set_index("setting")
        vals = [sub["value"].get(r, np.nan) for r in rows]
        lo = [sub["lo"].get(r, np.nan) if "lo" in sub else np.nan for r in rows]
        hi = [sub["hi"].get(r, np.nan) if "hi" in sub else np.nan for r in rows]
        ax.barh(y + off, vals, height, xerr=error_bar_lengths(vals, lo, hi), color=COLORS[i], label=f"ours, {name}",
                error_kw={"elinewidth": 0.8, "capsize": 1.5})
        psub = paper[paper[hue] == level].set_index("setting")
        pv = [psub["value"].get(r, np.nan) for r in rows]
        ax.plot(pv, y + off, ls="none", marker="D", ms=4, color=COLORS[i], markeredgecolor="black",
                label=f"paper, {name}")
    ax.set_yticks(y, rows)


def _legend_below(fig, axes) -> None:
    """One legend under the panels; the shared y axis is inverted once (per panel, an even count of
    inversions would undo it), so the first row is on top."""
    axes[0].invert_yaxis()
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, frameon=False, bbox_to_anchor=(0.5, -0.02))


def plot_pruning(t3: pd.DataFrame, paper_t3: pd.DataFrame, pairs: list[str], model: str):
    """Paper's Fig. 1: P@1 (%) without and with pruning, one panel per pair.

    Args:
        t3: our Table 3 rows (method, retrieval, pair, pruned "no"/"yes", value, lo, hi).
        paper_t3: the paper's Table 3 (``multilingual model`` = LaBSE there).
        pairs: the pairs to draw (our pruned pairs).
        model: the model that produced ``t3`` (named in the row labels).
    """
    def settings(df, who):
        return df.assign(setting=[f"{m.replace('multilingual model', who)}, {r}"
                                  for m, r in zip(df["method"], df["retrieval"])])
    ours = settings(t3, model)
    paper = settings(paper_t3[paper_t3["pair"].isin(pairs)], "LaBSE")
    rows = list(dict.fromkeys([*ours["setting"], *paper["setting"]]))
    fig, axes = plt.subplots(1, len(pairs), figsize=(3.3 * len(pairs) + 2.2, 0.32 * len(rows) + 1.6),
                             sharey=True, squeeze=False)
    for ax, pair in zip(axes[0], pairs):
        _paired_bars(ax, ours[ours["pair"] == pair], paper[paper["pair"] == pair], rows, "pruned", ("no", "yes"),
                     ("unpruned", "pruned"))
        ax.set_title(pair)
        ax.set_xlabel("P@1 (%)")
        ax.set_xlim(0, 100)
    _legend_below(fig, axes[0])
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    return fig


def plot_inflection(t4: pd.DataFrame, paper_t4: pd.DataFrame, model: str):
    """Paper's Fig. 2: En->Si P@k (%) with exact and stem-based matching, one panel per k."""
    def settings(df, who):
        df = _pick(df, direction="En-Si")
        return df.assign(setting=[f"{m.replace('multilingual model', who)}, {r} ({d})"
                                  for m, r, d in zip(df["method"], df["retrieval"], df["dictionary"])])
    ours, paper = settings(t4, model), settings(paper_t4, "LaBSE")
    rows = list(dict.fromkeys([*ours["setting"], *paper["setting"]]))
    ks = sorted(set(ours["k"]) | set(paper["k"]))
    fig, axes = plt.subplots(1, len(ks), figsize=(3.6 * len(ks) + 2.6, 0.32 * len(rows) + 1.6),
                             sharey=True, squeeze=False)
    for ax, k in zip(axes[0], ks):
        _paired_bars(ax, ours[ours["k"] == k], paper[paper["k"] == k], rows, "soft", ("no", "yes"),
                     ("exact", "stem-based"))
        ax.set_title(f"P@{k}")
        ax.set_xlabel("precision (%)")
        ax.set_xlim(0, 100)
    _legend_below(fig, axes[0])
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    return fig
