# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # How good is BLI as an alignment measure? (Wickramasinghe and de Silva 2025)
#
# Bilingual lexicon induction (BLI, "word translation") is the usual yardstick for how well
# two embedding spaces are aligned: translate each source word of a test dictionary to its
# nearest target word and count how often a gold translation comes back (P@1, P@5, P@10).
# Wickramasinghe and de Silva compare aligned monolingual fastText vectors (Procrustes,
# RCSLS, VecMap, the contrastive C1), the word vectors of multilingual encoders (a word fed
# alone to LaBSE) and *combined* methods (C2: a map learned on top of LaBSE) on ten
# language pairs with English, and argue that BLI misreads alignment in two situations:
#
# * **multilingual models**: every language shares one space, so the nearest neighbour of an
#   English word is often an English (or other foreign) token that happens to sit in the
#   target vocabulary. *Pruning* the candidate vocabulary to the target language's script
#   raises LaBSE's P@1 by 36-935% (Tables 3 and 5, Fig. 1);
# * **inflected languages**: a Sinhala translation that differs from the gold word only by an
#   inflection counts as a miss. Their *stem-based BLI* (Algorithm 1) also accepts a match of
#   stems, raising En->Si P@1 by 23-45% (Tables 4 and 6, Fig. 2).
#
# **What this chapter runs.** The same evaluation (MUSE-style P@k, NN and CSLS retrieval,
# coverage, pruning, Algorithm 1), the same dictionaries (MUSE for nine languages, the
# Sinhala-English dictionaries of the paper's authors for Sinhala), and the same supervised
# maps (Procrustes, RCSLS, VecMap's supervised multi-step framework), but with the model this
# machine has: **`multilingual-e5-small`** in place of LaBSE, each word fed alone and
# represented by the mean of its own sub-word vectors at a chosen layer. The maps are learned
# on top of e5's word vectors, i.e. they are *combined* rows in the paper's sense. What
# differs from the paper, and why, is said next to every table:
#
# * **no fastText vectors offline**, so the paper's aligned-monolingual rows (Procrustes,
#   RCSLS, VecMap on fastText) run only for readers who pass `.vec` files (`vec_pattern`);
#   here they stay empty;
# * **C1 and C2** (the contrastive two-stage method of Li et al. 2022) are not implemented:
#   their rows are the paper's only;
# * **candidate vocabularies** are the top-N words of `wordfreq`'s frequency lists (the paper:
#   the 200,000 most frequent fastText words) and, for Sinhala, which wordfreq does not cover,
#   the paper's own list: the top N of fastText's Sinhala Wikipedia vocabulary (79,030 words,
#   as the authors' repository ships it). N is a parameter; the `default` profile uses a
#   smaller N than the paper to stay within a CPU budget (the value is printed below), so fewer
#   test words are covered: coverage is printed next to every P@k;
# * the other multilingual models of Table 1 (mBERT, XLM-R, LASER) need the hub; the `paper`
#   profile runs the sentence-transformers ones on a machine with a network.

# %%
from functools import partial

import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import Markdown, display

from xalign.book.results import ChapterRun, paper_table
from xalign.core.profiles import as_list
from xalign.data.bli_data import bli_dictionary, vocabulary
from xalign.data.datasets import get
from xalign.data.scripts import RULE_LABELS
from xalign.data.static import read_vec
from xalign.data.stemming import get_stemmer
from xalign.data.wordvectors import WordEncoder
from xalign.measures.bli_grid import evaluate_directions
from xalign.papers.meta import parameters
from xalign.papers.wickramasinghe.bli_report import (
    MULTILINGUAL,
    findings,
    identical_strings,
    known_answers,
    label,
    plot_inflection,
    plot_pruning,
    sinhala_list_inflation,
    table1,
    table2,
    table3,
    table4,
    table5,
    table6,
    view,
    vocabulary_summary,
)

pd.set_option("display.max_rows", 300)
pd.set_option("display.precision", 1)

