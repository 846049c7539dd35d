"""What carries fine-tuning's cost on retrieval: the layer read, or the input prefix? (issue 45, finding 4)

Two things changed at once when the chapter moved from e5's ``passage: `` prefix to ``query: ``: the
prefix, and the layer validation chose (the prefix moved it). Fine-tuning's cost on Tatoeba grew with
them. The controls hold one of the two fixed: the same Tatoeba sample, the untuned model and the chosen
fine-tuned checkpoint, read

- at the chosen layer with the chapter's prefix (the chapter's own numbers),
- at the layer the other prefix's validation chooses, with the chapter's prefix (the layer's part),
- at the chosen layer with the other prefix (the prefix's part).

Each condition's cost is the paired change (fine-tuned - untuned) with its 95% interval, the same
sentences resampled together. A factor *carries* the cost when moving it alone makes the cost smaller
with intervals apart (:func:`xalign.measures.verdicts.separated`); the sentence is generated from the rows.
"""

from __future__ import annotations

import pandas as pd

from xalign.core import markup
from xalign.measures import verdicts
from xalign.measures.interval_text import interval, with_interval
from xalign.papers.calibrated2023 import calibrated as cal
from xalign.papers.calibrated2023 import report

BEFORE, AFTER = "none", "sentence_embedding"
#: the conditions, in the table's order: (label, which prefix, which layer)
CONDITIONS = (("the chapter's", "chapter", "chosen"), ("other layer", "chapter", "other"),
              ("other prefix", "other", "chosen"))


def control_layers(chosen: int, other_prefix_layer: int) -> dict[str, int]:
    """The layers the controls read: ``chosen`` and the layer the other prefix's validation chose; when
    both prefixes choose the same layer, the one below it (the controls still separate two layers).

    Raises:
        ValueError: if ``chosen`` is below 1 (no layer below the chosen one to compare with).
    """
    chosen, other = int(chosen), int(other_prefix_layer)
    if other == chosen:
        if chosen < 1:
            raise ValueError(f"chosen layer = {chosen}: the controls need a layer >= 1 (one below it to compare)")
        other = chosen - 1
    return {"chosen": chosen, "other": other}


def cost_rows(model: str, tatoeba: dict, prefixes: dict[str, str], layers: dict[str, int], direction: str,
              seed: int = 0) -> pd.DataFrame:
    """One row per condition: Tatoeba accuracy (%) before and after fine-tuning and the paired change.

    Args:
        model: the model's name (a column of the rows).
        tatoeba: ``(state, prefix role) -> tatoeba_retrieval`` frame with ``hits`` at both ``layers``;
            state ``"none"`` (untuned) or ``"sentence_embedding"`` (the chosen checkpoint), role
            ``"chapter"`` or ``"other"``.
        prefixes: role -> the prefix text; layers: ``"chosen"`` / ``"other"`` -> layer index.
        direction: the Tatoeba direction compared (the chapter's ``compare_direction``).

    Returns:
        ``model, condition, prefix, layer, before, before_lo, before_hi, after, after_lo, after_hi,
        change, change_lo, change_hi`` (points; intervals 95%, languages resampled on their own).
    """
    rows = []
    for label, role, which in CONDITIONS:
        layer = layers[which]
        frames = []
        for state in (BEFORE, AFTER):
            t = cal.at_layer(tatoeba[(state, role)], layer)
            frames.append(t[t.direction == direction].assign(model=model, setup=state))
        both = pd.concat(frames, ignore_index=True)
        avg = report.table1_rows(both, both.iloc[0:0].assign(items=[]), seed=seed).set_index("setup")
        ci = report.change_intervals(both, both.iloc[0:0], BEFORE, AFTER, seed=seed)
        before, after = avg.loc[BEFORE], avg.loc[AFTER]
        rows.append({"model": model, "condition": label, "prefix": prefixes[role], "layer": layer,
                     "before": before["value"], "before_lo": before["ci_lo"], "before_hi": before["ci_hi"],
                     "after": after["value"], "after_lo": after["ci_lo"], "after_hi": after["ci_hi"],
                     "change": after["value"] - before["value"],
                     "change_lo": float(ci.ci_lo.iloc[0]), "change_hi": float(ci.ci_hi.iloc[0])})
    return pd.DataFrame(rows)


def carries(rows: pd.DataFrame, condition: str, margin: float = 0.0) -> str:
    """Whether moving one factor (``condition``) makes fine-tuning's cost smaller than the chapter's:
    ``"up"`` (the cost shrinks, intervals apart: that factor carries it), ``"down"`` (it grows),
    ``"unresolved"`` (the intervals overlap) or ``"none"``."""
    own = rows[rows.condition == CONDITIONS[0][0]].iloc[0]
    ctl = rows[rows.condition == condition].iloc[0]
    return verdicts.separated(ctl.change_lo, ctl.change_hi, own.change_lo, own.change_hi, margin=margin)


