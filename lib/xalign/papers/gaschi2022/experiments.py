"""Chapter 1's experiments (Gaschi et al. 2022), one ``run_*`` function per table or figure.

The chapter notebook only calls :func:`run_chapter` (or the ``run_*`` functions one
by one, in the order :func:`run_chapter` calls them) and shows what they return.
Each function records its tables on the :class:`~xalign.book.results.ChapterRun`
and returns the frames the page shows and the figures' data (drawn by
:mod:`xalign.papers.gaschi2022.figures`).

The order matters for the numbers: one random generator (seeded with
the ``seed`` parameter) is drawn from by :func:`run_encoding` (aligner and random pairs),
then :func:`run_fig4` (random sentence pairs), then :func:`run_fig5` (the
dictionary-pair sample); every other sampling seeds its own generator.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from xalign.core.profiles import CommaList, ParameterError, as_list
from xalign.data import corpora as C
from xalign.data import word_pairs as PR
from xalign.data.datasets import DataNotFoundError
from xalign.data.paper_tables import paper_table
from xalign.data.static import read_vec
from xalign.data.words import punct_tokens
from xalign.measures import incontext as IC
from xalign.measures import layerwise as LW
from xalign.measures.aligner import UNSEEDED, align_words
from xalign.papers.gaschi2022 import aligner_rows as AR
from xalign.papers.gaschi2022 import examples as EX
from xalign.papers.gaschi2022 import report as RP
from xalign.papers.gaschi2022 import weakstrong as WS
from xalign.papers.gaschi2022.extraction_eval import extraction_precision, variants_on_gold_sets


@dataclass
class Extraction:
    """The translated-in-context pairs of every language pair (Sec. III-A).

    Attributes:
        corpus: language pair -> [(source sentence, target sentence)].
        tokens: language pair -> (source tokens, target tokens), one token list per sentence.
        word_pairs: language pair -> every extracted pair occurrence.
        counts: one row per language pair (sentence pairs, occurrences, distinct pairs, N per run).
        examples: the first eight pairs of the first language pair, with their source sentence.
    """

    corpus: dict
    tokens: dict
    word_pairs: dict
    counts: pd.DataFrame
    examples: pd.DataFrame


@dataclass
class Alignment:
    """Tables III and IV and the data of Figs. 6 and 7 (scores x 100 unless said otherwise).

    Attributes:
        runs: tidy (pair, layer, run, metric, value in [0, 1]) for S_weak, S_strong and xalign 0.1's S_strong.
        weak, strong: per pair and layer: mean, std, count, ci95 over runs.
        table3, table4: the comparison frames (paper, ours, diff).
        before_after: Table IV with xalign 0.1's formula beside the authors'.
        gap: xalign 0.1 minus the authors' S_strong per pair and layer.
    """

    runs: pd.DataFrame
    weak: pd.DataFrame
    strong: pd.DataFrame
    table3: pd.DataFrame
    table4: pd.DataFrame
    before_after: pd.DataFrame
    gap: pd.DataFrame


@dataclass
class ChapterResults:
    """Everything chapter 1 shows, in the order it is computed."""

    extraction: Extraction
    table2: pd.DataFrame
    table2_variants: pd.DataFrame
    aligner_curve: pd.DataFrame
    static_langs: list[str]
    table1: pd.DataFrame
    pooling: pd.DataFrame
    convention: str
    fig4: pd.DataFrame
    fig4_pair: str
    fig5: pd.DataFrame | None
    fig5_layer: int | None
    alignment: Alignment
    table5: pd.DataFrame
    table5_note: dict
    fig8: pd.DataFrame | None
    notes: dict = field(default_factory=dict)


def run_pair_extraction(run, *, pairs: CommaList, corpora: CommaList, max_sentences: int | None,
                        n_pairs: int) -> Extraction:
    """Read each language pair's corpus and MUSE dictionary and extract the translated-in-context pairs.

    Args:
        run: the chapter run; records ``pair_counts``.
        pairs, corpora: the language pairs and the corpora read for each (lists or comma strings).
        max_sentences: sentence pairs per language pair (0 or None: all); ``n_pairs``: N per run.
    """
    corpus, tokens, word_pairs = {}, {}, {}
    for lp in as_list(pairs):
        src_lang, tgt_lang = lp.split("-")
        corpus[lp] = C.parallel_corpus(as_list(corpora), lp, max_sentences or None)
        dictionary = C.muse_dictionary(lp)
        tokens[lp] = PR.tokenize_parallel(corpus[lp], src_lang, tgt_lang, dictionary)
        word_pairs[lp] = PR.extract_dictionary_pairs(*tokens[lp], dictionary, distinct=False)
    counts = pd.DataFrame([{"pair": lp, "sentence pairs": len(corpus[lp]),
                            "word pairs (occurrences)": len(word_pairs[lp]),
                            "distinct word pairs": PR.n_distinct(word_pairs[lp]),
                            "N used per run": min(n_pairs, PR.n_distinct(word_pairs[lp]))} for lp in corpus])
    run.record("pair_counts", counts, "Extracted translated-in-context pairs")
    first = next(iter(corpus))
    examples = pd.DataFrame([{"source word": p.src.text, "target word": p.tgt.text,
                              "source sentence": corpus[first][p.src_sent][0][:90]} for p in word_pairs[first][:8]])
    return Extraction(corpus, tokens, word_pairs, counts, examples)


def run_table2(run, *, gold_pairs: CommaList, corpora: CommaList, max_sentences: int | None,
               aligner_extra: int, aligner: str, seed: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Table II: precision of dictionary and aligner pairs against gold alignments, and the
    dictionary row under each protocol choice.

    The paper's dictionary row is compared with the authors' extraction reconstructed
    (:func:`~xalign.papers.gaschi2022.extraction_eval.authors_extraction`); our own extraction,
    whose pairs the chapter uses, is the row ``RP.OUR_DICTIONARY`` beside it. The paper's aligner row is
    compared with the authors' fast_align trained on the full corpora (stored links,
    :mod:`~xalign.papers.gaschi2022.aligner_rows`); our offline run is the row named with its training size.

    Returns:
        (the comparison frame ``table2``, the variants frame ``table2_variants``, both in points; our
        fast_align's learning curve, precision % against training sentences).
    """
    aligner_text = {  # extra parallel text the aligner trains on, per gold test set
        "en-fr": C.europarl_fr_en,
        "en-de": lambda: [(t, s) for s, t in C.parallel_corpus(as_list(corpora), "de-en", max_sentences or None)],
    }
    rows, golds, curves = [], {}, []
    for gp in as_list(gold_pairs):
        gold = golds[gp] = C.gold_alignment(gp)
        try:
            dictionary = C.muse_dictionary(gp)
        except DataNotFoundError as exc:
            dictionary = None
            run.notes.append(f"Table II {gp}: no MUSE dictionary ({str(exc)[:120]}...)")
        extra = aligner_text[gp]()[:aligner_extra] if gp in aligner_text else []
        extra_src, extra_tgt = [punct_tokens(s) for s, _ in extra], [punct_tokens(t) for _, t in extra]
        res = extraction_precision(gold, dictionary, extra_src, extra_tgt, seed=seed + 1, aligner=aligner)
        if res.dictionary is not None:  # our extraction: the pairs this chapter uses
            rows.append({"method": RP.OUR_DICTIONARY, "pair": gp, "value": 100 * res.dictionary,
                         "n pairs": res.n_dictionary})
        rows.append({"method": AR.offline_label(aligner, len(gold.src) + len(extra)), "pair": gp,
                     "value": 100 * res.aligner, "n pairs": res.n_aligner,
                     **({"unseeded": True} if aligner in UNSEEDED else {})})
        curves.append(AR.learning_curve(gp, gold, extra_src, extra_tgt))
    rows += AR.full_data_rows(golds)  # the paper's aligner row: the authors' fast_align on the full corpora
    variants = variants_on_gold_sets(as_list(gold_pairs))  # the mirror's MUSE files; ro-en has none
    rows += RP.authors_dictionary_rows(variants)  # the authors' extraction: the row set against the paper's
    table2 = run.compare("table2", pd.DataFrame(rows), keys=["method", "pair"],
                         title="Table II: precision of extracted pairs",
                         note=f"dictionary: the authors' extraction reconstructed (ours beside it); aligner: the "
                              f"authors' fast_align trained on the full corpora (stored links, one direction; ours, "
                              f"{aligner} symmetrised with grow-diag-final-and, beside it); gold: RWTH de-en, "
                              f"Hansards en-fr, WPT05 ro-en")
    table2_var = run.record("table2_variants", RP.table2_variants(variants),
                            "Table II: dictionary precision under each protocol choice",
                            note="one change at a time from our protocol, then the authors' combination")
    curve = run.record("table2_aligner_curve", pd.concat(curves, ignore_index=True),
                       "Table II: precision of our fast_align against its training sentences",
                       note="the gold sentences plus the first extra sentences; one direction and grow-diag-final-and")
    return table2, table2_var, curve


