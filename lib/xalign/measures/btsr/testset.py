"""Bilingual Token-level Sense Retrieval (Liu et al. 2019, Sec. 4), rebuilt with the paper's recipe.

The published BTSR set cannot be obtained, so it is rebuilt from what the
mirror holds:

1. **Translation pairs.** Query words are English WordNet 3.0 lemmas (by
   default one per synset: its first lemma, the most frequent one). Each
   query word's senses (synsets) get their translations from the Open
   Multilingual Wordnet; senses that share a translation are collapsed into
   one cluster (:func:`sense_clusters`). Every (word, translation) is a pair.
2. **Contextualisation.** A pair is kept when, in word-aligned parallel text
   (fast_align by default, symmetrised), the two words are aligned in at least two
   *different* sentence pairs: the source context comes from one, the target
   context from another (:func:`contextualize`), so the two contexts are never
   translations of each other (checked by :func:`check_non_parallel`).
3. **Selection.** As the paper's annotated sample: pairs whose source or
   target word is among the 250 most frequent words of its language (counted
   over every word of a corpus, by default the pooled parallel text) or the
   250 most ambiguous ones (most sense clusters, over the whole lexicon);
   optionally capped by a random sample. The paper then kept only pairs two
   annotators judged correct; we cannot.
4. **Candidates.** As the paper: the target tokens of *all* contextualised
   pairs (so a target word appears in the senses other source words give it),
   plus words no pair uses, each in one random context, up to
   ``n_candidates`` (:func:`candidate_space`).

Retrieval: cosine between the (mapped) query token and every candidate
token; Precision@k counts a query when its own gold candidate is among the k
nearest, ties broken at random in expectation (:func:`precision_at_k`).

The authors' BTSR repository (github.com/qianchu/BTSR) is not in the code
store searched for this book; the recipe follows the paper's Sec. 4 text.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field

import numpy as np

from xalign.core.draws import item_rng, priorities, sample_indices
from xalign.data.words import Token, valid_word
from xalign.measures.mapping import row_norms

# ------------------------------------------------------------------ word pairs


@dataclass(frozen=True)
class TranslationPair:
    """A source word, one of its translations, the sense cluster it stands for, and the cluster's synsets."""

    src: str
    tgt: str
    cluster: int
    synsets: tuple[str, ...]


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
                  links: list[set[tuple[int, int]]], seed: int) -> list[BTSRItem]:
    """Contexts for every pair aligned in at least two sentence pairs (two of them drawn at random).

    Each pair's two contexts are drawn with a generator of its own (from ``seed``
    and the pair's words, :func:`xalign.core.draws.item_rng`): a changed link
    changes only the draw of the pair it belongs to.
    """
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
        a, b = item_rng(seed, ["btsr-contexts", *key]).choice(len(sents), size=2, replace=False)
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


def top_words(score: dict, top: int) -> set[str]:
    """The ``top`` words of a whole vocabulary by ``score`` (frequency or ambiguity); ties alphabetical."""
    return set(sorted(score, key=lambda w: (-score[w], w))[:top])


RANK_AMONG = ("vocabulary", "items")


def select_items(items: list[BTSRItem], src_freq: Counter, tgt_freq: Counter, src_amb: dict[str, int],
                 tgt_amb: dict[str, int], top: int = 250, n_max: int | None = None,
                 seed: int = 0, rank_among: str = "vocabulary") -> list[BTSRItem]:
    """Items whose source or target word is among the ``top`` most frequent or most ambiguous words.

    ``rank_among="vocabulary"`` (the paper, Sec. 4 "Creation of Test Data"):
    a word is frequent when it is among the ``top`` words of its language by
    corpus frequency (``src_freq``/``tgt_freq``: counts of *every* word of a
    corpus), ambiguous when among the ``top`` words of its language's lexicon
    by number of sense clusters (``src_amb``/``tgt_amb``: every word).
    ``rank_among="items"`` is this book's first reading (ranks among the
    items' own words), kept to show its effect. Ties are broken
    alphabetically; ``top=0`` keeps every item. ``n_max`` draws a random
    subset (kept in order), each item's chance from ``seed`` and its words alone.
    """
    if rank_among not in RANK_AMONG:
        raise ValueError(f"rank_among must be one of {RANK_AMONG}, got {rank_among!r}")
    if top:
        if rank_among == "items":
            srcs, tgts = {it.src_word for it in items}, {it.tgt_word for it in items}
            src_freq = {w: src_freq.get(w, 0) for w in srcs}
            tgt_freq = {w: tgt_freq.get(w, 0) for w in tgts}
            src_amb = {w: src_amb.get(w, 0) for w in srcs}
            tgt_amb = {w: tgt_amb.get(w, 0) for w in tgts}
        keep_src = top_words(src_freq, top) | top_words(src_amb, top)
        keep_tgt = top_words(tgt_freq, top) | top_words(tgt_amb, top)
        items = [it for it in items if it.src_word in keep_src or it.tgt_word in keep_tgt]
    if n_max is not None and len(items) > n_max:
        idx = sample_indices(seed, [["btsr-item", it.src_word, it.tgt_word] for it in items], n_max)
        items = [items[i] for i in idx]
    return items


