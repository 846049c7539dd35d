"""Chapter 3's figures, one ``plot_*`` function each: a matplotlib figure from the frames the
``run_*`` functions return (:mod:`.experiments`, :mod:`.transfer_experiments`).

Every drawn line or marker set has a legend entry (reference lines too), axes carry units, and
where the paper prints the plotted numbers its points are overlaid. The functions draw only;
the chapter stores each figure with ``xalign.book.display.figure``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from xalign.measures.intervals import error_bar_lengths

#: line styles of the two retrieval directions
DIRECTION_STYLE = {"xx->en": "-", "en->xx": "--"}


def _axes(n: int, width: float = 4.6, height: float = 3.2, **kwargs):
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, max(n, 1), figsize=(width * max(n, 1), height), squeeze=False, **kwargs)
    return fig, list(axes[0])


def _legend_below(fig, axes, ncol: int = 3) -> None:
    """One legend under the panels with every labelled artist of the panels (each label once)."""
    seen: dict[str, object] = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(label, handle)
    fig.legend(list(seen.values()), list(seen), loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=ncol,
               frameon=False)


def plot_layer_curves(curves: pd.DataFrame, best: dict):
    """Retrieval accuracy at every layer, one panel per model: each data set (colour) and direction
    (line style) is a labelled line; a dotted line marks the layer chosen on validation.

    Args:
        curves: ``model, data, direction, layer, value`` (accuracy %, means over languages / pairs).
        best: model -> the layer chosen on validation.

    Returns:
        The figure.
    """
    import matplotlib.pyplot as plt

    models = list(dict.fromkeys(curves["model"]))
    fig, axes = _axes(len(models))
    colours = dict(zip(dict.fromkeys(curves["data"]), plt.rcParams["axes.prop_cycle"].by_key()["color"]))
    for ax, m in zip(axes, models):
        sub = curves[curves.model == m]
        for (data, direction), g in sub.groupby(["data", "direction"], sort=False):
            g = g.sort_values("layer")
            ax.plot(g["layer"], g["value"], marker="o", ms=3, color=colours[data],
                    ls=DIRECTION_STYLE.get(direction, "-."), label=f"{data}, {direction}")
        ax.axvline(best[m], color="grey", ls=":", lw=1, label="layer chosen on validation")
        ax.set_title(m)
        ax.set_xlabel("layer (0 = embeddings)")
        ax.set_ylabel("retrieval accuracy (%)")
    _legend_below(fig, axes, ncol=2)
    return fig


def plot_language_layers(per_language: pd.DataFrame, best: dict):
    """Tatoeba accuracy (mean of both directions) per language and layer as a heat map, one panel per
    model; languages sorted by their accuracy at the chosen layer (framed), each row labelled.

    Args:
        per_language: ``model, lang, layer, value`` (accuracy %).
        best: model -> the layer chosen on validation.
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    models = list(dict.fromkeys(per_language["model"]))
    n_langs = per_language["lang"].nunique()
    fig, axes = _axes(len(models), width=5.2, height=max(2.4, 0.16 * n_langs + 1.2))
    image = None
    for ax, m in zip(axes, models):
        grid = per_language[per_language.model == m].pivot_table(index="lang", columns="layer", values="value")
        grid = grid.sort_values(best[m], ascending=False)
        image = ax.imshow(grid.to_numpy(), aspect="auto", cmap="viridis", vmin=0, vmax=100)
        ax.set_yticks(range(len(grid)), grid.index, fontsize=7)
        ax.set_xticks(range(len(grid.columns)), [str(c) for c in grid.columns], fontsize=7)
        col = list(grid.columns).index(best[m])
        ax.add_patch(Rectangle((col - 0.5, -0.5), 1, len(grid), fill=False, ec="white", lw=1.5))
        ax.set_title(f"{m} (framed: layer {best[m]}, chosen on validation)")
        ax.set_xlabel("layer (0 = embeddings)")
        ax.set_ylabel("Tatoeba language")
    if image is not None:
        fig.colorbar(image, ax=axes, label="Tatoeba accuracy (%), mean of both directions", shrink=0.8)
    plt.setp([ax.spines.values() for ax in axes], visible=False)
    return fig


def plot_losses(losses: pd.DataFrame):
    """Training loss per step of each fine-tuning run, one labelled line per loss (NLI: multiple
    negatives ranking; STS-B: cosine similarity), one panel per model.

    Args:
        losses: ``model, step, task, loss``.
    """
    models = list(dict.fromkeys(losses["model"]))
    fig, axes = _axes(len(models), height=2.8)
    for ax, m in zip(axes, models):
        for task, g in losses[losses.model == m].groupby("task", sort=False):
            ax.plot(g["step"], g["loss"], marker=".", ms=3, lw=1, label=f"{task} loss")
        ax.set_title(m)
        ax.set_xlabel("training step")
        ax.set_ylabel("loss (per batch)")
    _legend_below(fig, axes)
    return fig