def run_encoding(enc, extraction: Extraction, layers: list[int], rng: np.random.Generator, *, dist_pair: str,
                 aligner: str, n_pairs: int, seed: int):
    """Encode every sentence once (every layer), with the words every experiment needs.

    For the Fig. 5 pair (``dist_pair``) it also extracts aligner pairs (``aligner``) and draws
    random pairs from ``rng``.

    Returns:
        (``IC.EncodedPairs`` holding one language pair at a time, {group name: [WordPair]} for Fig. 5).
    """
    extra_pairs = {}
    if dist_pair in extraction.corpus:
        src_tok, tgt_tok = extraction.tokens[dist_pair]
        links = align_words([[t.text for t in s] for s in src_tok], [[t.text for t in s] for s in tgt_tok],
                            aligner=aligner, seed=seed + 1)
        aligner_pairs = PR.pairs_from_links(src_tok, tgt_tok, links)
        n_dist = min(n_pairs, len(aligner_pairs))
        extra_pairs = {
            "aligner pairs": [aligner_pairs[i] for i in
                              np.sort(rng.choice(len(aligner_pairs), n_dist, replace=False))],
            "random pairs (whole corpus)": PR.random_pairs(src_tok, tgt_tok, n_dist, rng),
            "random pairs (same sentence pair)": PR.random_pairs(src_tok, tgt_tok, n_dist, rng, same_sentence=True),
        }
    wanted = {lp: wp + ([p for ps in extra_pairs.values() for p in ps] if lp == dist_pair else [])
              for lp, wp in extraction.word_pairs.items()}
    encoded = IC.EncodedPairs(enc, extraction.corpus, wanted, layers=layers)
    encoded.encode_all()  # a pair already in the cache is not read here
    return encoded, extra_pairs


