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

This is the one key rule of every cache of xalign: the inputs and the code that computes the value,
never a version number declared by hand. The other stores follow it too: the probe fits
(:func:`xalign.measures.probe.fit_predict`), the word-alignment links (:mod:`xalign.measures.aligner`),
the BLI grid's cells (:mod:`xalign.measures.bli_grid`), chapter 2's BTSR sets and chapter 3's fine-tuned
weights (with the versions of the packages that train them). A declared version is only as good as the
memory of whoever edits the code: a forgotten bump serves an old number silently, an edit of a helper the
version's owner did not think of (a change of Procrustes under the BLI grid) is never seen. The one
exception is the embeddings themselves, keyed on the model's identity, its input protocol (prefix,
truncation, pooling, layers, precision) and the texts (:meth:`xalign.core.encoders.Encoder._key`), not
on the encoder's code. ``MEMO_VERSION`` names this store's own file layout, not what a value means.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable

from xalign.core import memo_codec
from xalign.core.atomic import atomic_path
from xalign.core.cache import UNREADABLE, EmbeddingCache
from xalign.core.code_closure import code_digest, in_xalign
from xalign.core.hashing import key_digest
from xalign.core.paths import remove_within
from xalign.core.perturb import variant_key

MEMO_VERSION = 2  # 2: stored as data (memo_codec), keyed on the code called


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