def _cost(r) -> str:
    return f"{r.change:+.1f} points {interval(r.change_lo, r.change_hi, signed=True)}"


def cost_sentence(rows: pd.DataFrame, margin: float = 0.0) -> str:
    """What carries fine-tuning's cost, per model, generated from :func:`cost_rows`' rows."""
    out = []
    for model, g in (rows.groupby("model", sort=False) if len(rows) else ()):
        own, lay, pre = (g[g.condition == c[0]].iloc[0] for c in CONDITIONS)
        text = (f"Fine-tuning changes the Tatoeba accuracy of {markup.code(model)} by {_cost(own)} at layer "
                f"{own.layer} with the prefix {markup.code(own.prefix.strip())}; read at layer {lay.layer} with the "
                f"same prefix, by {_cost(lay)}; at layer {pre.layer} with {markup.code(pre.prefix.strip())}, by "
                f"{_cost(pre)}. ")
        by_layer, by_prefix = carries(g, lay.condition, margin), carries(g, pre.condition, margin)
        named = {"up": "carries the cost (the change is smaller with its intervals apart)",
                 "down": "does not explain the cost (the change is larger there)",
                 "unresolved": "leaves the cost where it is (the intervals overlap)",
                 "none": "cannot be judged (no interval)"}
        text += f"The layer {named[by_layer]}; the prefix {named[by_prefix]}."
        if by_layer == verdicts.UP and by_prefix != verdicts.UP:
            text += (f" The cost comes with the layer read, not with the prefix: fine-tuning changes layer "
                     f"{own.layer} more than layer {lay.layer}.")
        out.append(text)
    return " ".join(out)


def cost_table(rows: pd.DataFrame) -> pd.DataFrame:
    """The controls for the page: one row per condition, values with their intervals (points)."""
    def iv(v, lo, hi, sign=""):
        return with_interval(v, lo, hi, signed=sign == "+")

    return pd.DataFrame({
        "model": rows.model, "condition": rows.condition, "prefix": rows.prefix.str.strip(), "layer": rows.layer,
        "untuned (%)": [iv(r.before, r.before_lo, r.before_hi) for r in rows.itertuples()],
        "fine-tuned (%)": [iv(r.after, r.after_lo, r.after_hi) for r in rows.itertuples()],
        "change (points)": [iv(r.change, r.change_lo, r.change_hi, "+") for r in rows.itertuples()]})


def run_cost_controls(setup, plain, tuned: dict, chosen: dict, run, *, val_n: int | None, tatoeba_n: int | None,
                      seed: int, method: str, compare_direction: str) -> pd.DataFrame:
    """The controls for every model whose family documents two prefixes (e5's ``query: `` / ``passage: ``):
    Tatoeba of the untuned model and the chosen checkpoint at both layers with both prefixes (records
    ``finetuning_cost_controls``; an empty frame when no model has a second prefix).

    ``tuned``: model -> the chosen checkpoint's encoder (the chapter's prefix); ``chosen``: model -> its row
    (``path``); the keywords: the chapter's samples, retrieval method and compared direction.
    """
    from xalign.core.loading import load_encoder
    from xalign.core.prefixes import documented_prefix
    from xalign.papers.calibrated2023.prefix_choice import has_prefix_choice

    frames = []
    for m in [m for m in setup.models if has_prefix_choice(m)]:
        enc = setup.encoders[m]
        prefixes = {"chapter": enc.prefix, "other": documented_prefix(m, "passage")}
        other = load_encoder(m, prefix=prefixes["other"], progress=False)
        val = cal.validation_retrieval(other, setup.val_pairs, n=val_n, seed=seed, method=method)
        layers = control_layers(plain.best[m], cal.validation_best_layer(val))
        encoders = {(BEFORE, "other"): other, (AFTER, "chapter"): tuned[m],
                    (AFTER, "other"): load_encoder(str(chosen[m]["path"]), prefix=prefixes["other"],
                                                   progress=False)}
        tat = {k: cal.tatoeba_retrieval(e, setup.tatoeba_langs, n=tatoeba_n, seed=seed,
                                        layers=sorted(set(layers.values())), method=method, keep_hits=True)
               for k, e in encoders.items()}
        tat[(BEFORE, "chapter")] = plain.tatoeba[m]  # every layer, with hits
        frames.append(cost_rows(m, tat, prefixes, layers, compare_direction, seed=seed))
    out = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    if len(out):
        run.record("finetuning_cost_controls", out, title=f"Fine-tuning's change in Tatoeba accuracy "
                   f"({compare_direction}) with the layer or the input prefix moved (95% paired intervals)")
    return out


def caption(compare_direction: str) -> str:
    """The controls table's caption (``compare_direction``: the Tatoeba direction compared)."""
    return (f"Tatoeba accuracy ({compare_direction}, %) with the layer or the input prefix moved, before and "
            "after fine-tuning, and the change (points; 95% paired intervals)")
