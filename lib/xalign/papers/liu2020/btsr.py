"""Bilingual Token-level Sense Retrieval (Liu et al. 2020, Sec. 4), rebuilt with the paper's recipe.

The published BTSR set cannot be obtained, so it is rebuilt from what the
mirror holds:

1. **Translation pairs.** Query words are English WordNet 3.0 lemmas (by
   default one per synset: its first lemma, the most frequent one). Each
   query word's senses (synsets) get their translations from the Open
   Multilingual Wordnet; senses that share a translation are collapsed into
   one cluster (:func:`sense_clusters`). Every (word, translation) is a pair.
2. **Contextualisation.** A pair is kept when, in word-aligned parallel text
   (eflomal, symmetrised), the two words are aligned in at least two
   *different* sentence pairs: the source context comes from one, the target
   context from another (:func:`contextualize`), so the two contexts are never
   translations of each other (checked by :func:`check_non_parallel`).
3. **Selection.** As the paper's annotated sample: pairs whose source or
   target word is among the 250 most frequent or 250 most ambiguous words
   (most sense clusters) of its language; optionally capped by a random sample.
   The paper then kept only pairs two annotators judged correct; we cannot.
4. **Candidates.** The selected pairs' target tokens, plus distinct other
   words of target-language sentences not used by any test pair (and never a
   test target word), each in one random context, up to ``n_candidates``.

Retrieval: cosine between the (mapped) query token and every candidate
token; Precision@k counts a query when its own gold candidate is among the k
nearest (:func:`precision_at_k`).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field

import numpy as np

from xalign.data.words import Token, _is_cjk

# ------------------------------------------------------------------ word pairs


@dataclass(frozen=True)
class TranslationPair:
    """A source word, one of its translations, the sense cluster it stands for, and the cluster's synsets."""

    src: str
    tgt: str
    cluster: int
    synsets: tuple[str, ...]


def valid_word(word: str, lang: str) -> bool:
    """A single written word: alphabetic (Latin etc.) or all-CJK for zh/ja; no spaces, digits, hyphens."""
    if not word or any(c in word for c in " _-'.") or word != word.strip():
        return False
    if lang in ("zh", "ja", "cmn", "jpn"):
        return all(_is_cjk(c) for c in word)
    return word.isalpha()


def sense_clusters(synsets: list[str], translations: dict[str, set[str]]) -> list[tuple[list[str], set[str]]]:
    """Group a word's senses: two senses fall in one cluster when they share a translation.

    ``translations`` maps a synset to its translations; senses without any
    are dropped. Returns (synsets, translations) per cluster, in order of
    each cluster's first sense.
    """
    senses = [s for s in synsets if translations.get(s)]
    parent = {s: s for s in senses}

    def find(s):
        while parent[s] != s:
            parent[s] = parent[parent[s]]
            s = parent[s]
        return s

    owner: dict[str, str] = {}
    for s in senses:
        for t in sorted(translations[s]):
            if t in owner:
                parent[find(s)] = find(owner[t])
            else:
                owner[t] = s
    groups: dict[str, list[str]] = {}
    for s in senses:
        groups.setdefault(find(s), []).append(s)
    return [(members, set().union(*(translations[m] for m in members))) for members in groups.values()]


def translation_pairs(synsets: dict, omw: dict[str, list[str]], tgt_lang: str,
                      query: str = "first_lemma") -> tuple[list[TranslationPair], dict[str, int], dict[str, int]]:
    """Pairs from WordNet + OMW, with each source and target word's number of sense clusters.

    ``query``: ``"first_lemma"`` (one word per synset: its first lemma) or ``"all"`` lemmas.
    Returns (pairs, source ambiguity, target ambiguity).
    """
    if query not in ("first_lemma", "all"):
        raise ValueError(f"query must be 'first_lemma' or 'all', got {query!r}")
    tr = {k: {w for w in ws if valid_word(w, tgt_lang)} for k, ws in omw.items()}
    tr = {k: v for k, v in tr.items() if v and k in synsets}
    senses_of: dict[str, list[str]] = defaultdict(list)
    for key, syn in synsets.items():
        for lemma in syn.lemmas:
            if valid_word(lemma, "en"):
                senses_of[lemma].append(key)
    queries = sorted({syn.lemmas[0] for syn in synsets.values()} if query == "first_lemma" else set(senses_of))
    pairs, src_amb = [], {}
    for word in queries:
        if word not in senses_of:
            continue
        clusters = sense_clusters(senses_of[word], tr)
        if not clusters:
            continue
        src_amb[word] = len(clusters)
        for c, (members, words) in enumerate(clusters):
            for t in sorted(words):
                pairs.append(TranslationPair(word, t, c, tuple(members)))
    # target ambiguity: the same clustering from the target side (senses sharing an English word)
    en_of = {k: {w for w in synsets[k].lemmas if valid_word(w, "en")} for k in tr}
    tgt_senses: dict[str, list[str]] = defaultdict(list)
    for key, words in tr.items():
        for w in words:
            tgt_senses[w].append(key)
    tgt_amb = {w: len(sense_clusters(keys, en_of)) for w, keys in tgt_senses.items()}
    return pairs, src_amb, tgt_amb