# %% tags=["parameters"]
profile = "default"
model = None               # multilingual model whose word vectors Tables 2-6 use
table1_models = None       # {our model: the paper's Table 1 row it is compared with}
backend = None             # "layer" (xalign encoder: pooled sub-words at a chosen layer) or "sentence-transformers"
layer = None               # hidden layer for backend "layer" (-1 is the last, 0 the embeddings)
pooling = None             # "word" (the word's own sub-words), "sentence" (all tokens) or "first" token
autocast = None            # "float32" (exact, the profiles), "auto" (bfloat16 where the CPU has native bf16), "bfloat16"
n_vocab = None             # candidate words per language: wordfreq's top N, fastText's for Sinhala (the paper: 200,000)
n_vocab_si_dictionary = None  # size of the OLD Sinhala list (dictionary words, 0 for all), run only to measure its inflation
languages = None           # the X of the En<->X directions (Tables 2-3)
table1_languages = None    # the X of Table 1
prune_languages = None     # languages whose vocabulary is pruned to their script (Table 3)
prune_rule = None          # "ascii" (the authors' not_ASCII: drop words with every character < U+0100) or "script" (ours)
mappings = None            # maps learned on the model's word vectors (MUSE 0-5000 train split)
rcsls_iterations = None    # RCSLS gradient steps (the paper: 20)
rcsls_negatives = None     # RCSLS negatives: most frequent words per side (the paper: 200,000)
sinhala_stemmer = None     # "sinling-splitter" (the paper's code) or "sinling-stemmer"
vec_pattern = None         # fastText .vec files, e.g. "/data/wiki.{lang}.vec" (None: static rows not run)
vec_pattern_cc = None      # common-crawl .vec files for the cc rows of Table 4, e.g. "/data/cc.{lang}.300.vec"

# %%
P = parameters("wickramasinghe", profile, globals())  # the profile's values; -p overrides win
LANGS, T1_LANGS = as_list(P.languages), as_list(P.table1_languages)
PRUNE, MAPS = as_list(P.prune_languages), as_list(P.mappings)
RCSLS = {"n_iter": int(P.rcsls_iterations), "n_negatives": int(P.rcsls_negatives)}
run = ChapterRun("04_bli_pruning_stemming", "wickramasinghe", profile, vars(P))
display(P)

# %% [markdown]
# ## Data: dictionaries and candidate vocabularies
#
# **Test and training dictionaries.** MUSE (Conneau et al. 2018; CC BY-NC 4.0) pairs English
# with de, es, fr, it, ja, ru, ta, tr and zh; its `0-5000` split (5000 source words) trains
# the maps and its `5000-6500` split (1500 source words) is the test set, in both directions.
# For Sinhala the paper uses the dictionaries Wickramasinghe and de Silva (2023) built with
# MUSE's criteria (MIT license), in two versions matched to the wiki and the common-crawl
# fastText vocabularies (`wiki_en-si_testset_1500_5000_200k.txt`, ...). MUSE's Chinese words are
# mostly in Traditional characters while wordfreq's Chinese list (our candidates) is Simplified, so
# we convert the Chinese side to Simplified characters (`hanziconv`); without it most Chinese
# test words would not be in the vocabulary. The paper used the dictionaries as they are, with
# fastText's mixed-script Chinese vocabulary.
#
# **Candidate vocabularies.** For every language but Sinhala, the most frequent words of
# [wordfreq](https://github.com/rspeer/wordfreq)'s frequency list (data CC BY-SA 4.0),
# lower-cased. wordfreq has no Sinhala list; the Sinhala candidates are the paper's: the top N
# words of fastText's Sinhala Wikipedia vocabulary (`wiki.si.vec_words.txt` of the authors'
# repository, 79,030 words in frequency order). Like the paper's fastText vocabularies, the
# lists of non-Latin-script languages contain Latin-script tokens (numbers, English words,
# markup): those are what pruning removes.
#
# *What changed.* An earlier version of this chapter took all Sinhala words of the
# Sinhala-English dictionary files, test splits included, as the Sinhala candidates: every gold
# target was then a candidate and every distractor a real dictionary word, which flatters En->Si
# precision and leaves pruning nothing to prune. The run below still evaluates that old list
# (model only, no maps) to show by how much it inflated P@1.

# %%
display(Markdown(f"MUSE license: **{get('muse').license}**; Sinhala-English dictionaries and fastText's Sinhala "
                 f"word list: **{get('sinhala_en_dict').license}**. Vocabulary size here: **{P.n_vocab:,}** "
                 f"words per language (the paper: 200,000; fastText's Sinhala list has 79,030). Pruning rule: "
                 f"**{RULE_LABELS[P.prune_rule]}**."))
vocab = {lang: vocabulary(lang, P.n_vocab) for lang in ["en"] + LANGS}
vocab_table = run.record("vocabularies", vocabulary_summary(vocab, P.prune_rule, PRUNE), title="Candidate vocabularies")
display(vocab_table)