def candidate_space(items: list[BTSRItem], tgt_tokens: list[list[Token]], n_candidates: int,
                    tgt_lang: str, seed: int, contextualized: list[BTSRItem] | None = None
                    ) -> tuple[list[tuple[int, int]], np.ndarray, dict]:
    """Candidate (sentence, token index) list, the gold row of each item, and counts.

    With ``contextualized`` (every contextualised pair, the paper's Sec. 4
    "Target Candidates"): the test items' targets, then the target tokens of
    all other contextualised pairs (so a target word also appears in the
    senses other source words give it: *same-form distractors*), then filler
    words that are no contextualised pair's target word. Without it (this
    book's first reading): the items' targets, then fillers that are no
    *test* target word, so the only same-form distractors are other test
    items.

    Every candidate but the golds lies outside the sentence pairs the test
    items use; fillers are distinct words (``valid_word``), each in one random
    occurrence; candidates are unique tokens, so two items may share a gold
    row. At most ``n_candidates`` rows (the golds always). Every random choice
    (which contextualised targets, which fillers, which occurrence of a filler)
    is drawn per candidate from ``seed`` and the candidate itself.
    """
    used = {it.src_sent for it in items} | {it.tgt_sent for it in items}
    cands: list[tuple[int, int]] = []
    row: dict[tuple[int, int], int] = {}

    def add(c):
        if c not in row:
            row[c] = len(cands)
            cands.append(c)
        return row[c]

    gold = np.array([add((it.tgt_sent, it.tgt_index)) for it in items], dtype=np.int64)
    others = sorted({(it.tgt_sent, it.tgt_index) for it in contextualized or ()} - set(row))
    others = [c for c in others if c[0] not in used]
    if len(others) > n_candidates - len(cands):
        keep = sample_indices(seed, [["btsr-candidate", *c] for c in others], max(0, n_candidates - len(cands)))
        others = [others[i] for i in keep]
    for c in others:
        add(c)
    excluded = {it.tgt_word for it in (contextualized if contextualized is not None else items)}
    where: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for k, toks in enumerate(tgt_tokens):
        if k in used:
            continue
        for j, tok in enumerate(toks):
            if tok.text not in excluded and valid_word(tok.text, tgt_lang):
                where[tok.text].append((k, j))
    words = sorted(where)
    order = np.argsort(priorities(seed, [["btsr-filler", w] for w in words]), kind="stable")
    n_fill = max(0, min(n_candidates - len(cands), len(words)))
    for w in order[:n_fill]:
        occ = where[words[w]]
        add(occ[int(item_rng(seed, ["btsr-filler-context", words[w]]).integers(len(occ)))])
    n_form = Counter(tgt_tokens[k][j].text for k, j in cands)
    counts = {"contextualized_candidates": len(others), "filler_words_available": len(words),
              "same_form_distractors": sum(n_form[it.tgt_word] - 1 for it in items),  # summed over the queries
              "items_with_same_form_distractor": sum(n_form[it.tgt_word] > 1 for it in items)}
    return cands, gold, counts


@dataclass
class BTSRSet:
    """A built BTSR test set over one pooled parallel corpus (sentence indices refer to it)."""

    src_lang: str
    tgt_lang: str
    items: list[BTSRItem]
    candidates: list[tuple[int, int]]  # (sentence, target token index)
    stats: dict = field(default_factory=dict)
    gold_rows: list[int] | None = None  # each item's candidate row (None: the first len(items) rows)

    @property
    def gold(self) -> np.ndarray:
        if self.gold_rows is None:
            return np.arange(len(self.items))
        return np.asarray(self.gold_rows, dtype=np.int64)

    def used_sentences(self) -> set[int]:
        return {it.src_sent for it in self.items} | {it.tgt_sent for it in self.items}

    def to_json(self) -> dict:
        return {"src_lang": self.src_lang, "tgt_lang": self.tgt_lang, "items": [asdict(i) for i in self.items],
                "candidates": [list(c) for c in self.candidates], "stats": self.stats,
                "gold_rows": None if self.gold_rows is None else [int(g) for g in self.gold_rows]}

    @classmethod
    def from_json(cls, d: dict) -> BTSRSet:
        return cls(d["src_lang"], d["tgt_lang"], [BTSRItem(**i) for i in d["items"]],
                   [tuple(c) for c in d["candidates"]], d["stats"], d.get("gold_rows"))


