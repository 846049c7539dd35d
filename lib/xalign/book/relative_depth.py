"""Where in depth each model aligns best: the cards' per-layer scores against relative depth.

Models of different depth (e5-small's 12 layers, Gemma 3 270M's 18) are put on one axis, the relative depth
``layer / number of layers`` (0 = the embeddings, 1 = the last layer), for the measures that ask the papers'
question most directly (Tatoeba retrieval, MEXA, S_strong). For each model and measure the page says whether
the best layer is separated from the last layer by more than both intervals
(:func:`xalign.measures.verdicts.separated`): a middle-layer peak that the sample resolves, or not.
Layers named otherwise than by a number (a sentence-transformers model's pooled ``out``) are left out: they
have no depth.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from xalign.core.markup import code, text
from xalign.measures.interval_text import ci, with_interval
from xalign.measures.verdicts import UP, separated

#: measure id -> short name on the figure and in the text
DEPTH_MEASURES = {"tatoeba_nn_xx-en": "Tatoeba NN xx→en", "mexa": "MEXA", "s_strong": "S_strong"}
COLUMNS = ["model", "measure", "layer", "n_layers", "depth", "value", "lo", "hi", "n"]


def depth_rows(cards: list[dict], measures=tuple(DEPTH_MEASURES)) -> pd.DataFrame:
    """One row per (model, measure, numbered layer): ``depth`` = layer / the model's largest numbered layer.

    Args:
        cards: cards as :func:`xalign.card.battery.run_card` writes them (``measures[id]["layers"]`` rows with
            ``layer``, ``value``, ``lo``, ``hi``).
        measures: the measure ids to keep (a card without one contributes no rows for it).

    Returns:
        columns :data:`COLUMNS` (value, lo, hi in the measure's unit, e.g. accuracy %; ``n`` the items scored).
    """
    rows = []
    for card in cards:
        for mid in measures:
            layers = [r for r in card.get("measures", {}).get(mid, {}).get("layers", []) if str(r["layer"]).isdigit()]
            if len(layers) < 2:
                continue
            n = max(int(r["layer"]) for r in layers)
            rows += [{"model": card["model"], "measure": mid, "layer": int(r["layer"]), "n_layers": n,
                      "depth": int(r["layer"]) / n, "value": r["value"], "lo": r["lo"], "hi": r["hi"],
                      "n": r.get("n")}
                     for r in layers]
    return pd.DataFrame(rows, columns=COLUMNS)


def peak_findings(rows: pd.DataFrame) -> pd.DataFrame:
    """Per (model, measure): the best numbered layer, the last one, and whether the best lies above the last
    beyond both intervals (``separated`` is ``"up"``; ``"unresolved"`` when they overlap; the best *is* the
    last: ``"last"``)."""
    out = []
    for (model, mid), d in rows.groupby(["model", "measure"], sort=False):
        best, last = d.loc[d["value"].idxmax()], d.loc[d["layer"].idxmax()]
        verdict = "last" if best["layer"] == last["layer"] else separated(best["lo"], best["hi"], last["lo"], last["hi"])
        out.append({"model": model, "measure": mid, "best layer": int(best["layer"]), "n_layers": int(best["n_layers"]),
                    "best": best["value"], "best lo": best["lo"], "best hi": best["hi"],
                    "last": last["value"], "last lo": last["lo"], "last hi": last["hi"], "separated": verdict,
                    "n": best["n"]})
    return pd.DataFrame(out)


def plot_relative_depth(rows: pd.DataFrame, path: Path) -> None:
    """One panel per measure: every model's score against relative depth, its 95% interval as a band."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    mids = [m for m in DEPTH_MEASURES if m in set(rows["measure"])]
    fig, axes = plt.subplots(1, len(mids), figsize=(4.2 * len(mids), 3.4), squeeze=False)
    for ax, mid in zip(axes.flat, mids):
        for model, d in rows[rows.measure == mid].groupby("model", sort=False):
            d = d.sort_values("depth")
            line, = ax.plot(d["depth"], d["value"], marker="o", ms=3, label=f"{model} ({d['n_layers'].iloc[0]} layers)")
            ax.fill_between(d["depth"], d["lo"], d["hi"], alpha=0.18, color=line.get_color())
        ax.set_title(DEPTH_MEASURES[mid], fontsize=11)
        ax.set_xlabel("relative depth (layer / number of layers)", fontsize=10)
        ax.set_xlim(0, 1)
        ax.tick_params(labelsize=9)
    axes.flat[0].set_ylabel("score (the measure's unit)", fontsize=10)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(4, len(labels)), fontsize=9, frameon=False)
    fig.tight_layout(rect=(0, 0.12, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _sentence(r: pd.Series) -> str:
    items = "" if pd.isna(r["n"]) else f" on the card's {int(r['n']):,} items"
    name = f"{code(r['model'])}, {text(DEPTH_MEASURES[r['measure']])}{items}"
    best = f"layer {r['best layer']} of {r['n_layers']} ({r['best']:.1f}, {ci(r['best lo'], r['best hi'])})"
    if r["separated"] == "last":
        return f"- {name}: best at its last layer, {best}."
    last = f"the last layer's {with_interval(r['last'], r['last lo'], r['last hi'])}"
    if r["separated"] == UP:
        return f"- {name}: peaks at {best}, above {last} beyond both intervals."
    return f"- {name}: highest at {best}, but not separated from {last}: the sample does not settle a peak."


def relative_depth_markdown(cards: list[dict], image_dir: Path, image_url: str) -> str:
    """The Compare models page's section: the figure (and its data as CSV beside it), then one generated
    sentence per model and measure."""
    rows = depth_rows(cards)
    if rows.empty:
        return ""
    image_dir.mkdir(parents=True, exist_ok=True)
    plot_relative_depth(rows, image_dir / "relative_depth.png")
    rows.to_csv(image_dir / "relative_depth.csv", index=False)
    found = peak_findings(rows)
    peaks = found[found.separated == UP]
    summary = (f"In {len(peaks)} of {len(found)} (model, measure) pairs the best layer lies above the last one "
               "beyond both 95% intervals.")
    flat = [c["model"] for c in cards if c["model"] not in set(rows["model"])]
    if flat:
        summary += f" Not drawn (one output, no layers): {', '.join(code(m) for m in flat)}."
    return "\n".join([
        "## Where in depth each model aligns", "",
        f"```{{figure}} {image_url}/relative_depth.png", ":name: fig-relative-depth", ":width: 100%", "",
        ("Alignment against relative depth (layer / number of layers; 0 = the embeddings) for every model "
         "with layers, on Tatoeba retrieval (NN, xx→en), MEXA and S_strong; bands: 95% bootstrap intervals "
         "over the card's items."), "```", "",
        f"The figure's data: {{download}}`relative_depth.csv <{image_url}/relative_depth.csv>`. {summary}", "",
        *[_sentence(r) for _, r in found.iterrows()], ""])
