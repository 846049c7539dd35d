"""Aligning contextual embeddings across languages (Liu et al. 2020, Sec. 3).

Vocabulary (the paper's Table 1 labels):

- alignment level: ``token`` (aligned words in parallel sentences, in
  context), ``avg_type`` (a word's mean contextual vector over up to 1000
  contexts), ``iso_type`` (the word fed alone);
- training signal: ``wa`` (word alignments of parallel text, eflomal),
  ``sa`` (parallel sentences, each represented by the average of its words'
  vectors of the chosen level), ``dict`` (MUSE 0-5000 training dictionary;
  type levels only);
- technique: ``orig`` (orthogonal Procrustes) or ``mim`` (plus
  Meeting-in-the-Middle), both from :mod:`xalign.mapping`.

A word's contextual vector is the average of the chosen layers (default:
every Transformer layer, 1..12, as the paper's footnote 1), then of its
sub-words. Every sentence of a corpus side is encoded once with the spans of
all its words (:func:`encode_space`).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from . import datasets
from .aligner import align_eflomal
from .atomic import write_json
from .btsr import BTSRSet, build_btsr, precision_at_k, translation_pairs
from .corpora import ParallelCorpus, muse_pairs
from .mapping import Alignment, fit_alignment
from .paths import cache_dir
from .static import StaticVectors
from .words import UNSEGMENTED, Token, tokenize

LEVELS = ("token", "avg_type", "iso_type")
SIGNALS = ("wa", "sa", "dict")
TECHNIQUES = ("orig", "mim")


# ------------------------------------------------------------------ lexicons


@functools.lru_cache(maxsize=2)
def wordnet_synsets():
    from .wordnet import read_wordnet_data

    return read_wordnet_data(datasets.fetch_many("wordnet", "data.*"))


OMW_FILES = {"zh": "cmn/wn-data-cmn.tab", "es": "spa/wn-data-spa.tab"}


@functools.lru_cache(maxsize=4)
def omw_lemmas(lang: str) -> dict[str, list[str]]:
    """OMW lemmas per synset for ``lang`` (zh: Chinese Open Wordnet; es: MCR)."""
    from .wordnet import read_omw

    if lang not in OMW_FILES:
        raise ValueError(f"no Open Multilingual Wordnet file declared for {lang!r} (have {sorted(OMW_FILES)})")
    return read_omw(datasets.fetch("omw", OMW_FILES[lang]))


@functools.lru_cache(maxsize=8)
def cached_muse_pairs(src: str, tgt: str, split: str = "0-5000") -> list[tuple[str, str]]:
    """MUSE pairs (``split``: "0-5000", "5000-6500" or "" for the full file); Chinese made Simplified."""
    return muse_pairs(f"{src}-{tgt}", split)


@functools.lru_cache(maxsize=4)
def segmentation_vocabulary(lang: str) -> frozenset[str] | None:
    """Words for max-match segmentation of unsegmented languages: OMW lemmas and MUSE words (Simplified)."""
    if lang not in UNSEGMENTED:
        return None
    from .btsr import valid_word

    vocab = {w for ws in omw_lemmas(lang).values() for w in ws if valid_word(w, lang)}
    vocab |= {t for _, t in cached_muse_pairs("en", lang, "") if valid_word(t, lang)}
    return frozenset(vocab)


# -------------------------------------------------------------- corpus + BTSR


@dataclass
class PairData:
    """A language pair's pooled parallel corpus, its words, alignment links, BTSR set and splits."""

    corpus: ParallelCorpus
    src_tokens: list[list[Token]]
    tgt_tokens: list[list[Token]]
    links: list[set[tuple[int, int]]]
    btsr: BTSRSet
    train: np.ndarray  # sentence pairs usable for training, in a seeded random order
    retrieval: np.ndarray  # held-out sentence pairs for sentence retrieval
    dictionary: list[tuple[str, str]] = field(default_factory=list)

    @property
    def src_lang(self) -> str:
        return self.corpus.src_lang

    @property
    def tgt_lang(self) -> str:
        return self.corpus.tgt_lang


def _cache_file(kind: str, key: str):
    return cache_dir("btsr") / f"{kind}-{key}.json"