# ------------------------------------------------------------- contextualisation


@dataclass(frozen=True)
class BTSRItem:
    """A test pair in context: the source word in sentence pair ``src_sent`` (token ``src_index``),
    its translation in a *different* sentence pair ``tgt_sent`` (token ``tgt_index``)."""

    src_word: str
    tgt_word: str
    cluster: int
    src_sent: int
    src_index: int
    tgt_sent: int
    tgt_index: int
    n_contexts: int  # sentence pairs in which the two words are aligned


def contextualize(pairs: list[TranslationPair], src_tokens: list[list[Token]], tgt_tokens: list[list[Token]],
                  links: list[set[tuple[int, int]]], rng: np.random.Generator) -> list[BTSRItem]:
    """Contexts for every pair aligned in at least two sentence pairs (two of them drawn at random)."""
    wanted = {(p.src, p.tgt): p for p in pairs}
    occ: dict[tuple[str, str], dict[int, tuple[int, int]]] = defaultdict(dict)
    for k, (s, t, ls) in enumerate(zip(src_tokens, tgt_tokens, links)):
        for i, j in sorted(ls):
            key = (s[i].text, t[j].text)
            if key in wanted and k not in occ[key]:
                occ[key][k] = (i, j)
    items = []
    for key in sorted(occ):
        sents = sorted(occ[key])
        if len(sents) < 2:
            continue
        a, b = rng.choice(len(sents), size=2, replace=False)
        ks, kt = sents[a], sents[b]
        p = wanted[key]
        items.append(BTSRItem(p.src, p.tgt, p.cluster, ks, occ[key][ks][0], kt, occ[key][kt][1], len(sents)))
    return items


def check_non_parallel(items: list[BTSRItem], src_texts: list[str], tgt_texts: list[str]) -> None:
    """Raise if a test pair's source and target contexts come from one sentence pair (or equal texts)."""
    for n, it in enumerate(items):
        if it.src_sent == it.tgt_sent:
            raise AssertionError(f"item {n} ({it.src_word}, {it.tgt_word}): both contexts from sentence pair "
                                 f"{it.src_sent}")
        if src_texts[it.src_sent] == src_texts[it.tgt_sent] or tgt_texts[it.src_sent] == tgt_texts[it.tgt_sent]:
            raise AssertionError(f"item {n} ({it.src_word}, {it.tgt_word}): the two sentence pairs "
                                 f"{it.src_sent} and {it.tgt_sent} share a sentence")


def select_items(items: list[BTSRItem], src_freq: Counter, tgt_freq: Counter, src_amb: dict[str, int],
                 tgt_amb: dict[str, int], top: int = 250, n_max: int | None = None,
                 rng: np.random.Generator | None = None) -> list[BTSRItem]:
    """Items whose source or target word is among the ``top`` most frequent or most ambiguous words.

    Ranks are taken among the items' own words (ties broken alphabetically);
    ``top=0`` keeps every item. ``n_max`` draws a random subset (kept in order).
    """
    if top:
        def best(words, score):
            return set(sorted(words, key=lambda w: (-score.get(w, 0), w))[:top])

        srcs, tgts = {it.src_word for it in items}, {it.tgt_word for it in items}
        keep_src = best(srcs, src_freq) | best(srcs, src_amb)
        keep_tgt = best(tgts, tgt_freq) | best(tgts, tgt_amb)
        items = [it for it in items if it.src_word in keep_src or it.tgt_word in keep_tgt]
    if n_max is not None and len(items) > n_max:
        rng = rng or np.random.default_rng(0)
        idx = np.sort(rng.choice(len(items), size=n_max, replace=False))
        items = [items[i] for i in idx]
    return items


