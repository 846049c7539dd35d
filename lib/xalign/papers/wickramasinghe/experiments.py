"""Chapter 4's experiments (Wickramasinghe and de Silva 2025), one ``run_*`` function per step.

The chapter notebook calls :func:`run_chapter` (or these functions in its order) and shows
what they return; every table is recorded on the :class:`~xalign.book.results.ChapterRun`
under the same name as before, and every BLI cell is cached on disk by
:func:`xalign.measures.bli_grid.evaluate_directions`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import pandas as pd

from xalign.core.profiles import CommaList, as_list
from xalign.data.bli_data import bli_dictionary, vocabulary
from xalign.data.scripts import RULE_LABELS
from xalign.data.static import StaticVectors, read_vec
from xalign.data.stemming import get_stemmer
from xalign.data.wordvectors import WordEncoder
from xalign.measures.bli_grid import evaluate_directions
from xalign.papers.wickramasinghe import report as BR


@dataclass
class ChapterResults:
    """Everything chapter 4 shows (P@k in percent), in the order it is computed."""

    vocab_table: pd.DataFrame
    encoder_description: str
    checks: pd.DataFrame
    results: pd.DataFrame
    fits: pd.DataFrame
    inflation: pd.DataFrame
    static_run: bool
    table1: pd.DataFrame
    table2: pd.DataFrame
    identical: pd.DataFrame
    t3: pd.DataFrame
    table3: pd.DataFrame
    pruned_pairs: list[str]
    table5: pd.DataFrame
    t4: pd.DataFrame
    table4: pd.DataFrame
    t6: pd.DataFrame
    table6: pd.DataFrame
    pruning_rules: pd.DataFrame
    sinhala_lists: pd.DataFrame


def rcsls_settings(rcsls_iterations: int, rcsls_negatives: int) -> dict:
    """The RCSLS settings of :func:`xalign.measures.bli_grid.evaluate_directions` (gradient steps, negatives)."""
    return {"n_iter": int(rcsls_iterations), "n_negatives": int(rcsls_negatives)}


def directions(languages: CommaList) -> list[tuple[str, str]]:
    """En->X and X->En for every X of ``languages`` (a list or a comma string), in that order."""
    return [pair for x in as_list(languages) for pair in (("en", x), (x, "en"))]


def run_vocabularies(run, *, languages: CommaList, n_vocab: int, prune_languages: CommaList,
                     prune_rule: str) -> tuple[dict[str, list[str]], pd.DataFrame]:
    """The candidate vocabularies (wordfreq's top ``n_vocab``; fastText's list for Sinhala).

    Returns:
        ({language: words in frequency order}, the recorded ``vocabularies`` summary).
    """
    vocab = {lang: vocabulary(lang, n_vocab) for lang in ["en"] + as_list(languages)}
    table = run.record("vocabularies", BR.vocabulary_summary(vocab, prune_rule, as_list(prune_languages)),
                       title="Candidate vocabularies")
    return vocab, table


def run_encoding(run, vocab: dict[str, list[str]], *, model: str, backend: str, layer: int, pooling: str,
                 autocast: str | None, n_vocab_si_dictionary: int) -> tuple[WordEncoder, dict, object]:
    """Encode every candidate word once (and the old Sinhala list), then free the model.

    Returns:
        (the word encoder, {language: word vectors}, the old Sinhala list's vectors).
    """
    encoder = WordEncoder(model, backend, int(layer), pooling, autocast)
    run.use_encoder(encoder)
    vectors = encoder.encode_lists({**vocab, "si (old list)": vocabulary("si", n_vocab_si_dictionary or None,
                                                                         sinhala="dictionaries")})
    old_si = vectors.pop("si (old list)")
    encoder.release()  # every word is encoded: the model's memory goes to the BLI grid's similarity blocks
    return encoder, vectors, old_si


def run_known_answers(run, vectors: dict, *, languages: CommaList) -> pd.DataFrame:
    """Self-translation with the identity dictionary (NN P@1 must be 100) for English and the first language."""
    return run.record("known_answers", BR.known_answers(vectors, ["en"] + as_list(languages)[:1]),
                      title="Known-answer checks")


def run_grid(run, vectors: dict, stemmer, *, languages: CommaList, mappings: CommaList, prune_languages: CommaList,
             prune_rule: str, rcsls_options: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    """BLI of every direction with the model's vectors and every map learned on them (pruned where asked).

    Returns:
        (labelled results: one row per direction, method, retrieval, k, match and pruning;
        the recorded ``fits``: training pairs covered and RCSLS loss per map).
    """
    raw, fits = evaluate_directions(directions(languages), vectors, bli_dictionary,
                                    methods=["none"] + as_list(mappings), prune_langs=as_list(prune_languages),
                                    prune_rule=prune_rule, stemmers={"si": stemmer}, rcsls_options=rcsls_options,
                                    cache=True)
    results = BR.label(raw, "multilingual", sinhala_dictionary="wiki")
    run.record("fits", fits, title="Learned maps: training pairs covered, RCSLS loss")
    return results, fits


def run_sinhala_list_inflation(run, vectors: dict, old_si, results: pd.DataFrame, *, languages: CommaList,
                               prune_languages: CommaList, prune_rule: str) -> pd.DataFrame:
    """P@1 on En<->Si with the old Sinhala candidate list (dictionary words) beside fastText's list."""
    raw_old, _ = evaluate_directions([d for d in directions(languages) if "si" in d], {**vectors, "si": old_si},
                                     bli_dictionary, methods=["none"], prune_langs=as_list(prune_languages),
                                     prune_rule=prune_rule, cache=True, progress=False)
    return run.record("sinhala_list_inflation",
                      BR.sinhala_list_inflation(BR.label(raw_old, "multilingual"), results),
                      title="P@1 with the old Sinhala list (dictionary words) and the paper's (fastText)")


def run_sinhala_lists_matched(run, vectors: dict, old_si, *, languages: CommaList, prune_languages: CommaList,
                              prune_rule: str) -> pd.DataFrame:
    """En<->Si P@1 of the model alone with the old and the paper's Sinhala lists made comparable:
    both cut to the same size (each list's first N words, N the smaller list's size) and scored on
    the test pairs whose Sinhala word is in both cut lists; unpruned and pruned.

    Returns:
        The recorded ``sinhala_lists_matched`` frame (:func:`BR.sinhala_list_inflation`'s columns plus
        ``list size``); empty when the run has no Sinhala direction or no shared test word.
    """
    si_dirs = [d for d in directions(languages) if "si" in d]
    if not si_dirs:
        return run.record("sinhala_lists_matched", pd.DataFrame(), title="Old vs paper's Sinhala list, matched")
    new_si = vectors["si"]
    n = min(len(new_si.words), len(old_si.words))
    lists = {name: StaticVectors(v.words[:n], v.vectors[:n]) for name, v in (("old", old_si), ("new", new_si))}
    shared = set(lists["old"].words) & set(lists["new"].words)

    def on_shared(src: str, tgt: str, split: str) -> list[tuple[str, str]]:
        side = 0 if src == "si" else 1
        return [p for p in bli_dictionary(src, tgt, split) if p[side] in shared]

    si_dirs = [d for d in si_dirs if on_shared(*d, "test")]  # a small run may share no test word
    if not si_dirs:
        return run.record("sinhala_lists_matched", pd.DataFrame(), title="Old vs paper's Sinhala list, matched",
                          note=f"no test pair's Sinhala word is among both lists' first {n} words")
    raw = {name: evaluate_directions(si_dirs, {**vectors, "si": v}, on_shared, methods=["none"],
                                     prune_langs=as_list(prune_languages), prune_rule=prune_rule,
                                     cache=True, progress=False)[0] for name, v in lists.items()}
    frame = BR.sinhala_list_inflation(BR.label(raw["old"], "multilingual"), BR.label(raw["new"], "multilingual"))
    frame.insert(1, "list size", n)
    return run.record("sinhala_lists_matched", frame,
                      title="P@1 with the old Sinhala list and the paper's, equal sizes and shared queries")


def run_rule_variant(run, vectors: dict, results: pd.DataFrame, *, languages: CommaList, prune_languages: CommaList,
                     prune_rule: str) -> pd.DataFrame:
    """The model alone on the pruned directions with the other pruning rule (ours beside the authors').

    Returns:
        The recorded ``pruning_rules`` frame (:func:`BR.rule_variant`); empty when nothing is pruned.
    """
    prune = as_list(prune_languages)
    other_rule = "script" if prune_rule == "ascii" else "ascii"
    dirs = [d for d in directions(languages) if d[0] in prune or d[1] in prune]
    if dirs:
        raw, _ = evaluate_directions(dirs, vectors, bli_dictionary, methods=["none"], prune_langs=prune,
                                     prune_rule=other_rule, cache=True, progress=False)
        frame = BR.rule_variant(results, BR.label(raw, "multilingual", sinhala_dictionary="wiki"), prune_rule,
                                other_rule)
    else:
        frame = pd.DataFrame()
    return run.record("pruning_rules", frame, title="P@1 of the model alone with each pruning rule",
                      note=f"the run prunes with {RULE_LABELS[prune_rule]}; the variant with {RULE_LABELS[other_rule]}")


def run_static(stemmer, results: pd.DataFrame, *, vec_pattern: str, n_vocab: int, languages: CommaList,
               mappings: CommaList, prune_languages: CommaList, prune_rule: str,
               rcsls_options: dict) -> tuple[pd.DataFrame, bool]:
    """The paper's aligned-monolingual rows from fastText ``.vec`` files (``vec_pattern``), when given.

    Returns:
        (the results with the static rows appended, whether they ran).
    """
    if not vec_pattern:
        return results, False
    vec = {lang: read_vec(vec_pattern.format(lang=lang), max_words=n_vocab)
           for lang in ["en"] + as_list(languages)}
    raw_static, _ = evaluate_directions(directions(languages), vec, bli_dictionary, methods=as_list(mappings),
                                        prune_langs=as_list(prune_languages), prune_rule=prune_rule,
                                        stemmers={"si": stemmer}, rcsls_options=rcsls_options, cache=True)
    static = BR.label(raw_static, "static", sinhala_dictionary="wiki")
    return pd.concat([results, static], ignore_index=True), True


def run_table1(run, vocab: dict, results: pd.DataFrame, *, model: str, table1_models: dict[str, str],
               table1_languages: CommaList, prune_languages: CommaList, prune_rule: str, backend: str, layer: int,
               pooling: str, autocast: str | None) -> pd.DataFrame:
    """Table 1: P@1/5/10 of each multilingual model of ``table1_models`` next to the paper's row."""
    t1_langs, prune = as_list(table1_languages), as_list(prune_languages)
    parts = []
    for name, paper_name in table1_models.items():
        if name == model:
            res = results
        else:  # another multilingual model (paper profile): its own vectors for Table 1's languages
            other = WordEncoder(name, backend, int(layer), pooling, autocast)
            vec_other = other.encode_lists({lang: vocab[lang] for lang in ["en"] + t1_langs})
            t1_dirs = [pair for x in t1_langs for pair in (("en", x), (x, "en"))]
            res_other, _ = evaluate_directions(t1_dirs, vec_other, bli_dictionary, methods=["none"],
                                               prune_langs=prune, prune_rule=prune_rule, progress=False,
                                               cache=True)
            res = BR.label(res_other, "multilingual")
        parts.append(BR.table1(res, paper_name, t1_langs, pruned_langs=prune).assign(our_model=name))
    return run.compare("table1", pd.concat(parts, ignore_index=True), ["model", "lang", "direction", "retrieval", "k"],
                       title="Table 1: word translation precision of multilingual models",
                       note=f"ours: {', '.join(table1_models)}; compared with the paper's rows "
                            f"{', '.join(table1_models.values())}").astype({"k": int})


def run_table2(run, results: pd.DataFrame, *, model: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Table 2 (P@1 of every method and pair, unpruned) and the identical-string queries behind it."""
    cmp2 = run.compare("table2", BR.table2(results), ["method", "retrieval", "pair"], title="Table 2: top-1 BLI accuracy",
                       note=f"multilingual model: {model} here, LaBSE in the paper; fastText, C1 and C2 rows not "
                            "run here (no fastText vectors offline; C1/C2 not implemented)")
    identical = run.record("identical_strings", BR.identical_strings(results),
                           title="Identical-string queries and P@1 without them (multilingual model, unpruned)")
    return cmp2, identical


def run_pruning(run, results: pd.DataFrame, *, model: str, languages: CommaList, prune_languages: CommaList,
                prune_rule: str) -> tuple[pd.DataFrame, pd.DataFrame, list[str], pd.DataFrame]:
    """Table 3 (P@1 with and without pruning), Fig. 1's data and Table 5 (relative gain, %).

    Returns:
        (long Table 3 rows, the recorded comparison, the pruned pairs, Table 5's comparison).
    """
    pruned_pairs = [f"en-{x}" for x in as_list(languages) if x in as_list(prune_languages)]
    t3 = BR.table3(results, pruned_pairs)
    cmp3 = run.compare("table3", t3, ["method", "retrieval", "pair", "pruned"],
                       title="Table 3: effect of vocabulary pruning on P@1",
                       note=f"multilingual model: {model} here, LaBSE in the paper; pruning rule: "
                            f"{RULE_LABELS[prune_rule]}")
    run.figure("Fig. 1", t3, title="Fig. 1: P@1 with and without pruning")
    cmp5 = run.compare("table5", BR.table5(t3), ["pair", "retrieval"], title="Table 5: P@1 improvement from pruning (%)",
                       status=None if model.endswith("LaBSE") else "partly",  # another model's improvements
                       note=f"{model} here, LaBSE in the paper; the improvement depends on how many foreign-script "
                            "tokens the candidate vocabulary holds (wordfreq lists here, fastText vocabularies in "
                            "the paper)")
    return t3, cmp3, pruned_pairs, cmp5


def run_stemming(run, vectors: dict, stemmer, results: pd.DataFrame, *, model: str, languages: CommaList,
                 mappings: CommaList, prune_languages: CommaList, prune_rule: str, rcsls_options: dict,
                 vec_pattern_cc: str, n_vocab: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Table 4 (En<->Si, exact and stem-based, wiki and cc dictionaries), Fig. 2's data and Table 6.

    Returns:
        (long Table 4 rows, its comparison, long Table 6 rows, Table 6's comparison).
    """
    prune, maps = as_list(prune_languages), as_list(mappings)
    si_dirs = [d for d in (("en", "si"), ("si", "en")) if "si" in as_list(languages)]
    raw_cc, _ = evaluate_directions(si_dirs, vectors, partial(bli_dictionary, sinhala_variant="cc"),
                                    methods=["none"] + [m for m in maps if m == "rcsls"], prune_langs=prune,
                                    prune_rule=prune_rule, stemmers={"si": stemmer}, rcsls_options=rcsls_options,
                                    progress=False, cache=True)
    si_results = pd.concat([results, BR.label(raw_cc, "multilingual", sinhala_dictionary="cc")], ignore_index=True)
    if vec_pattern_cc:
        vec_cc = {lang: read_vec(vec_pattern_cc.format(lang=lang), max_words=n_vocab) for lang in ("en", "si")}
        raw_cc_static, _ = evaluate_directions(si_dirs, vec_cc, partial(bli_dictionary, sinhala_variant="cc"),
                                               methods=["rcsls"], prune_langs=prune, prune_rule=prune_rule,
                                               stemmers={"si": stemmer}, rcsls_options=rcsls_options, progress=False,
                                               cache=True)
        si_results = pd.concat([si_results, BR.label(raw_cc_static, "static", sinhala_dictionary="cc")],
                               ignore_index=True)
    t4 = BR.table4(si_results[si_results["method"].isin([BR.MULTILINGUAL, f"{BR.MULTILINGUAL} + RCSLS", "RCSLS"])])
    cmp4 = run.compare("table4", t4, ["method", "retrieval", "soft", "dictionary", "direction", "k"],
                       title="Table 4: impact of Sinhala inflection (stem-based BLI)",
                       note=f"multilingual model: {model} here, LaBSE in the paper; the paper's RCSLS rows map "
                            "fastText vectors (not run here); ours add RCSLS learned on our model's word vectors"
                       ).astype({"k": int})
    run.figure("Fig. 2", t4, title="Fig. 2: exact vs stem-based BLI, En->Si")
    t6 = BR.table6(t4)
    cmp6 = run.compare("table6", t6, ["method", "retrieval", "dictionary", "k"],
                       title="Table 6: En->Si improvement from stem-based BLI (%)",
                       note=f"{model} here, LaBSE in the paper; the paper's RCSLS rows map fastText vectors "
                            "(not run here)").astype({"k": int}).sort_values(["method", "retrieval", "dictionary", "k"])
    return t4, cmp4, t6, cmp6


def run_chapter(P, run) -> ChapterResults:
    """Every experiment of chapter 4, in the order the chapter shows them.

    Args:
        P: the chapter's parameters (:func:`xalign.papers.meta.parameters`); only this function reads them,
            handing each experiment the values it uses.
        run: the :class:`~xalign.book.results.ChapterRun` the tables are recorded on.
    """
    bli = dict(languages=P.languages, prune_languages=P.prune_languages, prune_rule=P.prune_rule)  # every BLI step
    words = dict(backend=P.backend, layer=P.layer, pooling=P.pooling, autocast=P.autocast)  # how words are encoded
    rcsls = rcsls_settings(P.rcsls_iterations, P.rcsls_negatives)
    vocab, vocab_table = run_vocabularies(run, n_vocab=P.n_vocab, **bli)
    encoder, vectors, old_si = run_encoding(run, vocab, model=P.model, n_vocab_si_dictionary=P.n_vocab_si_dictionary,
                                            **words)
    checks = run_known_answers(run, vectors, languages=P.languages)
    stemmer = get_stemmer("si", P.sinhala_stemmer)
    results, fits = run_grid(run, vectors, stemmer, mappings=P.mappings, rcsls_options=rcsls, **bli)
    inflation = run_sinhala_list_inflation(run, vectors, old_si, results, **bli)
    matched = run_sinhala_lists_matched(run, vectors, old_si, **bli)
    rules = run_rule_variant(run, vectors, results, **bli)
    results, static_run = run_static(stemmer, results, vec_pattern=P.vec_pattern, n_vocab=P.n_vocab,
                                     mappings=P.mappings, rcsls_options=rcsls, **bli)
    cmp1 = run_table1(run, vocab, results, model=P.model, table1_models=P.table1_models,
                      table1_languages=P.table1_languages, prune_languages=P.prune_languages,
                      prune_rule=P.prune_rule, **words)
    cmp2, identical = run_table2(run, results, model=P.model)
    t3, cmp3, pruned_pairs, cmp5 = run_pruning(run, results, model=P.model, **bli)
    t4, cmp4, t6, cmp6 = run_stemming(run, vectors, stemmer, results, model=P.model, mappings=P.mappings,
                                      rcsls_options=rcsls, vec_pattern_cc=P.vec_pattern_cc, n_vocab=P.n_vocab, **bli)
    run.notes.append(f"model {encoder.describe()}; {P.n_vocab} wordfreq words per language, fastText's for Sinhala "
                     f"(paper: 200k fastText words); pruning: {RULE_LABELS[P.prune_rule]}; X->En source side pruned; "
                     f"fastText and C1/C2 rows not run here")
    return ChapterResults(vocab_table, encoder.describe(), checks, results, fits, inflation, static_run, cmp1, cmp2,
                          identical, t3, cmp3, pruned_pairs, cmp5, t4, cmp4, t6, cmp6, rules, matched)
