"""Random draws that do not cascade: each item's draw depends only on the seed and the item itself.

A generator shared across items makes every draw depend on all earlier ones:
one changed input (an alignment link, a sentence) reshuffles every later
item. Here an item's random numbers come from ``(seed, a stable hash of the
item)``, so one changed input changes only its own draw. Samples of ``k``
items keep the ``k`` items of smallest priority (a uniform number per item), so
adding or removing one item moves at most one other in or out of the sample.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np


def stable_hash(item) -> int:
    """A 63-bit hash of a JSON-able item, the same on every run, machine and Python (unlike ``hash``)."""
    text = json.dumps(item, sort_keys=True, ensure_ascii=False, default=str)
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little") >> 1


def item_rng(seed: int, item) -> np.random.Generator:
    """A generator for one item's draw: ``default_rng([seed, stable_hash(item)])``.

    Args:
        seed: a non-negative integer (the run's seed).
        item: anything JSON-able that names what the draw is for (a word pair, a sentence's text).
    """
    if int(seed) != seed or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return np.random.default_rng([int(seed), stable_hash(item)])


def priorities(seed: int, items) -> np.ndarray:
    """One uniform number in [0, 1) per item, from (seed, item) alone; shape (len(items),)."""
    if int(seed) != seed or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return np.array([stable_hash([int(seed), item]) / 2.0**63 for item in items], dtype=float)


def sample_indices(seed: int, items, k: int) -> np.ndarray:
    """Indices (ascending) of the ``k`` items with the smallest priorities: a seeded sample without replacement.

    Ties (equal items) go to the earlier index. ``k`` larger than the list keeps every item.
    """
    if k < 0:
        raise ValueError(f"k must be >= 0, got {k}")
    order = np.argsort(priorities(seed, items), kind="stable")
    return np.sort(order[: min(k, len(order))])


def shuffled_indices(seed: int, items) -> np.ndarray:
    """A seeded order of ``items`` (by priority): one item's change moves only that item."""
    return np.argsort(priorities(seed, items), kind="stable")


def sample_rows(n_items: int, n: int | None, seed: int = 0) -> np.ndarray:
    """A seeded sample of ``n`` of ``n_items`` rows, sorted: (k,) int indices (all rows when ``n`` is None or
    at least ``n_items``). One generator for the whole sample (``default_rng(seed)``): the rows every
    chapter's evaluation sets (Tatoeba, BCWS, SCWS) and the card draw."""
    if n is None or n >= n_items:
        return np.arange(n_items)
    return np.sort(np.random.default_rng(seed).choice(n_items, size=n, replace=False))