def run_static_baseline(extraction: Extraction, *, static_vectors: CommaList, static_max_words: int, k: int,
                        n_pairs: int, n_sentences: int, runs: int,
                        seed: int) -> tuple[list[str], dict[str, pd.DataFrame]]:
    """The FastText rows of Tables I, III and IV from the ``.vec`` files in ``static_vectors``.

    Returns:
        (languages given static vectors, {table: rows}); rows are empty when none are given.
    """
    static = {}
    for item in as_list(static_vectors):
        lang, path = item.split(":", 1)
        static[lang] = read_vec(path, max_words=static_max_words)
    rows = WS.static_baseline_rows(extraction.word_pairs, extraction.tokens, static, k, n_pairs,
                                   n_sentences, runs, seed)
    return list(static), rows


def run_table1(run, enc, encoded, layers: list[int], paper_model: str, static_rows: pd.DataFrame, *, k: int,
               n_sentences: int, runs: int, seed: int) -> tuple[pd.DataFrame, pd.DataFrame, str]:
    """Table I: S_weak of first-token and mean-pooled sentence vectors (both means computed).

    Returns:
        (the comparison frame ``table1``, both means side by side ``table1_pooling``,
        the mean Table I's ``avg`` uses for this model).
    """
    convention = RP.avg_convention(enc)
    sent_runs = WS.sentence_layer_scores(encoded, {"CLS": "first", RP.AVG_WHOLE: "mean", RP.AVG_TOKENS: "tokens"},
                                         k, n_sentences, runs, seed, layers)
    table1 = run.compare("table1", RP.table1_ours(sent_runs, convention, paper_model, static_rows),
                         keys=["model", "pooling", "layer", "pair"], paper=paper_table("gaschi2022", "table1"),
                         title="Table I: NN-search for sentence representations",
                         note=f"ours: {enc.name}, avg = {convention}; paper: mBERT. "
                              "FastText row needs aligned .vec files")
    pool_var = run.record("table1_pooling", RP.pooling_variants(sent_runs, paper_model),
                          "Table I, both mean poolings: whole input vs the sentence's tokens (S_weak x 100)")
    return table1, pool_var, convention


