"""Memo keys of chapter 2's scored tables (grid, unmapped space, baselines, audit), so a warm rerun reads them.

A table is stored under (its name, its parameters, :func:`space_digest` of
the :class:`~xalign.measures.btsr.anchors.PairSpaces` it scores and the
digests of the word-similarity vectors) and the code it runs: the ``compute``
function with every xalign definition it reaches, and the classes of :data:`SCORE_CODE`
whose methods it calls (:func:`xalign.core.memo.cached`): new vectors, new test
pairs or an edit to the scoring code recompute it.

Part of the chapter-2 method; see :mod:`xalign.measures.btsr` for the vocabulary.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable

import numpy as np

from xalign.core.cache import EmbeddingCache
from xalign.core.hashing import array_digest
from xalign.core.memo import cached
from xalign.data.static import StaticVectors
from xalign.data.wordsim import ContextPairs
from xalign.measures.btsr.anchors import PairSpaces
from xalign.measures.btsr.spaces import Space
from xalign.measures.btsr.testset import BTSRItem, BTSRSet, TranslationPair
from xalign.measures.btsr.typevectors import TypeVectors
from xalign.measures.mapping import Alignment

#: the classes whose methods chapter-2 scores call through objects (maps, spaces, type vectors, BTSR sets),
#: which a static reading of the compute function cannot see
SCORE_CODE = (Alignment, StaticVectors, ContextPairs, PairSpaces, Space, TypeVectors, TranslationPair, BTSRItem,
              BTSRSet)


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


def memoised(name: str, key: dict, compute: Callable[[], object], store: EmbeddingCache | None = None):
    """``compute()`` (a table), or its stored value for (``liu2020.<name>``, ``key``, its code and
    :data:`SCORE_CODE`)."""
    return cached(f"liu2020.{name}", key, compute, code=SCORE_CODE, store=store)
