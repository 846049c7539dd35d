"""Chapter 2's figures (Liu et al. 2019, Figs. 1-3): curves against the number of parallel sentences.

Each function takes the run's frames (:mod:`.report` computes them) and returns a matplotlib figure. Where
the frame holds every seed's rows (a ``seed`` column), each curve is the mean over the seeds and its band
the seeds' range (min to max): a rerun's noise shows as the band's width, not as a moved line.
"""

from __future__ import annotations

import pandas as pd

from xalign.measures.btsr.constants import LEVELS
from xalign.papers.liu2020.report import retrieval_series, unmapped


def seed_range(values) -> tuple[float, float]:
    """The band of a curve over the seeds: their min and max (a single seed: a zero-width band)."""
    return float(min(values)), float(max(values))


def curve_plot(grid: pd.DataFrame, metric: str, ylabel: str, variants, extra: dict | None = None,
               paper_points: pd.DataFrame | None = None, ceiling: dict | None = None):
    """One panel per variant: metric (x100) against the training size; dict maps and the unaligned
    space (``extra``: variant -> value) as flat lines; the paper's quoted points (``paper_points``:
    variant, method, n, value in %) as stars where a panel's variant has them; ``ceiling`` (variant -> %):
    the word-form ceiling, a dash-dot line."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    fig, axes = plt.subplots(1, len(variants), figsize=(6.5 * len(variants), 4.2), squeeze=False, sharey=True)
    for ax, v in zip(axes[0], variants):
        d = grid[(grid.variant == v) & (grid.signal != "dict") & (grid.technique == "orig")].dropna(subset=[metric])
        if not len(d):  # e.g. BCWS for a variant without Chinese
            ax.text(0.5, 0.5, f"no {ylabel} for {v}", ha="center", va="center", transform=ax.transAxes)
            ax.set_title(v)
            continue
        sns.lineplot(data=d.assign(y=100 * d[metric]), x="n", y="y", hue="level", style="signal", markers=True,
                     ax=ax, hue_order=list(LEVELS), estimator="mean", errorbar=seed_range)
        flat = grid[(grid.variant == v) & (grid.signal == "dict") & (grid.technique == "orig")].groupby(
            "level", sort=False)[metric].mean().reset_index()
        for (_, r), c in zip(flat.iterrows(), ["tab:orange", "tab:green"]):
            ax.axhline(100 * r[metric], ls=":", color=c, label=f"{r.level} dict orig")
        if extra is not None and v in extra:
            ax.axhline(100 * extra[v], ls="--", color="grey", label="no mapping (centred)")
        if ceiling is not None and v in ceiling:
            ax.axhline(ceiling[v], ls="-.", color="black", lw=1, label="word-form-only retriever (ceiling)")
        if paper_points is not None:
            for r in paper_points[paper_points["variant"] == v].itertuples():
                ax.scatter([r.n], [r.value], marker="*", s=90, color="black", zorder=5,
                           label=f"paper (text): {r.method}, n = {r.n}")
        _axes(ax, ylabel, v, sorted(d["n"].unique()))
    _legend_outside(fig, axes[0])
    return fig


def retrieval_plot(grid: pd.DataFrame, original: pd.DataFrame, variants):
    """Figure 2: sentence retrieval P@5 against the training size, [token] and [type] evaluations."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    sr = retrieval_series(grid)
    base = unmapped(original, True)
    fig, axes = plt.subplots(1, len(variants), figsize=(6.5 * len(variants), 4.2), squeeze=False, sharey=True)
    for ax, v in zip(axes[0], variants):
        d = sr[(sr.variant == v) & (sr.signal != "dict") & (sr.technique == "orig")]
        sns.lineplot(data=d.assign(y=100 * d.sr), x="n", y="y", hue="level", style="signal", markers=True, ax=ax,
                     estimator="mean", errorbar=seed_range)
        ax.axhline(100 * base.loc[v, "sr_token"], ls="--", color="grey", label="no mapping (centred)")
        _axes(ax, "sentence retrieval P@5 (%)", v, sorted(d["n"].unique()))
    _legend_outside(fig, axes[0])
    return fig


def _axes(ax, ylabel: str, title: str, sizes=()) -> None:
    """Log x axis with ticks only at the plotted training sizes (no overlapping minor labels)."""
    from matplotlib.ticker import FixedLocator, NullFormatter, NullLocator

    ax.set_xscale("log")
    if len(sizes):
        ax.xaxis.set_major_locator(FixedLocator([float(n) for n in sizes]))
        ax.set_xticklabels([f"{int(n):,}" for n in sizes])
        ax.xaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("parallel sentence pairs used for the alignment")
    ax.set_ylabel(ylabel)
    ax.set_title(title)


def _legend_outside(fig, axes) -> None:
    """One legend for all panels, below them (it hides no data); the panels' own legends removed."""
    handles: dict = {}
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
        if ax.get_legend() is not None:
            ax.get_legend().remove()
    fig.tight_layout()
    fig.legend(list(handles.values()), list(handles.keys()), loc="upper center", bbox_to_anchor=(0.5, 0.0),
               ncol=4, frameon=False, fontsize=7)