def run_fig4(run, encoded, layers: list[int], rng: np.random.Generator, *, cls_pair: str) -> tuple[pd.DataFrame, str]:
    """Fig. 4: cosine of first-token vectors of translated and of random sentence pairs, per layer.

    Returns:
        (tidy frame: layer, pairs ("translated"/"random"), cosine; one row per sentence pair and
        layer, the language pair used).
    """
    pairs = list(encoded)  # iterating names the pairs; `in encoded` would read one
    lp = cls_pair if cls_pair in pairs else pairs[0]
    if lp != cls_pair:  # recorded with the results, not silent
        run.notes.append(f"Fig. 4: cls_pair {cls_pair} is not among pairs {pairs}; drawn for {lp}")
    first_s, first_t = (side.sentences["first"] for side in IC.sides_of(encoded, lp, "sentences"))
    perm = rng.permutation(len(first_t))
    fig4 = pd.concat([
        pd.DataFrame({"layer": np.repeat(layers, len(first_s)), "pairs": kind,
                      "cosine": IC.cosine_rows(first_s, first_t[idx]).T.ravel()})
        for kind, idx in (("translated", np.arange(len(first_t))), ("random", perm))])
    run.figure("Fig. 4", LW.summarise(fig4.rename(columns={"cosine": "value"}), ["pairs", "layer"]),
               "Fig. 4 data: first-token cosine (mean, std, ci95) per layer")
    return fig4, lp


def run_fig5(run, extraction: Extraction, encoded, extra_pairs: dict, layers: list[int], rng: np.random.Generator, *,
             dist_pair: str, dist_layer: int, n_pairs: int, aligner: str) -> tuple[pd.DataFrame | None, int | None]:
    """Fig. 5: cosine of dictionary, aligner and random word pairs at one layer (``dist_layer``).

    Returns:
        (tidy frame: pairs (group), cosine; the layer), or (None, None) when ``dist_pair`` is not run.
    """
    if dist_pair not in extraction.word_pairs:
        run.notes.append(f"Fig. 5 not drawn: dist_pair {dist_pair} is not among pairs {list(extraction.word_pairs)}")
        return None, None
    if dist_layer not in layers:
        raise ParameterError(f"parameter 'dist_layer' = {dist_layer} is not among the evaluated layers {layers}: "
                             "give one of them, or add it to 'layers'")
    li = layers.index(dist_layer)
    dictionary = extraction.word_pairs[dist_pair]
    groups = {"dictionary pairs": [dictionary[i] for i in PR.sample_distinct(dictionary, n_pairs, rng)],
              **extra_pairs}
    dist_sides = IC.sides_of(encoded, dist_pair, "words")
    fig5 = pd.concat([pd.DataFrame({"pairs": name,
                                    "cosine": IC.cosine_rows(*IC.pair_vectors(ps, *dist_sides, layer=li))})
                      for name, ps in groups.items()])
    summary = fig5.groupby("pairs")["cosine"].describe()[["count", "mean", "std", "25%", "50%", "75%"]]
    rows = summary.reset_index()
    if aligner in UNSEEDED:
        rows = rows.assign(unseeded=lambda d: d.pairs == "aligner pairs")
    run.figure("Fig. 5", rows, f"Fig. 5 data: cosine of word pairs by extraction method (aligner pairs: {aligner})")
    return fig5, layers[li]