# %% [markdown]
# ## Static word vectors from a multilingual encoder
#
# "Contextualized models give fixed embeddings when a single word is fed and therefore they
# behave akin to static embedding models" (Sec. 5). Each candidate word is fed to the encoder
# alone (with e5's `passage: ` prefix) and represented by the mean of its own sub-word vectors
# at the chosen layer. The paper used LaBSE's sentence embedding of the word (the `paper`
# profile does the same through sentence-transformers). A word found in several lists (loanwords,
# names, numbers; half of the new Sinhala list is in the old one) is encoded once, and words of
# equal token count are encoded together, so no word is padded. The encoder runs in exact float32. Under
# bfloat16 autocast (`-p autocast auto` or `bfloat16`, faster on CPUs with AVX512-BF16 or AMX) P@1
# stayed within half a point of float32 on every cell of a test on 10,000-word vocabularies
# (En<->Es, Zh, Si, NN and CSLS, the model's space and Procrustes) on an Intel CPU with AMX, but
# not on an AMD Zen 4 (AVX512-BF16 without AMX: Zh->En, CSLS, the model's space moved by 0.56
# points, 3 of 537 queries; every other cell by at most 0.44), and on this chapter's default profile
# (20,000-word vocabularies, every table) not on the AMX CPU either: one cell of Table 2 moved by more
# than half a point there (`bench/precision_diff.py` prints the comparison). The half-point this
# project accepts from a change of precision does not hold for this chapter. The precision used
# is printed below and saved with the results. Vectors are cached on disk (keyed by the
# precision), so a rerun does not encode again.

# %%
encoder = WordEncoder(P.model, P.backend, int(P.layer), P.pooling, P.autocast)
run.use_encoder(encoder)
print(encoder.describe())
vectors = encoder.encode_lists({**vocab, "si (old list)": vocabulary("si", P.n_vocab_si_dictionary or None,
                                                                     sinhala="dictionaries")})
old_si = vectors.pop("si (old list)")
encoder.release()  # every word is encoded: the model's memory goes to the BLI grid's similarity blocks

# %% [markdown]
# **Known answer.** Mapping a space onto itself with the identity dictionary must give
# nearest-neighbour P@1 = 100 (every word is its own nearest neighbour); a failure here would
# mean the retrieval or the bookkeeping is broken, not the alignment.

# %%
checks = run.record("known_answers", known_answers(vectors, ["en"] + LANGS[:1]), title="Known-answer checks")
display(checks)

# %% [markdown]
# ## BLI for every pair, method and retrieval criterion
#
# For each direction we evaluate the model's own vectors (`multilingual model`) and the maps
# learned on top of them from the training split (`multilingual model + Procrustes / RCSLS /
# VecMap`):
#
# * **Procrustes**: the orthogonal W minimising ||XW - Y|| over the training pairs (vectors
#   unit length, centred on the vocabulary mean, unit length again);
# * **RCSLS** (Joulin et al. 2018): W minimising the relaxed CSLS loss, from the Procrustes
#   solution, by full-batch gradient descent with step halving, k = 10 neighbours, negatives
#   drawn from the most frequent words (the paper: 20 steps, 200k negatives; the `default`
#   profile takes fewer to fit the CPU budget, see the parameters above);
# * **VecMap** (Artetxe et al. 2018): the supervised multi-step framework with its recommended
#   settings (whitening, orthogonal mapping, re-weighting 0.5, de-whitening).
#
# Retrieval is by cosine (NN) or CSLS (k = 10, densities over the whole vocabularies, as MUSE
# computes them). P@k counts a covered source word as correct if any gold translation is among
# its k best candidates; *coverage* is the share of the test dictionary's source words that have
# a vector and at least one gold translation in the candidate vocabulary. Every P@k comes with a
# 95% bootstrap interval over the test queries (1,000 resamples), so differences smaller than
# the interval are not evidence. Directions with a language of `prune_languages` on either side
# are also evaluated with that language's vocabulary pruned: the target side for En->X and the
# source side for X->En, as the authors' evaluation code (`evaluate_c1.py`) prunes si, zh, ru,
# ta and ja wherever they occur. En->Si is also scored with stem-based matching (below). Each
# (direction, method) cell is cached on disk, keyed by both vocabularies' vectors, the
# dictionaries, the map and its settings, so a rerun reads it instead of refitting.

