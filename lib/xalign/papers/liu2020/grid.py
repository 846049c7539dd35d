"""The experiment grid: every (level, signal, technique) x training size, and the original space.

Part of the chapter-2 method; see :mod:`xalign.measures.btsr` for the vocabulary.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from xalign.core.draws import sample_indices
from xalign.core.threads import torch_threads
from xalign.measures.btsr.anchors import PairSpaces, anchors, fit, fit_key, unmapped_alignment
from xalign.measures.btsr.constants import LEVELS, TECHNIQUES
from xalign.measures.btsr.evaluate import btsr_precision, btsr_vectors, sentence_retrieval
from xalign.measures.btsr.pairdata import PairData
from xalign.measures.btsr.spaces import resolve_layers
from xalign.measures.mapping import Alignment, fit_alignments
from xalign.papers.liu2020.memos import memoised, pairs_digest, space_digest


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


@dataclass
class ContextPairVectors:
    """Word vectors of a contextual word-similarity set: source side A, other side B, gold ratings.

    ``b_side`` says which mapping the B vectors take: ``"tgt"`` (cross-lingual, BCWS) or ``"src"`` (SCWS).
    """

    A: np.ndarray
    B: np.ndarray
    rating: np.ndarray
    b_side: str = "tgt"

    def rows(self, idx) -> ContextPairVectors:
        """The items at rows ``idx`` (e.g. one seed's sample of a union that was encoded once)."""
        idx = np.asarray(idx, dtype=int)
        return ContextPairVectors(self.A[idx], self.B[idx], self.rating[idx], self.b_side)

    def spearman(self, al: Alignment | None) -> float:
        from xalign.measures.sts import spearman

        if al is None:
            A, B = self.A, self.B
        else:
            A = al.transform_src(self.A)
            B = al.transform_tgt(self.B) if self.b_side == "tgt" else al.transform_src(self.B)
        num = (A * B).sum(1)
        den = np.linalg.norm(A, axis=1) * np.linalg.norm(B, axis=1)
        return spearman(num / np.maximum(den, 1e-12), self.rating)


def evaluate_grid(sp: PairSpaces, sizes, methods, techniques=TECHNIQUES, bcws: ContextPairVectors | None = None,
                  scws: ContextPairVectors | None = None, ks=(1, 5), retrieval_k: int = 5,
                  store=None) -> pd.DataFrame:
    """Fit every method at every training size and score it on BTSR (P@k), sentence retrieval
    (P@``retrieval_k`` with token and, for type levels, type vectors), BCWS and SCWS (Spearman).

    ``dict`` methods do not depend on the size; they are fitted once (``n`` = 0).
    Returns one row per (level, signal, technique, n) with the scores as columns (fractions).
    Memoised (:mod:`~xalign.papers.liu2020.memos`; ``store``: the cache, default the shared one).
    """
    key = {"space": space_digest(sp), "sizes": [int(n) for n in sizes], "methods": [list(m) for m in methods],
           "techniques": list(techniques), "bcws": pairs_digest(bcws), "scws": pairs_digest(scws),
           "ks": list(ks), "retrieval_k": retrieval_k}
    return memoised("grid", key, lambda: _evaluate_grid(sp, sizes, methods, techniques, bcws, scws, ks, retrieval_k),
                    store=store)


def _evaluate_grid(sp, sizes, methods, techniques, bcws, scws, ks, retrieval_k) -> pd.DataFrame:
    import pandas as pd

    Q, C = btsr_vectors(sp, "token")
    jobs = []
    for level, signal in methods:
        for tech in techniques:
            for n in ([0] if signal == "dict" else sizes):
                jobs.append((level, signal, tech, n))
    rows = []
    with torch_threads(1, blas=True):  # many small products: one thread is fastest
        rows = _run_jobs(sp, jobs, Q, C, bcws, scws, ks, retrieval_k)
    return pd.DataFrame(rows)


def _run_jobs(sp, jobs, Q, C, bcws, scws, ks, retrieval_k) -> list[dict]:
    """One row per job, in ``jobs`` order; the techniques of one (level, signal, n) share their anchors
    and their Procrustes step (:func:`~xalign.measures.mapping.fit_alignments`)."""
    from xalign.core.progress import bar as progress_bar

    groups: dict[tuple, list[str]] = {}
    for level, signal, tech, n in jobs:
        groups.setdefault((level, signal, n), []).append(tech)
    done = {}
    for (level, signal, n), techs in progress_bar(list(groups.items()), desc="fit + evaluate", leave=False,
                                                  mininterval=30):
        try:
            X, Y = anchors(sp, level, signal, n or None)
            fits = fit_alignments(X, Y, [t == "mim" for t in techs])
        except ValueError as exc:  # too few anchors with vectors (tiny runs)
            for tech in techs:
                done[level, signal, tech, n] = {"level": level, "signal": signal, "technique": tech, "n": n,
                                                "error": str(exc)}
            continue
        for tech, al in zip(techs, fits):
            if n in (0, len(sp.data.train)):  # the baselines and the audit refit these: keep them
                sp.memo[fit_key(sp, level, signal, tech, n or None)] = al
            done[level, signal, tech, n] = _scores(sp, al, level, signal, tech, n, len(X), Q, C, bcws, scws, ks,
                                                   retrieval_k)
    return [done[job] for job in jobs]


def _scores(sp, al, level, signal, tech, n, n_anchors, Q, C, bcws, scws, ks, retrieval_k) -> dict:
    p = btsr_precision(al, Q, C, ks, sp.data.btsr.gold)
    row = {"level": level, "signal": signal, "technique": tech, "n": n, "n_anchors": n_anchors,
           **{f"btsr_p{k}": v for k, v in p.items()},
           "sr_token": sentence_retrieval(al, sp, "token", retrieval_k)}
    if level != "token":
        row["sr_type"] = sentence_retrieval(al, sp, "type", retrieval_k, level)
    if bcws is not None:
        row["bcws"] = bcws.spearman(al)
    if scws is not None:
        row["scws"] = scws.spearman(al)
    return row


def original_space_scores(sp: PairSpaces, bcws=None, scws=None, ks=(1, 5), retrieval_k: int = 5,
                          centred: bool = True, n_sentences: int | None = None, store=None) -> dict:
    """The same scores without any mapping (only meaningful when both sides come from one multilingual model).

    ``centred`` (default): the unmapped space gets the normalise-and-centre
    step every map applies (:func:`~xalign.measures.btsr.anchors.unmapped_alignment`,
    means of the ``token wa`` anchors of the first ``n_sentences`` training
    pairs); ``centred=False``: the raw space. BCWS and SCWS use the same alignment. Memoised.
    """
    key = {"space": space_digest(sp), "bcws": pairs_digest(bcws), "scws": pairs_digest(scws), "ks": list(ks),
           "retrieval_k": retrieval_k, "centred": bool(centred),
           "n_sentences": None if n_sentences is None else int(n_sentences)}
    return memoised("original_space", key, lambda: _original_space_scores(sp, bcws, scws, ks, retrieval_k, centred,
                                                                          n_sentences), store=store)


def _original_space_scores(sp, bcws, scws, ks, retrieval_k, centred, n_sentences) -> dict:
    Q, C = btsr_vectors(sp, "token")
    al = unmapped_alignment(sp, centred, n_sentences)
    out = {"centred": centred, **{f"btsr_p{k}": v for k, v in btsr_precision(al, Q, C, ks, sp.data.btsr.gold).items()}}
    out["sr_token"] = sentence_retrieval(al, sp, "token", retrieval_k)
    out["sr_type"] = sentence_retrieval(al, sp, "type", retrieval_k)
    if bcws is not None:
        out["bcws"] = bcws.spearman(al)
    if scws is not None:
        out["scws"] = scws.spearman(al)
    return out


BASELINES = {  # name: (BTSR representation, alignment level, signal) used to map it
    "BL(word) avg_type [type]": ("type", "avg_type", "wa"),
    "BL(context) [token]": ("context", "token", "sa"),
    "BL(context) avg_type [type]": ("context_type", "avg_type", "sa"),
    "BL(word+context) avg_type [type]": ("word+context", "avg_type", "wa"),
}


def btsr_baselines(sp: PairSpaces, n: int | None = None, ks=(1, 5), store=None) -> pd.DataFrame:
    """The paper's BTSR baselines: the word without its context, the context without the word, and both.

    Each representation is mapped with the orthogonal alignment of the level
    it lives at (``BASELINES``), learnt from ``n`` training sentences. Memoised.
    """
    import pandas as pd

    def compute():
        with torch_threads(1, blas=True):  # many small products: one thread is fastest
            return pd.DataFrame(_baseline_rows(sp, n, ks))

    key = {"space": space_digest(sp), "n": None if n is None else int(n), "ks": list(ks)}
    return memoised("baselines", key, compute, store=store)


def _baseline_rows(sp: PairSpaces, n, ks) -> list[dict]:
    rows = []
    gold = sp.data.btsr.gold
    for name, (kind, level, signal) in BASELINES.items():
        Q, C = btsr_vectors(sp, kind)
        p = btsr_precision(fit(sp, level, signal, "orig", n), Q, C, ks, gold)
        rows.append({"baseline": name, "mapped_with": method_label(level, signal, "orig"),
                     **{f"btsr_p{k}": v for k, v in p.items()}})
    Q, C = btsr_vectors(sp, "token")
    p = btsr_precision(fit(sp, "avg_type", "wa", "mim", n), Q, C, ks, gold)
    rows.append({"baseline": "(for comparison) avg_type wa mim [token]", "mapped_with": "avg_type wa mim",
                 **{f"btsr_p{k}": v for k, v in p.items()}})
    return rows


def load_variant_encoders(variants, models: dict[str, str], autocast: str | None = None, **kw) -> dict:
    """One loaded encoder per model key the variants need (``multi``, ``mono_en``, ...), each loaded once."""
    from xalign.core.loading import load_encoder

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
    """Encode both words of every pair of a :class:`xalign.data.wordsim.ContextPairs` set (layer-averaged)."""
    la, lb = resolve_layers(encoder_a, layers), resolve_layers(encoder_b, layers)
    A = encoder_a.encode_words(data.text_a, [[s] for s in data.span_a], layers=la, layer_mean=True)[:, 0]
    B = encoder_b.encode_words(data.text_b, [[s] for s in data.span_b], layers=lb, layer_mean=True)[:, 0]
    return ContextPairVectors(A, B, np.asarray(data.rating, float), b_side)


def btsr_sample(data: PairData, n: int = 8, seed: int = 0, width: int = 70) -> pd.DataFrame:
    """A few test pairs with their two (non-parallel) contexts, the words in [brackets]."""
    import pandas as pd

    items = data.btsr.items
    idx = sample_indices(seed, [["btsr-sample", it.src_word, it.tgt_word] for it in items], n)

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
