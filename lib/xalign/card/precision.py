"""bfloat16 against float32: how far a card moves when its model runs under bf16 autocast.

The card runs a torch model under bfloat16 autocast where the hardware computes bf16 natively
(:class:`xalign.card.battery.CardConfig` ``precision="auto"``). That is a choice that can move numbers, so
the project keeps, beside each committed card, the same card computed in float32
(``reference/cards/float32/``), and the Compare models page states the measured difference:
per measure, the largest absolute change of a per-layer value over all layers, set beside the
half-width of that value's 95% interval, and whether the best layer moved.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from xalign.core.markup import text

#: float32 twins of the committed cards (same battery, ``precision: float32``)
FLOAT32_CARDS = Path(__file__).resolve().parents[3] / "reference" / "cards" / "float32"


def precision_difference(low: dict, exact: dict) -> pd.DataFrame:
    """Per measure, how far a card computed in low precision is from its float32 twin.

    Args:
        low: a card (``xalign card`` result) computed under bf16 autocast.
        exact: the same model's card, same battery, in float32.

    Returns:
        One row per measure both cards have: ``measure``; ``max_abs_diff`` (points, the largest
        |low - exact| of a per-layer value over the layers both have); ``layer`` (where it is);
        ``half_ci`` (points, half the width of float32's 95% interval at that layer); ``best_low``,
        ``best_exact`` (the best layers).

    Raises:
        ValueError: the two cards are of different models or ran different batteries.
    """
    if low["model"] != exact["model"]:
        raise ValueError(f"precision_difference needs two cards of one model, got {low['model']!r} and "
                         f"{exact['model']!r}")
    battery = {k: v for k, v in low["config"].items() if k not in ("precision", "n_boot")}
    if battery != {k: v for k, v in exact["config"].items() if k not in ("precision", "n_boot")}:
        raise ValueError(f"{low['model']}: the two cards ran different batteries")
    rows = []
    for mid, r in low["measures"].items():
        if mid not in exact["measures"]:
            continue
        ex = {x["layer"]: x for x in exact["measures"][mid]["layers"]}
        diffs = [(abs(x["value"] - ex[x["layer"]]["value"]), x["layer"]) for x in r["layers"] if x["layer"] in ex]
        if not diffs:
            continue
        d, layer = max(diffs)
        rows.append({"measure": mid, "max_abs_diff": d, "layer": layer,
                     "half_ci": (ex[layer]["hi"] - ex[layer]["lo"]) / 2,
                     "best_low": r["best_layer"], "best_exact": exact["measures"][mid]["best_layer"]})
    return pd.DataFrame(rows)


def precision_markdown(cards: list[dict], float32_dir: Path = FLOAT32_CARDS) -> str:
    """The Compare models page's paragraph on precision: for each shown card computed in bfloat16 that has a
    float32 twin in ``float32_dir``, the largest move of any value and the measures whose best layer moved
    (generated from the two cards; "" when there is no such pair)."""
    from xalign.card.battery import MEASURES

    twins = {}
    for path in sorted(Path(float32_dir).glob("*.json")) if Path(float32_dir).is_dir() else []:
        twin = json.loads(path.read_text())
        twins[twin["model"]] = twin
    parts = []
    for card in cards:
        twin = twins.get(card["model"])
        if card.get("precision") != "bfloat16" or twin is None:
            continue
        diff = precision_difference(card, twin)
        top = diff.loc[diff.max_abs_diff.idxmax()]
        inside = bool((diff.max_abs_diff <= diff.half_ci).all())
        moved = diff[diff.best_low != diff.best_exact]
        best = ("no best layer moved" if moved.empty else "the best layer moved for " + "; ".join(
            f"{MEASURES[r.measure][0]} ({text(r.best_exact)} in float32, {text(r.best_low)} in bf16)"
            for r in moved.itertuples()))
        parts.append(f"- **{text(card['model'])}**: at most {top.max_abs_diff:.2f} points at any layer "
                     f"({MEASURES[top.measure][0]}, layer {text(top.layer)}, whose 95% interval is ±{top.half_ci:.2f}); "
                     f"{'every' if inside else 'not every'} change inside its value's interval; {best}.")
    if not parts:
        return ""
    return ("The cards above ran under bfloat16 autocast, the card's default where the CPU computes bf16 natively "
            "(each card names its precision). The same cards in float32 (`--set precision float32`, kept in "
            "`reference/cards/float32/`) differ from them by:\n\n" + "\n".join(parts) + "\n")