# %%
stemmer = get_stemmer("si", P.sinhala_stemmer)
directions = [pair for x in LANGS for pair in (("en", x), (x, "en"))]
raw, fits = evaluate_directions(directions, vectors, bli_dictionary, methods=["none"] + MAPS,
                                prune_langs=PRUNE, prune_rule=P.prune_rule, stemmers={"si": stemmer},
                                rcsls_options=RCSLS, cache=True)
results = label(raw, "multilingual", sinhala_dictionary="wiki")
run.record("fits", fits, title="Learned maps: training pairs covered, RCSLS loss")
display(fits)

# %% [markdown]
# **How much the old Sinhala list inflated P@1.** The same model and settings, En->Si and
# Si->En, with the old candidate list (the dictionaries' Sinhala words, test split included) in
# place of fastText's Sinhala vocabulary; positive `inflation` means the old list flattered the
# model.

# %%
raw_old, _ = evaluate_directions([d for d in directions if "si" in d], {**vectors, "si": old_si}, bli_dictionary,
                                 methods=["none"], prune_langs=PRUNE, prune_rule=P.prune_rule, cache=True,
                                 progress=False)
inflation = run.record("sinhala_list_inflation",
                       sinhala_list_inflation(label(raw_old, "multilingual"), results),
                       title="P@1 with the old Sinhala list (dictionary words) and the paper's (fastText)")
inflation.round(1)

# %% [markdown]
# Readers with fastText `.vec` files get the paper's aligned-monolingual rows (the same maps
# learned between fastText spaces) by passing `vec_pattern`; this run has none.

# %%
static = None
if P.vec_pattern:
    vec = {lang: read_vec(P.vec_pattern.format(lang=lang), max_words=P.n_vocab) for lang in ["en"] + LANGS}
    raw_static, _ = evaluate_directions(directions, vec, bli_dictionary, methods=MAPS, prune_langs=PRUNE,
                                        prune_rule=P.prune_rule, stemmers={"si": stemmer}, rcsls_options=RCSLS,
                                        cache=True)
    static = label(raw_static, "static", sinhala_dictionary="wiki")
    results = pd.concat([results, static], ignore_index=True)
print("static fastText rows:", "run" if static is not None else "not run (no .vec files here)")

# %% [markdown]
# ## Table 1: multilingual models on En<->Es, Zh, Tr
#
# The paper compared four multilingual models (word fed alone, P@1/5/10, NN and CSLS; Chinese
# vocabulary pruned) and chose LaBSE for the rest of the study. We have one model: its rows are
# compared with the paper's LaBSE rows (`our_model` names the model that produced `ours`). The
# other models' rows are the paper's only, unless the `paper` profile runs them.

# %%
t1_parts = []
for name, paper_name in P.table1_models.items():
    if name == P.model:
        res = results
    else:  # another multilingual model (paper profile): its own vectors for Table 1's languages
        other = WordEncoder(name, P.backend, int(P.layer), P.pooling, P.autocast)
        vec_other = other.encode_lists({lang: vocab[lang] for lang in ["en"] + T1_LANGS})
        t1_dirs = [pair for x in T1_LANGS for pair in (("en", x), (x, "en"))]
        res_other, _ = evaluate_directions(t1_dirs, vec_other, bli_dictionary, methods=["none"], prune_langs=PRUNE,
                                           prune_rule=P.prune_rule, progress=False, cache=True)
        res = label(res_other, "multilingual")
    t1_parts.append(table1(res, paper_name, T1_LANGS, pruned_langs=PRUNE).assign(our_model=name))
t1 = pd.concat(t1_parts, ignore_index=True)
cmp1 = run.compare("table1", t1, ["model", "lang", "direction", "retrieval", "k"],
                   title="Table 1: word translation precision of multilingual models",
                   note=f"ours: {', '.join(P.table1_models)}; compared with the paper's rows "
                        f"{', '.join(P.table1_models.values())}").astype({"k": int})
display(view(cmp1, ["lang", "direction", "retrieval", "k"], ["model"]))
cmp1[cmp1["ours"].notna()].round(1)

# %% [markdown]
# ## Table 2: P@1 of every method on the ten language pairs
#
# Unpruned vocabularies, as in the paper. The `multilingual model` rows compare our model
# (e5-small in the default profile) with LaBSE; the `multilingual model + <map>` rows are our
# combined rows (a map learned on the model's word vectors), which the paper has no counterpart
# for except its C2 (on LaBSE). The fastText rows (Procrustes, RCSLS, VecMap) and C1/C2 are the
# paper's. For En-Si and Si-En the wiki dictionaries are used (the paper's LaBSE numbers for
# these pairs are the wiki ones).

