"""A language pair's corpus, word-alignment links and BTSR set (Liu et al. 2019, Sec. 4).

Part of the BTSR method (chapter 2, the card); see :mod:`xalign.measures.btsr` for the vocabulary.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

import numpy as np

from xalign.core.cache import EmbeddingCache
from xalign.core.code_closure import code_digest
from xalign.core.draws import sample_indices, shuffled_indices
from xalign.core.paths import cache_dir
from xalign.data.corpora import ParallelCorpus
from xalign.data.lexicons import cached_muse_pairs, omw_lemmas, segmentation_vocabulary, wordnet_synsets
from xalign.data.words import Token, tokenize
from xalign.measures.aligner import align_words
from xalign.measures.btsr.testset import BTSRSet, build_btsr, translation_pairs

#: the code a cached BTSR set is keyed on (bound at import)
BTSR_CODE = (build_btsr, translation_pairs, BTSRSet)


@dataclass
class PairData:
    """A language pair's pooled parallel corpus, its words, alignment links, BTSR set and splits."""

    corpus: ParallelCorpus
    src_tokens: list[list[Token]]
    tgt_tokens: list[list[Token]]
    links: list[set[tuple[int, int]]]
    btsr: BTSRSet  # the paper's candidate space (same-form distractors)
    train: np.ndarray  # sentence pairs usable for training, in a seeded random order
    retrieval: np.ndarray  # held-out sentence pairs for sentence retrieval
    dictionary: list[tuple[str, str]] = field(default_factory=list)
    btsr_first: BTSRSet | None = None  # same items, this book's first candidate space (before/after)

    @property
    def src_lang(self) -> str:
        return self.corpus.src_lang

    @property
    def tgt_lang(self) -> str:
        return self.corpus.tgt_lang


def cached_links(src_tokens, tgt_tokens, seed: int = 1, aligner: str = "fast_align") -> list[set[tuple[int, int]]]:
    """Word-alignment links (grow-diag-final-and) for lower-cased tokens (cached by the aligner, by content).

    ``aligner``: ``"fast_align"`` (deterministic) or ``"eflomal"`` (unseeded; ``seed`` only names its sample).
    """
    return align_words([[t.text for t in s] for s in src_tokens], [[t.text for t in s] for s in tgt_tokens],
                       aligner=aligner, seed=seed)


def prepare_pair(corpus: ParallelCorpus, seed: int = 0, top: int = 250, n_test: int | None = None,
                 n_candidates: int = 20000, query: str = "first_lemma",
                 retrieval_source: str | None = "tatoeba", n_retrieval: int = 1000,
                 aligner: str = "fast_align") -> PairData:
    """Tokenise, word-align, build the BTSR set (cached) and split training / retrieval test pairs.

    Builds the set twice from one seed, with the same test items: the paper's
    candidate space (``btsr``) and this book's first one (``btsr_first``).

    Training pairs exclude every sentence pair a BTSR item uses and the
    sentence-retrieval test pairs (the ``retrieval_source`` corpus, else a
    random held-out sample of ``n_retrieval``; each sentence pair's place in
    the sample and in the training order is drawn from ``seed`` and its own
    text, so one changed pair moves no other). ``aligner`` word-aligns the
    pool (see :func:`xalign.measures.aligner.align_words`).
    """
    src, tgt = corpus.src_lang, corpus.tgt_lang
    src_tokens = [tokenize(s, src, segmentation_vocabulary(src)) for s in corpus.src]
    vocab = segmentation_vocabulary(tgt)
    tgt_tokens = [tokenize(s, tgt, vocab) for s in corpus.tgt]
    links = cached_links(src_tokens, tgt_tokens, aligner=aligner)
    params = {"seed": seed, "top": top, "n_test": n_test, "n_candidates": n_candidates, "query": query,
              "texts": hashlib.sha256(json.dumps([corpus.src, corpus.tgt], ensure_ascii=False).encode()).hexdigest(),
              "links": hashlib.sha256(json.dumps([sorted(ls) for ls in links]).encode()).hexdigest(),
              "code": code_digest(BTSR_CODE)}  # the memo's rule: inputs and code
    store, key = EmbeddingCache(cache_dir("btsr")), {"kind": f"btsr-{src}-{tgt}", **params}
    cached = store.get_json(key)
    if cached is not None:
        sets = [BTSRSet.from_json(d) for d in cached]
    else:
        pairs, src_amb, tgt_amb = translation_pairs(wordnet_synsets(), omw_lemmas(tgt), tgt, query)
        sets = [build_btsr(pairs, src_amb, tgt_amb, corpus.src, corpus.tgt, src_tokens, tgt_tokens, links,
                           tgt, src, seed=seed, top=top, n_test=n_test, n_candidates=n_candidates, same_form=sf)
                for sf in (True, False)]
        store.put_json(key, [b.to_json() for b in sets])
    btsr, btsr_first = sets
    used = btsr.used_sentences()
    pair_text = [["pair", s, t] for s, t in zip(corpus.src, corpus.tgt)]  # each sentence pair's draws hang on it
    origin = np.asarray(corpus.origin)
    if retrieval_source and (origin == retrieval_source).any():
        retrieval = np.flatnonzero(origin == retrieval_source)[:n_retrieval]
    else:
        pool = np.array([k for k in range(len(corpus)) if k not in used])
        retrieval = pool[sample_indices(seed + 1, [pair_text[k] for k in pool], min(n_retrieval, len(pool) // 5))]
    blocked = used | set(retrieval.tolist())
    train = np.array([k for k in range(len(corpus)) if k not in blocked and src_tokens[k] and tgt_tokens[k]])
    train = train[shuffled_indices(seed + 1, [pair_text[k] for k in train])]
    return PairData(corpus, src_tokens, tgt_tokens, links, btsr, train, retrieval, list(cached_muse_pairs(src, tgt)),
                    btsr_first)