def run_alignment(run, enc, extraction: Extraction, encoded, layers: list[int], paper_model: str,
                  static_rows: dict[str, pd.DataFrame], *, k: int, n_pairs: int, runs: int, seed: int) -> Alignment:
    """Tables III and IV (S_weak and S_strong at every layer, one pass) and Table IV's two formulas."""
    align_runs = WS.alignment_layer_scores(extraction.word_pairs, encoded, k, n_pairs, runs, seed, layers)
    weak_runs = align_runs[align_runs["metric"] == "S_weak"]
    strong_runs = align_runs[align_runs["metric"] == "S_strong"]
    weak = LW.summarise(weak_runs, ["pair", "layer"], scale=100)
    table3 = RP.compare_best_last(run, weak_runs, "table3", "Table III: weak alignment (S_weak)", paper_model,
                                  static_rows, enc.name)
    run.figure("Fig. 6", weak, "Fig. 6 data: S_weak per layer (mean, std, ci95 over runs, %)")
    strong = LW.summarise(strong_runs, ["pair", "layer"], scale=100)
    table4 = RP.compare_best_last(run, strong_runs, "table4", "Table IV: strong alignment (S_strong)", paper_model,
                                  static_rows, enc.name)
    before_after = run.record("table4_before_after", RP.strong_before_after(align_runs, paper_model),
                              "Table IV before and after the fix: S_strong x 100, xalign 0.1 vs the authors' "
                              "definition")
    gap = RP.strong_gap_by_layer(align_runs)
    run.record("fig7_before_after", gap, "Fig. 7 data, both formulas: mean S_strong per layer (x 100) and the gap")
    run.figure("Fig. 7", strong, "Fig. 7 data: S_strong per layer (mean, std, ci95 over runs, %)")
    return Alignment(align_runs, weak, strong, table3, table4, before_after, gap)


def run_table5(run, extraction: Extraction, encoded, layers: list[int], weak: pd.DataFrame, *, k: int, n_pairs: int,
               seed: int) -> tuple[pd.DataFrame, dict]:
    """Table V: the twelve S_weak errors of the first language pair at its best layer that the model is surest
    of (:func:`.examples.example_errors`: largest CSLS margin, rounded, ties alphabetical).

    Returns:
        (the examples: reference word, target word, model output, CSLS margin, context; {"pair", "layer",
        "errors", "pairs", "decimals", "shown"}: the counts behind them).
    """
    lp = next(iter(extraction.word_pairs))
    wp = extraction.word_pairs[lp]
    layer = EX.best_layer(weak, lp)
    sample = [wp[i] for i in PR.sample_distinct(wp, n_pairs, np.random.default_rng(seed))]
    U, V = IC.pair_vectors(sample, *IC.sides_of(encoded, lp, "words"), layer=layers.index(layer))
    errors = WS.retrieval_errors(sample, U, V, k=k)
    ex = EX.example_errors([p.src.text for p in sample], [p.tgt.text for p in sample], U, V, k=k)
    table5 = ex.drop(columns="row").assign(
        context=[extraction.corpus[lp][sample[i].src_sent][0][:80] for i in ex["row"]])
    run.record("table5", table5, f"Table V: the S_weak errors with the largest CSLS margin ({lp}, layer {layer})")
    return table5, {"pair": lp, "layer": layer, "errors": len(errors), "pairs": len(sample),
                    "decimals": EX.DECIMALS, "shown": len(table5)}


