"""Memoise an expensive derived result (a table, a JSON value) in the cache store.

A chapter's warm rerun should cost a fraction of its cold run: every step that
takes minutes (per-layer scoring, probe fits, fine-tuning evaluations) is kept
under a key that names everything its value depends on:

- ``name``: what is computed (``"gaschi2022.pair_layer_scores"``);
- ``key``: the parameters (JSON-serialisable; arrays go in via :func:`array_digest`);
- ``code``: the functions (and classes) that compute it, with the ``compute``
  callable itself: their definitions and every xalign definition they reach
  (:mod:`xalign.core.code_closure`, as this process imported them) are hashed
  into the key, so an edit of the metric or of a helper it calls recomputes
  instead of serving a stale number, while an unrelated edit in the same module
  keeps the value.

Entries are written atomically next to the embeddings (one store), as data that
cannot run code when read (:mod:`xalign.core.memo_codec`); a damaged entry is
reported, removed and recomputed.
"""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Callable, Iterable

import numpy as np

from xalign.core import memo_codec
from xalign.core.atomic import atomic_path
from xalign.core.cache import UNREADABLE, EmbeddingCache, key_digest
from xalign.core.code_closure import code_digest, in_xalign
from xalign.core.paths import remove_within
from xalign.core.perturb import variant_key

MEMO_VERSION = 2  # 2: stored as data (memo_codec), keyed on the code called


def array_digest(*arrays) -> str:
    """sha256 over the dtype, shape and bytes of each array (numpy or torch); a hex string."""
    h = hashlib.sha256()
    for a in arrays:
        if hasattr(a, "detach"):
            a = a.detach().cpu().numpy()
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(memoryview(a).cast("B"))
    return h.hexdigest()


def memo_key(name: str, key: dict, code: Iterable = ()) -> dict:
    """The full store key of one memoised value (``code``: see :func:`xalign.core.code_closure.code_digest`)."""
    return {"memo": name, "version": MEMO_VERSION, "key": key, "code": code_digest(code)}


def cached(name: str, key: dict, compute: Callable[[], object], code: Iterable = (),
           store: EmbeddingCache | None = None):
    """``compute()``, or the value stored under (name, key, code) by an earlier call.

    The value is stored as data only (:mod:`xalign.core.memo_codec`: arrays and JSON in an ``.npz``
    read with ``allow_pickle=False``), so an entry replaced in a shared cache cannot run code; tables
    keep their dtypes. The write is atomic, so an interrupted run leaves no half entry. An entry that
    cannot be read (truncated, a flipped byte, a directory in its place) is reported by name, removed
    and recomputed; entries of the old pickle format (``.pkl``) are never read. ``store`` defaults to
    the shared cache.
    """
    store = store if store is not None else EmbeddingCache()
    # a run with perturbed embeddings (xalign.core.perturb) keeps its values apart from the plain ones
    full = variant_key(memo_key(name, key, [compute, *code] if in_xalign(compute) else code))
    path = store.root / "memo" / f"{key_digest(full)}.npz"
    if store.enabled and (path.exists() or path.is_symlink()):
        try:
            value = memo_codec.load(path)
            store.hits += 1
            return value
        except UNREADABLE as exc:
            done = ("removed, it will be recomputed" if remove_within(store.root, path) else
                    f"left alone: it is reached through a link out of the cache {store.root} (remove the link "
                    "by hand); the value is recomputed")  # never a file outside the store
            warnings.warn(f"xalign cache: damaged memo entry {path} ({type(exc).__name__}: {exc}); {done}",
                          RuntimeWarning, stacklevel=2)
            store.damaged += 1
    store.misses += 1
    value = compute()
    if store.enabled:
        with atomic_path(path) as tmp, open(tmp, "wb") as fh:
            memo_codec.dump(value, fh)
    return value