# %%
t2 = table2(results)
cmp2 = run.compare("table2", t2, ["method", "retrieval", "pair"], title="Table 2: top-1 BLI accuracy",
                   note=f"multilingual model: {P.model} here, LaBSE in the paper; fastText, C1 and C2 rows not run "
                        "here (no fastText vectors offline; C1/C2 not implemented)")
view(cmp2, ["pair", "method"], ["retrieval"])

# %% [markdown]
# **Coverage and identical strings.** Coverage is the percentage of a test dictionary's source
# words with a vector and a gold translation among the candidates; the paper's fastText
# vocabularies of 200,000 words cover nearly all MUSE test words, our shorter lists fewer, so
# our P@1 is measured on an easier, more frequent subset. A second effect flatters a
# multilingual model: when a gold translation is the source string itself (names, numbers,
# loanwords: `identical`), the model maps both to nearly the same vector and the hit is
# almost free. The table gives their share of the covered queries and P@1 without them; read
# the model's P@1 against the fastText rows of the paper with both in mind.

# %%
identical = run.record("identical_strings", identical_strings(results),
                       title="Identical-string queries and P@1 without them (multilingual model, unpruned)")
identical.round(1)

# %% [markdown]
# ## Table 3, Fig. 1 and Table 5: vocabulary pruning
#
# Multilingual models put all their languages in one space, so the candidate list of, say,
# Chinese can return an English token that is (almost) the source word itself. Pruning removes
# such candidates. The paper says it "simply eliminate[s] the characters in the ASCII range";
# the authors' code (`not_ASCII` in `contrastive_bli_content/C1/evaluate_c1.py`, the reading
# followed here) drops a word only when *all* its characters are below U+0100, so a mixed token
# such as "3月" survives and "café" does not: `prune_rule="ascii"`, used by the `paper`
# profile. Our own rule, `prune_rule="script"`, keeps a word only when every character belongs
# to one of the language's Unicode scripts (Script_Extensions; combining marks and zero-width
# joiners allowed); it is stricter and is not the authors'. The rule used in this run is named
# at the top; the vocabulary table shows how much each rule keeps.

# %%
pruned_pairs = [f"en-{x}" for x in LANGS if x in PRUNE]
t3 = table3(results, pruned_pairs)
cmp3 = run.compare("table3", t3, ["method", "retrieval", "pair", "pruned"],
                   title="Table 3: effect of vocabulary pruning on P@1",
                   note=f"multilingual model: {P.model} here, LaBSE in the paper; pruning rule: "
                        f"{RULE_LABELS[P.prune_rule]}")
view(cmp3, ["pair", "method"], ["retrieval", "pruned"])

# %%
paper_t3 = paper_table("wickramasinghe", "table3")
fig = plot_pruning(paper_t3[paper_t3["pair"].isin(pruned_pairs)], "Fig. 1 (paper): effect of vocabulary pruning")
plt.show()
fig = plot_pruning(t3, f"Fig. 1 (ours, {P.model}): effect of vocabulary pruning")
plt.show()
run.figure("Fig. 1", t3, title="Fig. 1: P@1 with and without pruning")

# %% [markdown]
# Table 5 is the relative improvement of the multilingual model's P@1 from pruning,
# 100 (pruned - unpruned) / unpruned.

# %%
t5 = table5(t3)
run.compare("table5", t5, ["pair", "retrieval"], title="Table 5: P@1 improvement from pruning (%)",
            status=None if P.model.endswith("LaBSE") else "partly",  # another model's improvements
            note=f"{P.model} here, LaBSE in the paper; the improvement depends on how many foreign-script tokens "
                 "the candidate vocabulary holds (wordfreq lists here, fastText vocabularies in the paper)")

# %% [markdown]
# ## Table 4, Fig. 2 and Table 6: stem-based BLI for Sinhala
#
# Sinhala is highly inflected, so a retrieved word can be a correct translation in another
# inflected form. Algorithm 1 counts a source word as correct if the gold word is among the top
# k; otherwise if the gold word or its stem is in the set of the top-k words and their stems.
# The Sinhala stemmer is `sinling`'s corpus-based word splitter (the base of
# `word_splitter.split(word)`), the one the paper's released evaluation code calls; our
# implementation computes the same splits from sinling's data in one batched pass. Soft matching
# applies to En->Si only (English is not highly inflected). The paper reports RCSLS (fastText)
# and LaBSE; here the multilingual model and RCSLS learned on its vectors, for the wiki and the
# common-crawl (cc) dictionaries, with the pruned Sinhala vocabulary where pruning is on.