def run_fig8(run, enc, extraction: Extraction, encoded, layers: list[int], *, mask_pair: str, mask_pool: int, k: int,
             n_pairs: int, runs: int, seed: int) -> pd.DataFrame | None:
    """Fig. 8: S_weak of the words and of the mask token in their place (``mask_pool`` pairs).

    Releases ``encoded``'s held pair before the masked forward passes. Returns the tidy scores
    (layer, run, value in [0, 1], input "words"/"masked"), or None when ``mask_pair`` is not run or the
    encoder cannot mask words (``enc.can_mask`` False: a decoder whose tokenizer has no mask or unknown token).
    """
    lp = mask_pair
    if lp not in extraction.word_pairs:
        run.notes.append(f"Fig. 8 not drawn: mask_pair {lp} is not among pairs {list(extraction.word_pairs)}")
        return None
    if not getattr(enc, "can_mask", True):  # a decoder-only LLM whose tokenizer has no mask nor unknown token
        run.notes.append(f"Fig. 8 not drawn: {enc.name}'s tokenizer has no mask token, nor an unknown token to "
                         "stand in for one")
        return None
    wp, corpus = extraction.word_pairs[lp], extraction.corpus[lp]
    pool = [wp[i] for i in PR.sample_distinct(wp, mask_pool, np.random.default_rng(seed))]
    U, V = IC.pair_vectors(pool, *IC.sides_of(encoded, lp, "words"))
    encoded.release()  # the pool's words are copied out: the pair's memory goes to the masked forward passes
    Um, Vm = IC.masked_pair_vectors(enc, pool, [s for s, _ in corpus], [t for _, t in corpus], layers=layers)
    n_fig8 = min(n_pairs, int(0.8 * len(pool)))  # each run samples 80% of the pool
    if n_fig8 < n_pairs:
        run.notes.append(f"Fig. 8: N = {n_fig8} pairs per run (80% of a pool of {len(pool)}), not n_pairs = {n_pairs}")
    fig8 = WS.words_vs_masked_scores(U, V, Um, Vm, k, n_fig8, runs, seed, layers)
    fig8.attrs.update(pairs_per_run=n_fig8, pair=lp)  # the sample, for the sentence under Table III
    run.figure("Fig. 8", LW.summarise(fig8, ["input", "layer"], scale=100),
               "Fig. 8 data: S_weak with words vs masked words (%)")
    return fig8


def run_chapter(P, run, enc, layers: list[int]) -> ChapterResults:
    """Every experiment of chapter 1, in the order that fixes the random draws (see the module doc).

    Args:
        P: the chapter's parameters (:func:`xalign.papers.meta.parameters`); only this function reads them,
            handing each experiment the values it uses.
        run: the :class:`~xalign.book.results.ChapterRun` the tables are recorded on.
        enc: the encoder (every hidden-state layer).
        layers: the layers to evaluate (0 = embeddings).
    """
    paper_model = RP.paper_model_for(P.model)
    sampling = dict(k=P.k, n_pairs=P.n_pairs, runs=P.runs, seed=P.seed)  # every S_weak / S_strong sample
    extraction = run_pair_extraction(run, pairs=P.pairs, corpora=P.corpora, max_sentences=P.max_sentences,
                                     n_pairs=P.n_pairs)
    table2, table2_var, aligner_curve = run_table2(run, gold_pairs=P.gold_pairs, corpora=P.corpora,
                                                   max_sentences=P.max_sentences, aligner_extra=P.aligner_extra,
                                                   aligner=P.aligner, seed=P.seed)
    rng = np.random.default_rng(P.seed)
    encoded, extra_pairs = run_encoding(enc, extraction, layers, rng, dist_pair=P.dist_pair, aligner=P.aligner,
                                        n_pairs=P.n_pairs, seed=P.seed)
    static_langs, static_rows = run_static_baseline(extraction, static_vectors=P.static_vectors,
                                                    static_max_words=P.static_max_words,
                                                    n_sentences=P.n_sentences, **sampling)
    table1, pooling, convention = run_table1(run, enc, encoded, layers, paper_model, static_rows["table1"], k=P.k,
                                             n_sentences=P.n_sentences, runs=P.runs, seed=P.seed)
    fig4, fig4_pair = run_fig4(run, encoded, layers, rng, cls_pair=P.cls_pair)
    fig5, fig5_layer = run_fig5(run, extraction, encoded, extra_pairs, layers, rng, dist_pair=P.dist_pair,
                                dist_layer=P.dist_layer, n_pairs=P.n_pairs, aligner=P.aligner)
    alignment = run_alignment(run, enc, extraction, encoded, layers, paper_model, static_rows, **sampling)
    table5, table5_note = run_table5(run, extraction, encoded, layers, alignment.weak, k=P.k, n_pairs=P.n_pairs,
                                     seed=P.seed)
    fig8 = run_fig8(run, enc, extraction, encoded, layers, mask_pair=P.mask_pair, mask_pool=P.mask_pool, **sampling)
    return ChapterResults(extraction, table2, table2_var, aligner_curve, static_langs, table1, pooling, convention, fig4,
                          fig4_pair, fig5, fig5_layer, alignment, table5, table5_note, fig8,
                          notes={"paper_model": paper_model, "model": enc.name})
