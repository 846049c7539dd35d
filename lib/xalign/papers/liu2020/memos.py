"""Memo keys of chapter 2's scored tables (grid, unmapped space, baselines, audit), so a warm rerun reads them.

A table is stored under (its name, its parameters, :func:`space_digest` of
the :class:`~xalign.papers.liu2020.anchors.PairSpaces` it scores and the
digests of the word-similarity vectors) and the source of :data:`CODE` plus
the module that computes it (:func:`xalign.core.memo.cached`): new vectors,
new test pairs or an edit to the scoring code recompute it.

Part of the chapter-2 method; see :mod:`xalign.papers.liu2020` for the vocabulary.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from types import ModuleType

import numpy as np

from xalign.core.cache import EmbeddingCache
from xalign.core.memo import array_digest, cached
from xalign.data import static, wordsim
from xalign.measures import mapping
from xalign.papers.liu2020 import anchors, btsr, evaluate, spaces, typevectors
from xalign.papers.liu2020.anchors import PairSpaces

#: the modules every chapter-2 score runs through (maps, P@k, anchors, type vectors, Spearman)
CODE = (mapping, static, wordsim, btsr, spaces, typevectors, anchors, evaluate)


def space_digest(sp: PairSpaces) -> str:
    """sha256 of everything a score of ``sp`` reads: the contextual and type vectors, the words,
    the links, the splits, both BTSR sets and the dictionary. Computed once per object (hex)."""

    def compute() -> str:
        d = sp.data
        tables = (sp.avg_src, sp.avg_tgt, sp.iso_src, sp.iso_tgt)
        arrays = array_digest(sp.src.vectors, np.asarray(sp.src.offsets, np.int64), sp.tgt.vectors,
                              np.asarray(sp.tgt.offsets, np.int64), *(t.vectors for t in tables),
                              np.asarray(d.train, np.int64), np.asarray(d.retrieval, np.int64))
        meta = {"types": [t.words for t in tables],
                "src": [[t.text for t in s] for s in d.src_tokens], "tgt": [[t.text for t in s] for s in d.tgt_tokens],
                "links": [sorted(ls) for ls in d.links], "btsr": d.btsr.to_json(),
                "btsr_first": d.btsr_first.to_json() if d.btsr_first is not None else None,
                "dictionary": [list(p) for p in d.dictionary], "pool": len(d.corpus)}
        h = hashlib.sha256(arrays.encode())
        h.update(json.dumps(meta, ensure_ascii=False, default=int).encode())
        return h.hexdigest()

    return sp.once("digest", compute)


def pairs_digest(cpv) -> str | None:
    """Digest of a word-similarity set's vectors and ratings (a ``ContextPairVectors``; None stays None)."""
    if cpv is None:
        return None
    return array_digest(cpv.A, cpv.B, np.asarray(cpv.rating, np.float64)) + ":" + cpv.b_side


def memoised(name: str, key: dict, compute: Callable[[], object], module: ModuleType,
             store: EmbeddingCache | None = None):
    """``compute()`` (a table), or its stored value for (``liu2020.<name>``, ``key``, :data:`CODE` + ``module``)."""
    return cached(f"liu2020.{name}", key, compute, code=[*CODE, module], store=store)