def plot_fig2(fig2: pd.DataFrame, chosen: dict | None = None):
    """The paper's Fig. 2: retrieval and STS minus their value at the first point (the untuned model when
    ``fig2`` holds share 0), against the share of the fine-tuning data, one panel per model; with ``chosen``, a dashed line at the checkpoint
    validation chose (the one calibrated retrieval uses).

    Args:
        fig2: ``model, fraction, metric, value`` (points: accuracy % or Spearman x 100).
        chosen: model -> the chosen checkpoint's row (its ``fraction``), or None.
    """
    from matplotlib.ticker import PercentFormatter

    models = list(dict.fromkeys(fig2["model"]))
    fig, axes = _axes(len(models))
    for ax, m in zip(axes, models):
        for metric, g in fig2[fig2.model == m].groupby("metric", sort=False):
            g = g.sort_values("fraction")
            ax.plot(g["fraction"], g["value"], marker="o", ms=4, label=metric)
        first = "the untuned model" if float(fig2[fig2.model == m]["fraction"].min()) == 0 else "the first point"
        ax.axhline(0, color="grey", lw=0.8, ls=":", label=f"no change from {first}")
        if chosen and m in chosen:
            ax.axvline(float(chosen[m]["fraction"]), color="black", lw=0.8, ls="--",
                       label="checkpoint chosen on validation")
        ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
        ax.set_title(m)
        ax.set_xlabel("share of the fine-tuning data seen")
        ax.set_ylabel(f"difference to {first} (points)")
    _legend_below(fig, axes)
    return fig


def plot_transfer_scatter(per_model: pd.DataFrame, direction: str, paper: pd.DataFrame | None = None,
                          paper_model: str | None = None, intervals: pd.DataFrame | None = None):
    """Per target language: zero-shot accuracy (left) and transfer rate (right) against calibrated
    retrieval, one colour per model, each point labelled with its language and, with ``intervals``,
    vertical bars for its 95% interval; the paper's points of ``paper_model`` overlaid (open black
    circles) where ``paper`` (its Table 8) prints them.

    Args:
        per_model: ``model, lang, calibrated_retrieval, zero_shot, transfer_rate, ...`` (%).
        direction: the Tatoeba direction of calibrated retrieval ("xx->en").
        paper: the paper's Table 8 (``block, model, lang, value``), or None.
        paper_model: the paper model to overlay (e.g. "LaBSE").
        intervals: ``model, block, lang, ci_lo, ci_hi`` (the transfer blocks), or None.
    """
    panels = (("zero_shot", "zero-shot accuracy (%)"), ("transfer_rate", "transfer rate (%)"))
    fig, axes = _axes(2, width=5.2, height=3.8)
    theirs = None
    if paper is not None and paper_model:
        p = paper[(paper.model == paper_model) & (paper.lang != "avg")]
        theirs = p.pivot_table(index="lang", columns="block", values="value")
    for ax, (y, label) in zip(axes, panels):
        for m, g in per_model.groupby("model", sort=False):
            if y not in g or g[y].isna().all():
                continue
            points = ax.scatter(g["calibrated_retrieval"], g[y], s=28, label=m)
            if intervals is not None:
                ci = intervals[(intervals.model == m) & (intervals.block == y)].set_index("lang")
                lo, hi = g["lang"].map(ci["ci_lo"]), g["lang"].map(ci["ci_hi"])
                ax.errorbar(g["calibrated_retrieval"], g[y], yerr=error_bar_lengths(g[y], lo, hi), fmt="none",
                            lw=0.8, alpha=0.6, ecolor=points.get_facecolor()[0],
                            label="95% interval (test rows resampled)")
            for _, r in g.iterrows():
                ax.annotate(r["lang"], (r["calibrated_retrieval"], r[y]), fontsize=7, xytext=(3, 2),
                            textcoords="offset points", color=points.get_facecolor()[0])
        if theirs is not None and {"calibrated_retrieval", y} <= set(theirs.columns):
            ax.scatter(theirs["calibrated_retrieval"], theirs[y], s=28, facecolors="none", edgecolors="black",
                       label=f"the paper's {paper_model} (its Table 8)")
        ax.set_xlabel(f"calibrated Tatoeba retrieval, {direction} (%)")
        ax.set_ylabel(label)
    _legend_below(fig, axes)
    return fig


def plot_urdu(urdu: dict, langs: Sequence[str], source: str = "ur", paper: pd.DataFrame | None = None,
              counterpart: dict | None = None):
    """Zero-shot accuracy per test language after training on ``source``: bars per model, a line in
    the model's colour at its accuracy on the source language itself, and the paper's XNLI Manual
    accuracies of each model's counterpart (black markers) where ``paper`` (its Table 2) prints them.

    Args:
        urdu: model -> ``lang, value`` (accuracy %).
        langs: the test languages, in order.
        paper: the paper's Table 2 (``data, model, lang, value``), or None.
        counterpart: our model -> the paper model its numbers are compared with.
    """
    import matplotlib.pyplot as plt

    models = [m for m, s in urdu.items() if s is not None]
    fig, axes = _axes(1, width=max(6.0, 0.45 * len(langs) * max(len(models), 1)), height=3.4)
    ax = axes[0]
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    width = 0.8 / max(len(models), 1)
    x = np.arange(len(langs))
    for i, m in enumerate(models):
        s = urdu[m].set_index("lang")["value"].reindex(list(langs))
        colour = colours[i % len(colours)]
        ax.bar(x + (i - (len(models) - 1) / 2) * width, s.to_numpy(), width, color=colour, label=m)
        ax.axhline(s.get(source, np.nan), color=colour, ls=":", lw=1.2,
                   label=f"{m}: accuracy on {source} itself (the source)")
    if paper is not None and counterpart:
        shown = set()
        for m in models:
            label = counterpart.get(m)
            p = paper[(paper.data == "xnli_manual") & (paper.model == label)].set_index("lang")["value"]
            if label is None or p.empty or label in shown:
                continue
            shown.add(label)
            ax.plot(x, p.reindex(list(langs)).to_numpy(), "k_", ms=14, mew=2,
                    label=f"the paper's {label} (its Table 2, XNLI Manual)")
    ax.set_xticks(x, list(langs))
    ax.set_xlabel(f"test language (classifier trained on {source})")
    ax.set_ylabel("XNLI accuracy (%)")
    _legend_below(fig, axes, ncol=2)
    return fig