def cached_links(src_tokens, tgt_tokens, seed: int = 1) -> list[set[tuple[int, int]]]:
    """eflomal links (grow-diag-final-and) for lower-cased tokens, cached on disk by content."""
    src = [[t.text for t in s] for s in src_tokens]
    tgt = [[t.text for t in s] for s in tgt_tokens]
    key = hashlib.sha256(json.dumps([src, tgt, seed], ensure_ascii=False).encode()).hexdigest()[:24]
    path = _cache_file("links", key)
    if path.exists():
        return [set(map(tuple, ls)) for ls in json.loads(path.read_text())]
    links = align_eflomal(src, tgt, seed=seed)
    write_json(path, [sorted(ls) for ls in links])
    return links


def prepare_pair(corpus: ParallelCorpus, seed: int = 0, top: int = 250, n_test: int | None = None,
                 n_candidates: int = 20000, query: str = "first_lemma",
                 retrieval_source: str | None = "tatoeba", n_retrieval: int = 1000) -> PairData:
    """Tokenise, word-align, build the BTSR set (cached) and split training / retrieval test pairs.

    Training pairs exclude every sentence pair a BTSR item uses and the
    sentence-retrieval test pairs (the ``retrieval_source`` corpus, else a
    random held-out sample of ``n_retrieval``).
    """
    src, tgt = corpus.src_lang, corpus.tgt_lang
    src_tokens = [tokenize(s, src, segmentation_vocabulary(src)) for s in corpus.src]
    vocab = segmentation_vocabulary(tgt)
    tgt_tokens = [tokenize(s, tgt, vocab) for s in corpus.tgt]
    links = cached_links(src_tokens, tgt_tokens)
    params = {"seed": seed, "top": top, "n_test": n_test, "n_candidates": n_candidates, "query": query,
              "texts": hashlib.sha256(json.dumps([corpus.src, corpus.tgt], ensure_ascii=False).encode()).hexdigest(),
              "links": hashlib.sha256(json.dumps([sorted(ls) for ls in links]).encode()).hexdigest(),
              "version": 1}
    key = hashlib.sha256(json.dumps(params, sort_keys=True).encode()).hexdigest()[:24]
    path = _cache_file(f"btsr-{src}-{tgt}", key)
    if path.exists():
        btsr = BTSRSet.from_json(json.loads(path.read_text()))
    else:
        pairs, src_amb, tgt_amb = translation_pairs(wordnet_synsets(), omw_lemmas(tgt), tgt, query)
        btsr = build_btsr(pairs, src_amb, tgt_amb, corpus.src, corpus.tgt, src_tokens, tgt_tokens, links,
                          tgt, src, seed=seed, top=top, n_test=n_test, n_candidates=n_candidates)
        write_json(path, btsr.to_json())
    rng = np.random.default_rng(seed + 1)
    used = btsr.used_sentences()
    origin = np.asarray(corpus.origin)
    if retrieval_source and (origin == retrieval_source).any():
        retrieval = np.flatnonzero(origin == retrieval_source)[:n_retrieval]
    else:
        pool = np.array([k for k in range(len(corpus)) if k not in used])
        retrieval = np.sort(rng.choice(pool, size=min(n_retrieval, len(pool) // 5), replace=False))
    blocked = used | set(retrieval.tolist())
    train = np.array([k for k in range(len(corpus)) if k not in blocked and src_tokens[k] and tgt_tokens[k]])
    train = train[rng.permutation(len(train))]
    return PairData(corpus, src_tokens, tgt_tokens, links, btsr, train, retrieval, list(cached_muse_pairs(src, tgt)))


# ------------------------------------------------------------ encoded spaces


@dataclass
class Space:
    """Contextual vectors of every word of a corpus side: ``vectors[offsets[k] + i]`` is word i of sentence k."""

    tokens: list[list[Token]]
    vectors: np.ndarray  # (n_words, dim) float32
    offsets: np.ndarray  # (n_sentences + 1,)

    def rows(self, sents, index) -> np.ndarray:
        return self.offsets[np.asarray(sents)] + np.asarray(index)

    def sentence_means(self, sents) -> np.ndarray:
        """Mean word vector of each sentence (zeros for a sentence without words); (n, dim)."""
        out = np.zeros((len(sents), self.vectors.shape[1]), np.float32)
        for r, k in enumerate(sents):
            a, b = self.offsets[k], self.offsets[k + 1]
            if b > a:
                out[r] = self.vectors[a:b].mean(0)
        return out

    def context_means(self, sents, index) -> np.ndarray:
        """Mean vector of the *other* words of each sentence (the word itself left out); (n, dim)."""
        out = np.zeros((len(sents), self.vectors.shape[1]), np.float32)
        for r, (k, i) in enumerate(zip(sents, index)):
            a, b = self.offsets[k], self.offsets[k + 1]
            if b - a > 1:
                out[r] = (self.vectors[a:b].sum(0) - self.vectors[a + i]) / (b - a - 1)
        return out


def resolve_layers(encoder, layers) -> list[int]:
    """``"all"``/None: every Transformer layer 1..L (the paper's average); an int or a list otherwise."""
    if layers is None or layers == "all":
        return list(range(1, encoder.n_layers))
    if isinstance(layers, str):
        return [int(x) for x in layers.split(",")]
    return [int(layers)] if np.isscalar(layers) else [int(x) for x in layers]


def content_chunks(texts: list[str], mean_size: int = 128, max_size: int = 256) -> list[list[int]]:
    """Split indices of ``texts`` into chunks whose boundaries depend on content only.

    A chunk ends after a text whose hash is 0 modulo ``mean_size`` (or at
    ``max_size``), as in content-defined chunking: a corpus that adds, drops
    or truncates a few sentences still shares every other chunk with the
    original, so the encoder's per-chunk cache is reused across language
    pairs (the English side of XNLI) and across profiles (prefixes).
    """
    chunks, cur = [], []
    for k, t in enumerate(texts):
        cur.append(k)
        h = int(hashlib.sha1(t.encode()).hexdigest()[:8], 16)
        if h % mean_size == 0 or len(cur) >= max_size:
            chunks.append(cur)
            cur = []
    if cur:
        chunks.append(cur)
    return chunks


def encode_space(encoder, texts: list[str], tokens: list[list[Token]], layers=None,
                 desc: str = "encode") -> Space:
    """Encode every sentence once with the spans of all its words (layer-averaged vectors).

    Unique texts, in corpus order, are encoded in content-defined chunks
    (:func:`content_chunks`), each cached by the encoder on its own.
    """
    from tqdm.auto import tqdm

    layers = resolve_layers(encoder, layers)
    first: dict[str, int] = {}
    for k, t in enumerate(texts):
        first.setdefault(t, k)
    unique = list(first.values())
    per_text: dict[str, np.ndarray] = {}
    bar = tqdm(total=len(unique), desc=desc, unit="sent", disable=not encoder.progress, mininterval=30)
    progress, encoder.progress = encoder.progress, False
    try:
        for chunk in content_chunks([texts[k] for k in unique]):
            ks = [unique[c] for c in chunk]
            spans = [[(w.start, w.end) for w in tokens[k]] for k in ks]
            vec = encoder.encode([texts[k] for k in ks], spans=spans, poolings=(), layers=layers,
                                 layer_mean=True)["words"][:, 0]
            pos = 0
            for k, sp in zip(ks, spans):
                per_text[texts[k]] = vec[pos : pos + len(sp)]
                pos += len(sp)
            bar.update(len(ks))
    finally:
        encoder.progress = progress
        bar.close()
    offsets = np.cumsum([0] + [len(t) for t in tokens])
    dim = encoder.dim
    vectors = np.concatenate([per_text[t] for t in texts]) if offsets[-1] else np.zeros((0, dim), np.float32)
    return Space(tokens, vectors.astype(np.float32, copy=False), offsets)


# ----------------------------------------------------------- type-level vectors


@dataclass
class TypeVectors(StaticVectors):
    """One vector per word type (``vectors[index[word]]``), with sentence means over the known words."""

    def sentence_means(self, tokens: list[list[Token]], sents) -> np.ndarray:
        """Average type vector of each sentence's known words (zeros if none); (n, dim)."""
        out = np.zeros((len(sents), self.vectors.shape[1]), np.float32)
        for r, k in enumerate(sents):
            idx = [self.index[t.text] for t in tokens[k] if t.text in self.index]
            if idx:
                out[r] = self.vectors[idx].mean(0)
        return out


def average_types(space: Space, sents, max_contexts: int = 1000, min_count: int = 1,
                  rng: np.random.Generator | None = None) -> TypeVectors:
    """``avg_type``: each word's mean contextual vector over up to ``max_contexts`` random occurrences in ``sents``."""
    import scipy.sparse as sp

    rng = rng or np.random.default_rng(0)
    sents = np.asarray(sents)
    rows = np.concatenate([np.arange(space.offsets[k], space.offsets[k + 1]) for k in sents]) \
        if len(sents) else np.zeros(0, int)
    words = [space.tokens[k][i].text for k in sents for i in range(len(space.tokens[k]))]
    if not words:
        return TypeVectors([], np.zeros((0, space.vectors.shape[1]), np.float32))
    vocab = sorted(set(words))
    wid = {w: i for i, w in enumerate(vocab)}
    ids = np.array([wid[w] for w in words])
    counts = np.bincount(ids, minlength=len(vocab))
    order = rng.permutation(len(ids))  # random occurrence order, then the first max_contexts per word
    ranks = np.empty(len(ids), int)
    seen = np.zeros(len(vocab), int)
    for pos in order:
        ranks[pos] = seen[ids[pos]]
        seen[ids[pos]] += 1
    keep = ranks < max_contexts
    M = sp.csr_matrix((np.ones(int(keep.sum()), np.float32), (ids[keep], np.arange(len(ids))[keep])),
                      shape=(len(vocab), len(ids)))
    n = np.asarray(M.sum(1)).ravel()
    vec = (M @ space.vectors[rows]) / n[:, None]
    ok = counts >= min_count
    return TypeVectors([w for w, o in zip(vocab, ok) if o], vec[ok].astype(np.float32))


def isolated_types(encoder, words, layers=None) -> TypeVectors:
    """``iso_type``: each word fed to the encoder alone (sub-words and layers averaged)."""
    words = sorted(set(words))
    if not words:
        return TypeVectors([], np.zeros((0, encoder.dim), np.float32))
    vec = encoder.encode_words(words, [[(0, len(w))] for w in words], layers=resolve_layers(encoder, layers),
                               layer_mean=True)[:, 0]
    return TypeVectors(words, vec)


# ------------------------------------------------------------------ anchors


@dataclass
class PairSpaces:
    """Everything the alignment methods draw anchors from, for one language pair."""

    data: PairData
    src: Space
    tgt: Space
    avg_src: TypeVectors  # avg_type from the training sentences
    avg_tgt: TypeVectors
    iso_src: TypeVectors
    iso_tgt: TypeVectors
    all_src: TypeVectors  # avg_type over the whole pool (type-level baselines, [type] evaluation)
    all_tgt: TypeVectors


def aligned_word_pairs(data: PairData, sents) -> list[tuple[str, str]]:
    """Distinct (source word, target word) pairs linked by the aligner in ``sents`` (a type-level dictionary)."""
    out = {}
    for k in sents:
        s, t = data.src_tokens[k], data.tgt_tokens[k]
        for i, j in sorted(data.links[k]):
            out.setdefault((s[i].text, t[j].text), None)
    return list(out)


def type_tables(sp: PairSpaces, level: str) -> tuple[TypeVectors, TypeVectors]:
    if level == "avg_type":
        return sp.avg_src, sp.avg_tgt
    if level == "iso_type":
        return sp.iso_src, sp.iso_tgt
    raise ValueError(f"{level!r} is not a type level")


def anchors(sp: PairSpaces, level: str, signal: str, n_sentences: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Paired anchor vectors (X source, Y target) for one level and signal, from the first ``n_sentences``
    training pairs (``dict`` ignores ``n_sentences``)."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, got {level!r}")
    if signal not in SIGNALS:
        raise ValueError(f"signal must be one of {SIGNALS}, got {signal!r}")
    sents = sp.data.train[:n_sentences] if n_sentences else sp.data.train
    if level == "token":
        if signal == "wa":
            ks, i, j = [], [], []
            for k in sents:
                for a, b in sorted(sp.data.links[k]):
                    ks.append(k), i.append(a), j.append(b)
            return sp.src.vectors[sp.src.rows(ks, i)], sp.tgt.vectors[sp.tgt.rows(ks, j)]
        if signal == "sa":
            return sp.src.sentence_means(sents), sp.tgt.sentence_means(sents)
        raise ValueError("token-level alignment needs parallel text (wa or sa), not a dictionary")
    S, T = type_tables(sp, level)
    if signal == "sa":
        return S.sentence_means(sp.data.src_tokens, sents), T.sentence_means(sp.data.tgt_tokens, sents)
    pairs = aligned_word_pairs(sp.data, sents) if signal == "wa" else sp.data.dictionary
    pairs = [(s, t) for s, t in pairs if s in S and t in T]
    if len(pairs) < 2:
        raise ValueError(f"{level} {signal}: only {len(pairs)} anchor pairs have vectors")
    return S.lookup([s for s, _ in pairs]), T.lookup([t for _, t in pairs])


def fit(sp: PairSpaces, level: str, signal: str, technique: str = "orig",
        n_sentences: int | None = None) -> Alignment:
    """Procrustes (``orig``) or Procrustes + MIM (``mim``) on the chosen anchors."""
    if technique not in TECHNIQUES:
        raise ValueError(f"technique must be one of {TECHNIQUES}, got {technique!r}")
    X, Y = anchors(sp, level, signal, n_sentences)
    return fit_alignment(X, Y, mim=technique == "mim")


def identity_alignment(dim: int) -> Alignment:
    """No mapping at all (the original multilingual space)."""
    eye = np.eye(dim)
    return Alignment(eye, eye, eye, None, None)


# --------------------------------------------------------------- evaluation


def btsr_vectors(sp: PairSpaces, kind: str = "token") -> tuple[np.ndarray, np.ndarray]:
    """(queries, candidates) of the BTSR set as ``token`` vectors in context, ``type`` (avg_type over the pool),
    ``context`` (mean of the other words of the sentence), ``context_type`` (same with avg_type vectors)
    or ``word+context`` (mean of the type vector and the type-level context)."""
    b = sp.data.btsr
    qs, qi = [it.src_sent for it in b.items], [it.src_index for it in b.items]
    cs, ci = [c[0] for c in b.candidates], [c[1] for c in b.candidates]
    if kind == "token":
        return sp.src.vectors[sp.src.rows(qs, qi)], sp.tgt.vectors[sp.tgt.rows(cs, ci)]
    if kind == "context":
        return sp.src.context_means(qs, qi), sp.tgt.context_means(cs, ci)
    qw = [sp.data.src_tokens[k][i].text for k, i in zip(qs, qi)]
    cw = [sp.data.tgt_tokens[k][i].text for k, i in zip(cs, ci)]
    Qt, Ct = sp.all_src.lookup(qw), sp.all_tgt.lookup(cw)
    if kind == "type":
        return Qt, Ct
    Qc = _type_context(sp.all_src, sp.data.src_tokens, qs, qi)
    Cc = _type_context(sp.all_tgt, sp.data.tgt_tokens, cs, ci)
    if kind == "context_type":
        return Qc, Cc
    if kind == "word+context":
        return (Qt + Qc) / 2, (Ct + Cc) / 2
    raise ValueError(f"unknown BTSR representation {kind!r}")


def _type_context(types: TypeVectors, tokens, sents, index) -> np.ndarray:
    out = np.zeros((len(sents), types.vectors.shape[1]), np.float32)
    for r, (k, i) in enumerate(zip(sents, index)):
        idx = [types.index[t.text] for n, t in enumerate(tokens[k]) if n != i and t.text in types.index]
        if idx:
            out[r] = types.vectors[idx].mean(0)
    return out


def btsr_precision(al: Alignment, Q: np.ndarray, C: np.ndarray, ks=(1, 5)) -> dict[int, float]:
    """P@k of the BTSR set after mapping queries (source) and candidates (target)."""
    return precision_at_k(al.transform_src(Q), al.transform_tgt(C), np.arange(len(Q)), ks)


def sentence_retrieval(al: Alignment, sp: PairSpaces, kind: str = "token", k: int = 5,
                       level: str = "avg_type") -> float:
    """P@k of finding each held-out source sentence's translation among all held-out target sentences.

    Sentences are the average of their words' ``token`` vectors, or of their
    type vectors (``kind="type"``: avg_type vectors, or iso_type ones for ``level="iso_type"``).
    """
    sents = sp.data.retrieval
    if kind == "token":
        Q, C = sp.src.sentence_means(sents), sp.tgt.sentence_means(sents)
    elif kind == "type":
        S, T = (sp.iso_src, sp.iso_tgt) if level == "iso_type" else (sp.all_src, sp.all_tgt)
        Q = S.sentence_means(sp.data.src_tokens, sents)
        C = T.sentence_means(sp.data.tgt_tokens, sents)
    else:
        raise ValueError(f"kind must be 'token' or 'type', got {kind!r}")
    return precision_at_k(al.transform_src(Q), al.transform_tgt(C), np.arange(len(sents)), (k,))[k]


def build_spaces(encoder_src, encoder_tgt, data: PairData, layers=None, max_contexts: int = 1000,
                 min_count: int = 1, seed: int = 0, iso: bool = True) -> PairSpaces:
    """Encode both sides (every word in context), then the avg_type and iso_type tables."""
    c = data.corpus
    src = encode_space(encoder_src, c.src, data.src_tokens, layers, desc=f"encode {c.src_lang} ({len(c)})")
    tgt = encode_space(encoder_tgt, c.tgt, data.tgt_tokens, layers, desc=f"encode {c.tgt_lang} ({len(c)})")
    rng = np.random.default_rng(seed)
    avg_src = average_types(src, data.train, max_contexts, min_count, rng)
    avg_tgt = average_types(tgt, data.train, max_contexts, min_count, rng)
    everything = np.arange(len(c))
    all_src = average_types(src, everything, max_contexts, 1, rng)
    all_tgt = average_types(tgt, everything, max_contexts, 1, rng)
    if iso:  # training words, retrieval-test words, and the dictionary's words that occur in the text
        test_src = {t.text for k in data.retrieval for t in data.src_tokens[k]}
        test_tgt = {t.text for k in data.retrieval for t in data.tgt_tokens[k]}
        iso_src = isolated_types(encoder_src, set(avg_src.words) | test_src
                                 | ({s for s, _ in data.dictionary} & set(all_src.words)), layers)
        iso_tgt = isolated_types(encoder_tgt, set(avg_tgt.words) | test_tgt
                                 | ({t for _, t in data.dictionary} & set(all_tgt.words)), layers)
    else:
        iso_src = iso_tgt = TypeVectors([], np.zeros((0, encoder_src.dim), np.float32))
    return PairSpaces(data, src, tgt, avg_src, avg_tgt, iso_src, iso_tgt, all_src, all_tgt)


def method_label(level: str, signal: str, technique: str) -> str:
    """The paper's legend label, e.g. ``avg_type wa orig``."""
    return f"{level} {signal} {technique}"


def training_sizes(sizes, available: int) -> list[int]:
    """The requested sizes that fit, plus ``available`` itself if a requested size exceeds it (or "all")."""
    out = []
    for s in sizes:
        n = available if s in ("all", None) else min(int(s), available)
        if n not in out:
            out.append(n)
    return sorted(out)


def word_counts(tokens) -> Counter:
    return Counter(t.text for s in tokens for t in s)


# ------------------------------------------------------------ experiment grid


def parse_variant(variant: str) -> tuple[str, str, str, str]:
    """``"multi_en->multi_zh"`` -> (source model key, source language, target model key, target language).

    Model keys are ``mono_<lang>`` or ``multi``; look them up in the notebook's ``models``.
    """
    try:
        a, b = (x.strip() for x in variant.replace("→", "->").split("->"))
        (ka, la), (kb, lb) = a.rsplit("_", 1), b.rsplit("_", 1)
    except ValueError:
        raise ValueError(f"variant must look like 'multi_en->multi_zh', got {variant!r}") from None
    for k, lang in ((ka, la), (kb, lb)):
        if k not in ("mono", "multi"):
            raise ValueError(f"{variant!r}: model kind must be 'mono' or 'multi', got {k!r}")
    key = lambda k, lang: "multi" if k == "multi" else f"mono_{lang}"
    return key(ka, la), la, key(kb, lb), lb


def default_methods(signals=("wa", "sa"), levels=LEVELS) -> list[tuple[str, str]]:
    """(level, signal) combinations the paper runs; token level has no ``dict``."""
    return [(lv, sg) for lv in levels for sg in signals if not (lv == "token" and sg == "dict")]


@dataclass
class ContextPairVectors:
    """Word vectors of a contextual word-similarity set: source side A, other side B, gold ratings.

    ``b_side`` says which mapping the B vectors take: ``"tgt"`` (cross-lingual, BCWS) or ``"src"`` (SCWS).
    """

    A: np.ndarray
    B: np.ndarray
    rating: np.ndarray
    b_side: str = "tgt"

    def spearman(self, al: Alignment | None) -> float:
        from .wordsim import spearman

        if al is None:
            A, B = self.A, self.B
        else:
            A = al.transform_src(self.A)
            B = al.transform_tgt(self.B) if self.b_side == "tgt" else al.transform_src(self.B)
        num = (A * B).sum(1)
        den = np.linalg.norm(A, axis=1) * np.linalg.norm(B, axis=1)
        return spearman(num / np.maximum(den, 1e-12), self.rating)


@contextlib.contextmanager
def single_thread():
    """Run BLAS and torch on one thread: the grid's many small products gain little from threads,
    and on an oversubscribed machine threads that spin-wait make them 10x slower or worse."""
    import torch
    from threadpoolctl import threadpool_limits

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with threadpool_limits(1):
            yield
    finally:
        torch.set_num_threads(before)


def evaluate_grid(sp: PairSpaces, sizes, methods, techniques=TECHNIQUES, bcws: ContextPairVectors | None = None,
                  scws: ContextPairVectors | None = None, ks=(1, 5), retrieval_k: int = 5) -> pd.DataFrame:
    """Fit every method at every training size and score it on BTSR (P@k), sentence retrieval
    (P@``retrieval_k`` with token and, for type levels, type vectors), BCWS and SCWS (Spearman).

    ``dict`` methods do not depend on the size; they are fitted once (``n`` = 0).
    Returns one row per (level, signal, technique, n) with the scores as columns (fractions).
    """
    import pandas as pd

    Q, C = btsr_vectors(sp, "token")
    jobs = []
    for level, signal in methods:
        for tech in techniques:
            for n in ([0] if signal == "dict" else sizes):
                jobs.append((level, signal, tech, n))
    rows = []
    with single_thread():
        rows = _run_jobs(sp, jobs, Q, C, bcws, scws, ks, retrieval_k)
    return pd.DataFrame(rows)


def _run_jobs(sp, jobs, Q, C, bcws, scws, ks, retrieval_k) -> list[dict]:
    from tqdm.auto import tqdm

    rows = []
    for level, signal, tech, n in tqdm(jobs, desc="fit + evaluate", leave=False, mininterval=30):
        try:
            X, Y = anchors(sp, level, signal, n or None)
            al = fit_alignment(X, Y, mim=tech == "mim")
        except ValueError as exc:  # too few anchors with vectors (tiny runs)
            rows.append({"level": level, "signal": signal, "technique": tech, "n": n, "error": str(exc)})
            continue
        p = btsr_precision(al, Q, C, ks)
        row = {"level": level, "signal": signal, "technique": tech, "n": n, "n_anchors": len(X),
               **{f"btsr_p{k}": v for k, v in p.items()},
               "sr_token": sentence_retrieval(al, sp, "token", retrieval_k)}
        if level != "token":
            row["sr_type"] = sentence_retrieval(al, sp, "type", retrieval_k, level)
        if bcws is not None:
            row["bcws"] = bcws.spearman(al)
        if scws is not None:
            row["scws"] = scws.spearman(al)
        rows.append(row)
    return rows


def original_space_scores(sp: PairSpaces, bcws=None, scws=None, ks=(1, 5), retrieval_k: int = 5) -> dict:
    """The same scores without any mapping (only meaningful when both sides come from one multilingual model)."""
    Q, C = btsr_vectors(sp, "token")
    al = identity_alignment(Q.shape[1])
    out = {f"btsr_p{k}": v for k, v in btsr_precision(al, Q, C, ks).items()}
    out["sr_token"] = sentence_retrieval(al, sp, "token", retrieval_k)
    out["sr_type"] = sentence_retrieval(al, sp, "type", retrieval_k)
    if bcws is not None:
        out["bcws"] = bcws.spearman(None)
    if scws is not None:
        out["scws"] = scws.spearman(None)
    return out


BASELINES = {  # name: (BTSR representation, alignment level, signal) used to map it
    "BL(word) avg_type [type]": ("type", "avg_type", "wa"),
    "BL(context) [token]": ("context", "token", "sa"),
    "BL(context) avg_type [type]": ("context_type", "avg_type", "sa"),
    "BL(word+context) avg_type [type]": ("word+context", "avg_type", "wa"),
}


def btsr_baselines(sp: PairSpaces, n: int | None = None, ks=(1, 5)) -> pd.DataFrame:
    """The paper's BTSR baselines: the word without its context, the context without the word, and both.

    Each representation is mapped with the orthogonal alignment of the level
    it lives at (``BASELINES``), learnt from ``n`` training sentences.
    """
    import pandas as pd

    with single_thread():
        return pd.DataFrame(_baseline_rows(sp, n, ks))


def _baseline_rows(sp: PairSpaces, n, ks) -> list[dict]:
    rows = []
    for name, (kind, level, signal) in BASELINES.items():
        Q, C = btsr_vectors(sp, kind)
        p = btsr_precision(fit(sp, level, signal, "orig", n), Q, C, ks)
        rows.append({"baseline": name, "mapped_with": method_label(level, signal, "orig"),
                     **{f"btsr_p{k}": v for k, v in p.items()}})
    Q, C = btsr_vectors(sp, "token")
    p = btsr_precision(fit(sp, "avg_type", "wa", "mim", n), Q, C, ks)
    rows.append({"baseline": "(for comparison) avg_type wa mim [token]", "mapped_with": "avg_type wa mim",
                 **{f"btsr_p{k}": v for k, v in p.items()}})
    return rows


def load_variant_encoders(variants, models: dict[str, str], autocast: str | None = None, **kw) -> dict:
    """One loaded encoder per model key the variants need (``multi``, ``mono_en``, ...), each loaded once."""
    from .models import load_encoder

    need = []
    for v in variants:
        ks, _, kt, _ = parse_variant(v)
        need += [k for k in (ks, kt) if k not in need]
    by_name: dict[str, object] = {}
    out = {}
    for key in need:
        name = models.get(key)
        if not name:
            raise ValueError(f"no model given for {key!r} (needed by the variants {list(variants)})")
        if name not in by_name:
            by_name[name] = load_encoder(name, **kw)
            by_name[name].autocast = autocast
        out[key] = by_name[name]
    return out


def context_pair_vectors(encoder_a, encoder_b, data, layers=None, b_side: str = "tgt") -> ContextPairVectors:
    """Encode both words of every pair of a :class:`xalign.wordsim.ContextPairs` set (layer-averaged)."""
    la, lb = resolve_layers(encoder_a, layers), resolve_layers(encoder_b, layers)
    A = encoder_a.encode_words(data.text_a, [[s] for s in data.span_a], layers=la, layer_mean=True)[:, 0]
    B = encoder_b.encode_words(data.text_b, [[s] for s in data.span_b], layers=lb, layer_mean=True)[:, 0]
    return ContextPairVectors(A, B, np.asarray(data.rating, float), b_side)


def btsr_sample(data: PairData, n: int = 8, seed: int = 0, width: int = 70) -> pd.DataFrame:
    """A few test pairs with their two (non-parallel) contexts, the words in [brackets]."""
    import pandas as pd

    items = data.btsr.items
    idx = np.sort(np.random.default_rng(seed).choice(len(items), size=min(n, len(items)), replace=False))

    def show(text, tok):
        a, b = max(0, tok.start - width // 2), tok.end + width // 2
        return ("…" if a else "") + text[a:tok.start] + "[" + text[tok.start:tok.end] + "]" + \
            text[tok.end:b] + ("…" if b < len(text) else "")

    rows = []
    for i in idx:
        it = items[i]
        rows.append({"source word": it.src_word, "target word": it.tgt_word,
                     "source context": show(data.corpus.src[it.src_sent], data.src_tokens[it.src_sent][it.src_index]),
                     "target context": show(data.corpus.tgt[it.tgt_sent], data.tgt_tokens[it.tgt_sent][it.tgt_index]),
                     "aligned in": it.n_contexts})
    return pd.DataFrame(rows)
