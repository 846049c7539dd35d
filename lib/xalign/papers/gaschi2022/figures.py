"""Chapter 1's figures (Gaschi et al. 2022, Figs. 4-8), drawn from the data the experiments return.

Each ``plot_*`` function returns a matplotlib figure (the chapter stores it with
:func:`xalign.book.display.figure`); the shaded bands are the 95% confidence
intervals recorded in the results (mean +- 1.96 std / sqrt(count)).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from xalign.data.paper_tables import paper_table
from xalign.measures import layerwise as LW

#: cosine similarity is defined on [-1, 1]: the densities of Fig. 5 are cut there
COSINE_RANGE = (-1.0, 1.0)


def _bands(ax, summary: pd.DataFrame, hue: str, x: str = "layer", styles: dict | None = None,
           label=lambda h: str(h)) -> None:
    """Mean line with markers and a 95% CI band for each value of ``hue`` (summary: x, mean, ci95)."""
    for h, sub in summary.groupby(hue, sort=False):
        sub = sub.sort_values(x)
        line, = ax.plot(sub[x], sub["mean"], marker="o", ms=3, label=label(h), **(styles or {}).get(h, {}))
        ax.fill_between(sub[x], sub["mean"] - sub["ci95"], sub["mean"] + sub["ci95"], color=line.get_color(),
                        alpha=0.2, lw=0)


def _legend_outside(ax, title: str | None = None) -> None:
    """Legend to the right of the axes, so that it hides no data."""
    ax.legend(title=title, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)


def plot_fig4(fig4: pd.DataFrame, pair: str, model: str):
    """Paper's Fig. 4: first-token cosine of translated vs random sentence pairs per layer.

    Args:
        fig4: tidy (layer, pairs, cosine), one row per sentence pair and layer.
    """
    summary = LW.summarise(fig4.rename(columns={"cosine": "value"}), ["pairs", "layer"])
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    _bands(ax, summary, "pairs")
    ax.set(xlabel="layer (0 = embeddings)", ylabel="cosine similarity",
           title=f"First-token similarity across layers ({pair}, {model})")
    ax.set_xticks(sorted(summary["layer"].unique()))
    _legend_outside(ax, "sentence pairs")
    return fig


def plot_fig5(fig5: pd.DataFrame, layer: int, pair: str, model: str):
    """Paper's Fig. 5: density of the cosine of each group of word pairs at one layer.

    The kernel density is evaluated on [-1, 1] only (cosine cannot leave it) and the legend
    sits outside the axes.
    """
    from scipy.stats import gaussian_kde

    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    grid = np.linspace(*COSINE_RANGE, 801)
    for name, sub in fig5.groupby("pairs", sort=False):
        values = sub["cosine"].to_numpy(dtype=float)
        density = gaussian_kde(values)(grid) if np.ptp(values) > 0 else np.zeros_like(grid)
        line, = ax.plot(grid, density, label=f"{name} (n = {len(values)})")
        ax.fill_between(grid, density, color=line.get_color(), alpha=0.2, lw=0)
    low = max(COSINE_RANGE[0], float(fig5["cosine"].min()) - 0.1)
    ax.set_xlim(low, COSINE_RANGE[1])
    ax.set_ylim(bottom=0)
    ax.set(xlabel="cosine similarity", ylabel="density",
           title=f"Similarity of word pairs, layer {layer} ({pair}, {model})")
    _legend_outside(ax, "word pairs")
    return fig


def _paper_last_layer(ax, table: str, paper_model: str, x: float, pairs: list[str]) -> None:
    """The paper's last-layer value of ``paper_model`` per pair, as crosses at ``x``."""
    paper = paper_table("gaschi2022", table)
    paper = paper[(paper["model"] == paper_model) & (paper["layer"] == "last") & paper["pair"].isin(pairs)]
    colors = {line.get_label(): line.get_color() for line in ax.get_lines()}
    for r in paper.itertuples():
        ax.plot([x], [r.value], marker="X", ms=7, ls="none", color=colors.get(r.pair, "black"),
                markeredgecolor="black", label=f"paper's {paper_model}, last layer: {r.pair}")


def plot_alignment(summary: pd.DataFrame, score: str, model: str, paper_model: str, table: str,
                   weak: pd.DataFrame | None = None):
    """Paper's Figs. 6 and 7: a score (x 100) per layer and language pair, with the paper's
    last-layer values of its model as crosses.

    Args:
        summary: per pair and layer: mean, ci95 (x 100).
        score: "S_weak" or "S_strong" (the y label).
        table: the paper table whose last-layer values are overlaid ("table3" or "table4").
        weak: S_weak's summary, drawn dashed and grey for reference (Fig. 7), or None.
    """
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    if weak is not None:
        for pair, sub in weak.groupby("pair", sort=False):
            ax.plot(sub["layer"], sub["mean"], ls="--", lw=1, color="grey", alpha=0.7,
                    label="S_weak (each pair)" if pair == weak["pair"].iloc[0] else None)
    _bands(ax, summary, "pair")
    _paper_last_layer(ax, table, paper_model, float(summary["layer"].max()), list(summary["pair"].unique()))
    ax.set(xlabel="layer (0 = embeddings)", ylabel=f"{score} (%)", title=f"{score} across layers ({model})")
    ax.set_xticks(sorted(summary["layer"].unique()))
    _legend_outside(ax)
    return fig


def plot_fig8(fig8: pd.DataFrame, pair: str, model: str):
    """Paper's Fig. 8: S_weak (%) of the words and of the mask token in their place, per layer."""
    summary = LW.summarise(fig8, ["input", "layer"], scale=100)
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    _bands(ax, summary, "input", label=lambda h: {"words": "the words", "masked": "mask token (context only)"}[h])
    ax.set(xlabel="layer (0 = embeddings)", ylabel="S_weak (%)",
           title=f"Retrieval with masked words ({pair}, {model})")
    ax.set_xticks(sorted(summary["layer"].unique()))
    _legend_outside(ax)
    return fig


def plot_aligner_curve(curve: pd.DataFrame):
    """Precision of our fast_align on each gold set against its training sentences (Table II's offline rows).

    Args:
        curve: tidy (pair, training sentences, links, precision %), as ``aligner_rows.learning_curve`` gives.
    """
    fig, ax = plt.subplots(figsize=(6.4, 3.2))
    styles = {"one direction": "-", "grow-diag-final-and": "--"}
    colours = {}
    for (pair, links), sub in curve.groupby(["pair", "links"], sort=False):
        sub = sub.sort_values("training sentences")
        line, = ax.plot(sub["training sentences"], sub["precision"], marker="o", ms=3, ls=styles.get(links, "-"),
                        color=colours.get(pair), label=f"{pair}, {links}")
        colours.setdefault(pair, line.get_color())
    ax.set(xlabel="training sentences", ylabel="precision (%)", title="Our fast_align: precision against training text")
    _legend_outside(ax)
    return fig