def candidate_space(items: list[BTSRItem], tgt_tokens: list[list[Token]], n_candidates: int,
                    tgt_lang: str, rng: np.random.Generator) -> tuple[list[tuple[int, int]], int]:
    """Candidate (sentence, token index) list: the items' targets first, then filler words.

    Fillers are distinct words (``valid_word``) of target sentences that no
    item uses, excluding every item's target word, each in one random
    occurrence. Returns (candidates, number of filler words available).
    """
    used = {it.src_sent for it in items} | {it.tgt_sent for it in items}
    gold_words = {it.tgt_word for it in items}
    cands = [(it.tgt_sent, it.tgt_index) for it in items]
    where: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for k, toks in enumerate(tgt_tokens):
        if k in used:
            continue
        for j, tok in enumerate(toks):
            if tok.text not in gold_words and valid_word(tok.text, tgt_lang):
                where[tok.text].append((k, j))
    words = sorted(where)
    order = rng.permutation(len(words))
    n_fill = max(0, min(n_candidates - len(cands), len(words)))
    for w in order[:n_fill]:
        occ = where[words[w]]
        cands.append(occ[int(rng.integers(len(occ)))])
    return cands, len(words)


@dataclass
class BTSRSet:
    """A built BTSR test set over one pooled parallel corpus (sentence indices refer to it)."""

    src_lang: str
    tgt_lang: str
    items: list[BTSRItem]
    candidates: list[tuple[int, int]]  # (sentence, target token index); the first len(items) are the gold
    stats: dict = field(default_factory=dict)

    @property
    def gold(self) -> np.ndarray:
        return np.arange(len(self.items))

    def used_sentences(self) -> set[int]:
        return {it.src_sent for it in self.items} | {it.tgt_sent for it in self.items}

    def to_json(self) -> dict:
        return {"src_lang": self.src_lang, "tgt_lang": self.tgt_lang, "items": [asdict(i) for i in self.items],
                "candidates": [list(c) for c in self.candidates], "stats": self.stats}

    @classmethod
    def from_json(cls, d: dict) -> BTSRSet:
        return cls(d["src_lang"], d["tgt_lang"], [BTSRItem(**i) for i in d["items"]],
                   [tuple(c) for c in d["candidates"]], d["stats"])


def build_btsr(pairs: list[TranslationPair], src_amb: dict[str, int], tgt_amb: dict[str, int],
               src_texts: list[str], tgt_texts: list[str], src_tokens, tgt_tokens, links,
               tgt_lang: str, src_lang: str = "en", seed: int = 0, top: int = 250,
               n_test: int | None = None, n_candidates: int = 20000) -> BTSRSet:
    """The whole recipe (steps 2-4 above) on an aligned, de-duplicated parallel corpus; deterministic in ``seed``."""
    rng = np.random.default_rng(seed)
    items_all = contextualize(pairs, src_tokens, tgt_tokens, links, rng)
    src_freq = Counter(t.text for s in src_tokens for t in s)
    tgt_freq = Counter(t.text for s in tgt_tokens for t in s)
    items = select_items(items_all, src_freq, tgt_freq, src_amb, tgt_amb, top, n_test, rng)
    check_non_parallel(items, src_texts, tgt_texts)
    cands, n_fillers = candidate_space(items, tgt_tokens, n_candidates, tgt_lang, rng)
    stats = {"translation_pairs": len(pairs), "source_words": len({p.src for p in pairs}),
             "contextualized_pairs": len(items_all), "test_pairs": len(items),
             "test_source_words": len({i.src_word for i in items}),
             "candidates": len(cands), "candidates_requested": n_candidates,
             "filler_words_available": n_fillers, "seed": seed, "top": top}
    return BTSRSet(src_lang, tgt_lang, items, cands, stats)


def digest(*parts) -> str:
    """Short sha256 of JSON-able parts (cache keys)."""
    h = hashlib.sha256()
    for p in parts:
        h.update(json.dumps(p, sort_keys=True, ensure_ascii=False, default=str).encode())
    return h.hexdigest()[:20]


# ---------------------------------------------------------------------- scoring


def precision_at_k(queries: np.ndarray, candidates: np.ndarray, gold: np.ndarray,
                   ks=(1, 5)) -> dict[int, float]:
    """Fraction of queries whose gold candidate row is among their k nearest candidates by cosine.

    ``queries`` (n, d), ``candidates`` (m, d), ``gold`` (n,) candidate indices.
    """
    from xalign.measures.retrieval import cosine_topk

    gold = np.asarray(gold)
    if len(gold) != len(queries):
        raise ValueError(f"{len(queries)} queries but {len(gold)} gold indices")
    kmax = max(ks)
    idx, _ = cosine_topk(queries, candidates, topn=min(kmax, len(candidates)))
    hit = idx == gold[:, None]
    return {k: float(hit[:, :k].any(1).mean()) for k in ks}