def build_btsr(pairs: list[TranslationPair], src_amb: dict[str, int], tgt_amb: dict[str, int],
               src_texts: list[str], tgt_texts: list[str], src_tokens, tgt_tokens, links,
               tgt_lang: str, src_lang: str = "en", seed: int = 0, top: int = 250,
               n_test: int | None = None, n_candidates: int = 20000, src_freq: Counter | None = None,
               tgt_freq: Counter | None = None, same_form: bool = True) -> BTSRSet:
    """The whole recipe (steps 2-4 above) on an aligned, de-duplicated parallel corpus; deterministic in ``seed``.

    ``src_freq``/``tgt_freq``: word counts of the corpus that ranks words by
    frequency (default: every word of this parallel text). ``same_form=False``
    builds the candidate space as this book first did (no contextualised pairs
    beyond the test items; the same test items for the same seed), to show the
    change. ``stats["test_pairs_ranked_among_items"]`` counts the pairs the
    first reading of the selection (ranks among the items' own words) keeps.
    """
    items_all = contextualize(pairs, src_tokens, tgt_tokens, links, seed)
    src_freq = src_freq if src_freq is not None else Counter(t.text for s in src_tokens for t in s)
    tgt_freq = tgt_freq if tgt_freq is not None else Counter(t.text for s in tgt_tokens for t in s)
    items = select_items(items_all, src_freq, tgt_freq, src_amb, tgt_amb, top, n_test, seed)
    first = select_items(items_all, src_freq, tgt_freq, src_amb, tgt_amb, top, rank_among="items")
    check_non_parallel(items, src_texts, tgt_texts)
    cands, gold, counts = candidate_space(items, tgt_tokens, n_candidates, tgt_lang, seed,
                                          items_all if same_form else None)
    stats = {"translation_pairs": len(pairs), "source_words": len({p.src for p in pairs}),
             "contextualized_pairs": len(items_all), "test_pairs": len(items),
             "test_pairs_ranked_among_items": len(first),
             "test_source_words": len({i.src_word for i in items}),
             "candidates": len(cands), "candidates_requested": n_candidates, **counts,
             "seed": seed, "top": top, "same_form_candidates": same_form}
    return BTSRSet(src_lang, tgt_lang, items, cands, stats, [int(g) for g in gold])


# ---------------------------------------------------------------------- scoring


TIES = ("random", "gold_first")


def precision_at_k(queries: np.ndarray, candidates: np.ndarray, gold: np.ndarray,
                   ks=(1, 5), tol: float = 1e-6, block: int = 512, ties: str = "random") -> dict[int, float]:
    """Precision@k by cosine (a fraction per k; NaN without queries): the mean of :func:`item_precision_at_k`."""
    items = item_precision_at_k(queries, candidates, gold, ks, tol, block, ties)
    return {k: float(v.mean()) if len(v) else float("nan") for k, v in items.items()}


def item_precision_at_k(queries: np.ndarray, candidates: np.ndarray, gold: np.ndarray,
                        ks=(1, 5), tol: float = 1e-6, block: int = 512, ties: str = "random") -> dict[int, np.ndarray]:
    """Precision@k by cosine per query: 1 when its gold candidate row is among its k nearest, else 0
    (a fraction where the gold ties with other candidates; returns {k: (n,) array}).

    ``queries`` (n, d), ``candidates`` (m, d), ``gold`` (n,) candidate indices.
    Ties are broken at random, in expectation: a query whose gold has ``b``
    candidates strictly closer and ``t`` others equally close (within ``tol``)
    counts ``clip((k - b) / (t + 1), 0, 1)``. Type-level vectors give every
    occurrence of a word the same vector, so same-form distractors tie with
    the gold; counting ties for the gold (``ties="gold_first"``, how a
    top-k that happens to list the gold first scores) would credit a method
    that cannot tell senses apart.
    """
    if ties not in TIES:
        raise ValueError(f"ties must be one of {TIES}, got {ties!r}")
    gold = np.asarray(gold)
    if len(gold) != len(queries):
        raise ValueError(f"{len(queries)} queries but {len(gold)} gold indices")
    if len(gold) and (gold.min() < 0 or gold.max() >= len(candidates)):
        raise ValueError(f"gold indices must lie in [0, {len(candidates)}), got {gold.min()}..{gold.max()}")

    def unit(X):
        X = np.asarray(X, np.float64)
        return X / np.maximum(row_norms(X), 1e-12)

    Q, C = unit(queries), unit(candidates)
    better, tied = np.empty(len(Q)), np.empty(len(Q))
    for s in range(0, len(Q), block):
        S = Q[s : s + block] @ C.T
        g = S[np.arange(len(S)), gold[s : s + block]][:, None]
        better[s : s + block] = (S > g + tol).sum(1)
        tied[s : s + block] = (np.abs(S - g) <= tol).sum(1) - 1
    if ties == "gold_first":
        tied[:] = 0
    return {k: np.clip((k - better) / (tied + 1), 0, 1) for k in ks}
