"""What a card keeps per item: the items at its reported layer, and how often each layer is best.

A card's steps return, per measure and layer, a summary and (under the private key ``"_items"``) the
per-item outcomes it was computed from: 0/1 hits for accuracies, rows for a statistic of several
columns (STS: track, cosine, gold; XNLI: per test row and target, zero-shot and translate-train-all
correctness). :func:`layer_choice` turns them into

- ``best_layer_shares``: the share of bootstrap resamples (the items drawn once for every layer) in
  which each layer has the highest score (:func:`xalign.measures.paired.best_layer_shares`);
- ``items``: the per-item outcomes at the reported (best) layer only, compactly encoded
  (:func:`encode_items`), so that ``xalign compare`` can put two models' difference on the same
  items with a paired interval (:mod:`xalign.book.model_compare`) while the result file stays small.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from xalign.measures.paired import best_layer_shares

ITEMS = "_items"  # the private key of a layer's per-item outcomes (never written to the result file)


def encode_items(items: np.ndarray) -> dict:
    """A JSON form of per-item outcomes: 0/1 arrays as one ``"0"``/``"1"`` character each, others as numbers.

    Args:
        items: (n, ...) per-item outcomes.

    Returns:
        ``{"shape": [...], "bits": "0110..."}`` for 0/1 outcomes (C order), else
        ``{"shape": [...], "values": [...]}`` rounded to 6 significant digits.
    """
    x = np.asarray(items, dtype=float)
    flat = x.ravel()
    if np.isin(flat, (0.0, 1.0)).all():
        return {"shape": list(x.shape), "bits": "".join("1" if v else "0" for v in flat)}
    return {"shape": list(x.shape), "values": [float(f"{v:.6g}") for v in flat]}


def decode_items(record: dict) -> np.ndarray:
    """The array :func:`encode_items` wrote (float), shape checked.

    Raises:
        ValueError: the record's length does not match its shape.
    """
    shape = tuple(int(s) for s in record["shape"])
    flat = (np.frombuffer(record["bits"].encode(), np.uint8) - ord("0")).astype(float) if "bits" in record \
        else np.asarray(record["values"], float)
    if flat.size != int(np.prod(shape)):
        raise ValueError(f"per-item record holds {flat.size} values for shape {list(shape)}")
    return flat.reshape(shape)


def take_items(layers: list[dict]) -> tuple[list[dict], dict[str, np.ndarray]]:
    """Split a measure's layer rows into rows without their items, and layer label -> items (those that have them)."""
    items = {r["layer"]: r[ITEMS] for r in layers if r.get(ITEMS) is not None}
    return [{k: v for k, v in r.items() if k != ITEMS} for r in layers], items


def layer_choice(items: dict[str, np.ndarray], best: str, stat: Callable, n_boot: int, seed: int) -> dict:
    """A measure's best-layer interval and its items at the reported layer (the card's extra fields).

    Args:
        items: layer label -> (n, ...) per-item outcomes, every layer on the same items (layer order).
        best: the reported (best) layer's label.
        stat: per-item outcomes -> the measure's score.
        n_boot, seed: bootstrap resamples and seed (the card's).

    Returns:
        ``{"best_layer_shares": {label: share}, "items": encode_items(items[best])}`` (shares rounded to
        3 digits, in layer order); ``{}`` when the measure keeps no per-item outcomes (e.g. BTSR's P@1
        with fractional credit for ties), or they differ in shape across layers.
    """
    if best not in items or len({np.shape(v) for v in items.values()}) != 1:
        return {}
    shares = best_layer_shares(list(items.values()), stat, n_boot=n_boot, seed=seed)
    return {"best_layer_shares": {lab: round(float(s), 3) for lab, s in zip(items, shares)},
            "items": encode_items(items[best])}


def top_layers(shares: dict[str, float], n: int = 3) -> list[tuple[str, float]]:
    """The ``n`` layers that win most often, with their shares (layers that never win left out)."""
    return sorted(((lab, s) for lab, s in shares.items() if s > 0), key=lambda t: -t[1])[:n]