# %%
si_dirs = [d for d in (("en", "si"), ("si", "en")) if "si" in LANGS]
raw_cc, fits_cc = evaluate_directions(si_dirs, vectors, partial(bli_dictionary, sinhala_variant="cc"),
                                      methods=["none"] + [m for m in MAPS if m == "rcsls"], prune_langs=PRUNE,
                                      prune_rule=P.prune_rule, stemmers={"si": stemmer}, rcsls_options=RCSLS,
                                      progress=False, cache=True)
si_results = pd.concat([results, label(raw_cc, "multilingual", sinhala_dictionary="cc")], ignore_index=True)
if P.vec_pattern_cc:
    vec_cc = {lang: read_vec(P.vec_pattern_cc.format(lang=lang), max_words=P.n_vocab) for lang in ("en", "si")}
    raw_cc_static, _ = evaluate_directions(si_dirs, vec_cc, partial(bli_dictionary, sinhala_variant="cc"),
                                           methods=["rcsls"], prune_langs=PRUNE, prune_rule=P.prune_rule,
                                           stemmers={"si": stemmer}, rcsls_options=RCSLS, progress=False,
                                           cache=True)
    si_results = pd.concat([si_results, label(raw_cc_static, "static", sinhala_dictionary="cc")],
                           ignore_index=True)
t4 = table4(si_results[si_results["method"].isin([MULTILINGUAL, f"{MULTILINGUAL} + RCSLS", "RCSLS"])])
cmp4 = run.compare("table4", t4, ["method", "retrieval", "soft", "dictionary", "direction", "k"],
                   title="Table 4: impact of Sinhala inflection (stem-based BLI)",
                   note=f"multilingual model: {P.model} here, LaBSE in the paper; the paper's RCSLS rows map "
                        "fastText vectors (not run here); ours add RCSLS learned on our model's word vectors"
                   ).astype({"k": int})
view(cmp4, ["dictionary", "direction", "method", "retrieval", "soft"], ["k"])

# %%
fig = plot_inflection(paper_table("wickramasinghe", "table4"), "Fig. 2 (paper): impact of inflection, En->Si")
plt.show()
fig = plot_inflection(t4, f"Fig. 2 (ours, {P.model}): impact of inflection, En->Si")
plt.show()
run.figure("Fig. 2", t4, title="Fig. 2: exact vs stem-based BLI, En->Si")

# %% [markdown]
# Table 6 is the relative En->Si improvement of stem-based over exact matching,
# 100 (soft - exact) / exact.

# %%
t6 = table6(t4)
run.compare("table6", t6, ["method", "retrieval", "dictionary", "k"],
            title="Table 6: En->Si improvement from stem-based BLI (%)",
            note=f"{P.model} here, LaBSE in the paper; the paper's RCSLS rows map fastText vectors (not run here)"
            ).astype({"k": int}).sort_values(["method", "retrieval", "dictionary", "k"])

# %% [markdown]
# ## What this run shows
#
# The numbers above come from a different multilingual model (a small e5 instead of LaBSE),
# shorter candidate vocabularies and no fastText baselines, so they test the paper's *claims*
# rather than its figures. This run's evidence, computed from the tables above:

# %%
display(Markdown(findings(t2, t3, t6, P.model, inflation=inflation, identical=identical)))

# %% [markdown]
# How to read this against the paper: the gain from pruning depends on how many tokens of other
# scripts the candidate list holds (see the vocabulary table at the top: our wordfreq lists hold
# a few percent, fastText's vocabularies, Sinhala included, many more), so smaller gains here do
# not contradict the paper's point that
# BLI on an unpruned multilingual vocabulary under-reports alignment. The stem-based gain is an
# upper bound as much as a correction: the corpus-based Sinhala splitter is aggressive and can
# give unrelated words the same stem, which Algorithm 1 then counts as a match.

# %%
run.notes.append(f"model {encoder.describe()}; {P.n_vocab} wordfreq words per language, fastText's for Sinhala "
                 f"(paper: 200k fastText words); pruning: {RULE_LABELS[P.prune_rule]}; X->En source side pruned; "
                 f"fastText and C1/C2 rows not run here")
run.save()
