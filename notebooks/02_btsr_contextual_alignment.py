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
# # Aligning contextual embeddings, and the BTSR task (Liu et al. 2020)
#
# Liu, McCarthy, Vulić and Korhonen (CoNLL 2019 / 2020) map pre-trained contextual
# embeddings of two languages into one space with an orthogonal (Procrustes) map and
# compare *what* to align (words in context, `token`; a word's average over its
# contexts, `avg_type`; the word fed alone, `iso_type`) and *with what signal*
# (word alignments of parallel text, `wa`; parallel sentences, `sa`; a 5k
# dictionary, `dict`), with and without the Meeting-in-the-Middle post-step
# (`mim`). They introduce **Bilingual Token-level Sense Retrieval (BTSR)**: given an
# English word in a sentence, find, among thousands of target-language words each
# in its own sentence, the word with the same meaning, where the two sentences are
# *not* translations of each other. Their claims: `avg_type` alignment is the most
# robust, MIM helps it, a 5k dictionary is about as good as parallel text, BTSR is
# harder than sentence retrieval, and the alignment also improves the English space
# (SCWS).
#
# **What this chapter runs, and what differs.**
#
# - *Model.* The paper aligns BERT-base models: independently trained monolingual
#   BERTs (`mono_en -> mono_zh`) and multilingual BERT (`multi_en -> multi_zh`,
#   `multi_en -> multi_es`, and `mono_en -> multi_es`). Offline we have one
#   multilingual encoder, `multilingual-e5-small` (12 layers, 384 dimensions, a
#   contrastively trained sentence encoder), so our rows are `multi -> multi`. The
#   `paper` profile runs all four variants with the hub models for readers with a
#   network.
# - *Test data.* The published BTSR set cannot be obtained here. We **rebuild a
#   BTSR-style set with the paper's recipe** (WordNet senses, Open Multilingual
#   Wordnet translations, sense clusters, contexts from word-aligned parallel text,
#   source and target contexts from different sentence pairs). It is *not* the
#   paper's test set: no human checked our pairs, the parallel text is XNLI and
#   Tatoeba rather than UMCorpus / WMT13, and there are far fewer candidates.
# - *Training data.* The paper trains on 100 to 200k sentence pairs of UMCorpus
#   (EN-ZH) and WMT13 (EN-ES); we have a few thousand pairs per language (XNLI and
#   Tatoeba; WMT21 news for EN-ZH in the `paper` profile), so the curves stop early.
# - *Word alignment.* fast_align, as the paper (symmetrised with grow-diag-final-and),
#   written for this book from Dyer et al. (2013): it draws nothing at random, so a
#   cold rerun rebuilds the same BTSR set. `aligner = "eflomal"` runs the sampler the
#   book used before; it cannot be seeded, and a cold run moved Table 3 by up to 5 points.
#
# Licenses, next to first use: XNLI CC BY-NC 4.0; Tatoeba CC BY 2.0 FR; WMT
# newstest2021 research use; MUSE dictionaries CC BY-NC 4.0; WordNet 3.0 license
# (BSD-like); Chinese Open Wordnet (permissive COW licence) and the Spanish MCR
# wordnet (CC BY 3.0) via the Open Multilingual Wordnet; BCWS and SCWS carry no
# explicit license (research use).

# %% tags=["parameters"]
profile = "default"  # smoke | default | paper
variants = None  # model pairs, e.g. multi_en->multi_zh,multi_en->multi_es (paper: also mono_en->mono_zh, mono_en->multi_es)
multi_model = None  # the multilingual encoder (multi_*)
mono_en_model = None  # English monolingual encoder (mono_en; paper profile only)
mono_zh_model = None  # Chinese monolingual encoder (mono_zh; paper profile only)
layers = None  # all: average of Transformer layers 1..L (paper, footnote 1); or one layer 8, or a list 6,7,8
sources = None  # parallel corpora pooled per language pair: xnli, wmt21, tatoeba, europarl
max_per_source = None  # keep the first N sentence pairs of each corpus (None: all; XNLI has 10k)
sizes = None  # training sizes (parallel sentence pairs); all: every training pair available
signals = None  # training signals for the curves: wa, sa (dict is always added once)
n_test = None  # cap on the BTSR test pairs (None: every selected pair)
top = None  # BTSR selection: pairs with a word among the `top` most frequent / most ambiguous (0: all)
n_candidates = None  # BTSR candidate words (20k as the paper's figure; 200k where text allows)
query = None  # query words: first_lemma (one per WordNet synset) or all lemmas
n_retrieval = None  # sentence-retrieval test pairs (the Tatoeba pairs, held out from training)
bcws_pairs = None  # BCWS items evaluated (None: all 2091)
scws_pairs = None  # SCWS pairs evaluated (None: all 2003)
max_contexts = None  # avg_type: contexts averaged per word (paper: 1000)
seed = None  # one seed for the set construction, splits and samples
aligner = None  # word aligner: fast_align (deterministic, the paper's) or eflomal (unseeded variant)
autocast = None  # bfloat16 for a faster, slightly different CPU run; None: exact fp32

# %%
import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import Markdown, display

from xalign.book.results import ChapterRun
from xalign.core.profiles import as_list
from xalign.data import corpora, datasets, wordsim
from xalign.papers.liu2020 import audit, report
from xalign.papers.liu2020.evaluate import build_spaces, training_sizes
from xalign.papers.liu2020.grid import (
    btsr_sample,
    context_pair_vectors,
    default_methods,
    evaluate_grid,
    load_variant_encoders,
    parse_variant,
)
from xalign.papers.liu2020.pairdata import prepare_pair
from xalign.papers.liu2020.spaces import resolve_layers
from xalign.papers.meta import parameters

P = parameters("liu2020", profile, globals())  # the profile's values; -p overrides win
VARIANTS = as_list(P.variants)
SIZES = [s if s == "all" else int(s) for s in as_list(P.sizes)]
METHODS = default_methods(tuple(as_list(P.signals))) + [("avg_type", "dict"), ("iso_type", "dict")]
run = ChapterRun("02_btsr_contextual_alignment", "liu2020", profile, vars(P))
P

# %% [markdown]
# ## Models
#
# Each variant names the encoder of each side: `multi` is the multilingual model,
# `mono_en` / `mono_zh` the monolingual ones. A word's vector is the average of the
# Transformer layers (1..12; the embedding layer 0 is left out), then of its
# sub-words, as in the paper's footnote 1 (`layers` changes this).

# %%
models = {"multi": P.multi_model, "mono_en": P.mono_en_model, "mono_zh": P.mono_zh_model}
encoders = load_variant_encoders(VARIANTS, models, autocast=P.autocast)
run.use_encoder(encoders[parse_variant(VARIANTS[0])[0]])
run.notes.append("encoders: " + ", ".join(f"{k}={e.name} ({e.revision})" for k, e in encoders.items()))
pd.DataFrame([{"model key": k, "model": e.name, "revision": e.revision, "layers": e.n_layers, "dim": e.dim,
               "averaged layers": str(resolve_layers(e, P.layers))} for k, e in encoders.items()])

# %% [markdown]
# ## Building the BTSR test set
#
# **Parallel text.** For each language pair the parallel corpora are pooled and
# de-duplicated so that no English and no target sentence occurs twice (XNLI
# repeats each premise for three hypotheses). Words are `\w+` runs, lower-cased;
# Chinese is segmented by forward maximum matching against the Chinese Open
# Wordnet's lemmas and the MUSE dictionary's words (made Simplified). The word
# aligner (`aligner`, fast_align by default) aligns the whole pool.
#
# **Translation pairs.** Query words are English WordNet lemmas, one per synset (its
# first, most frequent lemma); each query word's senses are translated through the
# Open Multilingual Wordnet, and senses sharing a translation are collapsed into one
# sense cluster. The paper's example (Sec. 4): "uniform" has five WordNet senses
# which are translated into four distinct Chinese words: 制服 (the clothes worn by a
# particular group), 一致 (the translation of two senses: consistent and
# undifferentiated), 不變 (unchanged) and 相同 (the same). Each (word, translation)
# is a pair.
#
# **Contexts.** A pair is kept when the two words are aligned in at least two sentence
# pairs; the English context is drawn from one of them and the target context from
# another, so the two contexts are never translations of each other (the builder
# checks this for every pair and fails otherwise).
#
# **Selection.** The paper annotated pairs whose source or target word is among the
# 250 most frequent or the 250 most ambiguous words *of its language* and kept those
# both annotators accepted. We rank every word of the pooled parallel text by its
# frequency there (the paper does not name its frequency corpus; Wikipedia or its 1M
# context sentences are likely) and every word of the wordnet lexicon by its number
# of sense clusters; we have no annotators, so some of our pairs are wrong (aligner
# errors, or a different sense of the word in the chosen context).
#
# **Candidates.** As the paper's "Target Candidates": the target words of *all*
# contextualised pairs, each in its context (selected or not; so a Chinese word that
# translates several English words appears once per sense those words give it: the
# *same-form distractors* that make this a sense task), plus distinct words no pair
# uses, each in one random sentence, up to `n_candidates` (the paper draws these from
# Wikipedia, we from the other sentences of the pool). No candidate but a gold comes
# from a sentence pair a test pair uses. Ties in cosine (every occurrence of a word
# has the same type-level vector) are broken at random, in expectation. The paper's
# BTSR repository is not in the code store we can read, so we follow its text.

# %%
LANGS = list(dict.fromkeys(parse_variant(v)[3] for v in VARIANTS))
pair_data = {}
for lang in LANGS:
    corpus = corpora.load_parallel("en", lang, as_list(P.sources), P.max_per_source)
    pair_data[lang] = prepare_pair(corpus, seed=P.seed, top=P.top, n_test=P.n_test,
                                      n_candidates=P.n_candidates, query=P.query, n_retrieval=P.n_retrieval,
                                      aligner=P.aligner)
btsr_stats = report.btsr_stats_table(pair_data)
run.record("btsr_set", btsr_stats, title="Rebuilt BTSR set: sizes",
           note="BTSR-style set rebuilt with the paper's recipe from WordNet/OMW and XNLI/Tatoeba(/WMT21); "
                "not the paper's human-checked test set")
btsr_stats.T

# %% [markdown]
# The table gives the size of the set we built: translation pairs from the wordnets,
# how many could be put in two different aligned contexts, how many the selection
# keeps (the paper: 1,181 EN-ZH and 994 EN-ES checked pairs from 14,604 and 9,623
# contextualised ones, out of 1M sentence pairs), how many candidates the text allows
# (`contextualized_candidates` from the pairs, `filler_words_available` other words:
# the paper used 20k and 200k candidates; our text does not reach 20k), and how many
# candidates share their form with a test pair's gold (`same_form_distractors`). A
# sample of the pairs:

# %%
for lang, d in pair_data.items():
    display(Markdown(f"**en-{lang}** (random sample of test pairs)"))
    display(btsr_sample(d, n=8, seed=P.seed))

# %% [markdown]
# ## Anchors and alignments
#
# Every sentence of the pool is encoded once, with the spans of all its words, which
# gives every word's vector in context. From these:
#
# - `token` anchors: the vectors of words linked by the aligner, in their sentence
#   pair (a contextual dictionary of every aligned token);
# - `avg_type` vectors: a word's mean over up to 1000 random contexts of the training
#   text (paper footnote 3), never a test sentence: the BTSR baselines and the `[type]`
#   evaluations use these too (a word absent from training gets no vector, a zero);
#   `iso_type` vectors: the word fed to the model alone;
# - signal `wa`: type-level anchors are the distinct aligned word pairs; `sa`: each
#   parallel sentence pair is one anchor, the sentence being the average of its
#   words' vectors (token-level or type-level); `dict`: the MUSE 0-5000 training
#   dictionary (Chinese side converted to Simplified).
#
# The map is orthogonal Procrustes on L2-normalised, mean-centred anchors (Eqs. 1-2),
# optionally followed by MIM (Eq. 3): least-squares maps of both spaces onto the
# middle of each mapped anchor pair. Training pairs never include a sentence pair used
# by a BTSR test pair or by the sentence-retrieval test set (the Tatoeba pairs).

# %%
spaces = {}
for v in VARIANTS:
    ks, _, kt, lang = parse_variant(v)
    spaces[v] = build_spaces(encoders[ks], encoders[kt], pair_data[lang], P.layers, P.max_contexts,
                                seed=P.seed)
pd.DataFrame([{"variant": v, "encoded words (en)": len(s.src.vectors), "encoded words (target)": len(s.tgt.vectors),
               "avg_type words (en / target)": f"{len(s.avg_src.words)} / {len(s.avg_tgt.words)}",
               "iso_type words (en / target)": f"{len(s.iso_src.words)} / {len(s.iso_tgt.words)}"}
              for v, s in spaces.items()])

# %% [markdown]
# ## Evaluation sets: BCWS and SCWS
#
# BCWS (EN-ZH, 2091 items; the Chinese side is in Traditional characters) and SCWS
# (English, 2003 pairs) give two words in two sentences and a human similarity
# rating; the score is Spearman's rho between the cosine of the two word vectors and
# the ratings. In BCWS the English word is mapped with the source map and the Chinese
# word with the target map; in SCWS both English words take the source map, so the
# score tells how the alignment changes the English space.

# %%
bcws_data = wordsim.sample(wordsim.read_bcws(datasets.fetch("bcws", "bcws.txt")), P.bcws_pairs, P.seed)
scws_data = wordsim.sample(wordsim.read_scws(datasets.fetch("scws", "scws.txt")), P.scws_pairs, P.seed)
bcws, scws = {}, {}
for v in VARIANTS:
    ks, _, kt, lang = parse_variant(v)
    if lang == "zh":
        bcws[v] = context_pair_vectors(encoders[ks], encoders[kt], bcws_data, P.layers, b_side="tgt")
    scws[v] = context_pair_vectors(encoders[ks], encoders[ks], scws_data, P.layers, b_side="src")
print(f"BCWS items: {len(bcws_data)}, SCWS pairs: {len(scws_data)}")

# %% [markdown]
# ## Every method at every training size
#
# For each variant, each training size, each (level, signal) and with or without
# MIM, we fit the alignment and score BTSR (P@1, P@5 by cosine over all
# candidates), sentence retrieval (P@5 over the held-out Tatoeba pairs, sentences as
# the average of their token vectors `[token]`, or of their avg_type vectors
# `[type]`), BCWS and SCWS. `dict` alignments do not depend on the size (`n = 0`).

# %%
frames = []
for v in VARIANTS:
    sizes_v = training_sizes(SIZES, len(spaces[v].data.train))
    frames.append(evaluate_grid(spaces[v], sizes_v, METHODS, bcws=bcws.get(v), scws=scws[v]).assign(variant=v))
grid = pd.concat(frames, ignore_index=True)
grid["method"] = grid["level"] + " " + grid["signal"] + " " + grid["technique"]
largest = report.largest_sizes(grid)
original = report.original_table(spaces, bcws, scws, largest)
run.record("grid", grid, title="All methods x training sizes (BTSR, sentence retrieval, BCWS, SCWS)")
run.record("original_space", original, title="Scores without any mapping (the multilingual space itself), "
                                              "raw and normalised-and-centred")
original

# %% [markdown]
# The last table is the *unaligned* multilingual space: with one multilingual model
# both languages already share a space, so this is the bar every alignment has to
# clear. Every map first L2-normalises and mean-centres each side on its anchors, and
# centring alone moves the scores; so the unmapped space is shown both raw
# (`centred = False`) and with the same normalise-and-centre step (`centred = True`,
# means of the `token wa` anchors of the largest training set). "Alignment adds N
# points" is measured against the centred row, which isolates the map.
#
# ## Table 3: BTSR with the largest training set
#
# The paper's Table 3 reports P@5 with 200k candidates after training on 200k
# parallel sentences. Ours: the largest training set we have (a few thousand
# sentence pairs) and as many candidates as our text allows (see the set's size
# above). The `mono` rows need the monolingual hub models (`paper` profile). Expect
# large differences: a different model (e5-small, a sentence encoder, not
# mBERT), another test set (automatic, not human-checked, and far fewer candidates,
# which makes retrieval easier), and 50 times less training text.

# %%
best, ours3 = report.table3_ours(grid, largest)
cmp3 = run.compare("table3", ours3, ["variant", "level", "signal", "technique"],
                   title="Table 3: BTSR P@5 (%), largest training set",
                   note=f"multi->multi rows only (e5-small); rebuilt BTSR set, candidates "
                        f"{', '.join(f'en-{k}: {len(d.btsr.candidates)}' for k, d in pair_data.items())} "
                        f"(paper 200k); training sentence pairs "
                        f"{', '.join(f'{v}: {int(n)}' for v, n in largest.items())} (paper 200k)")
display(cmp3)
display(ours3.pivot_table(index=["variant", "technique"], columns=["level", "signal"], values="value").round(2))
display(Markdown("P@1 (%) of the same alignments:"))
best.assign(p1=100 * best.btsr_p1).pivot_table(index=["variant", "technique"], columns=["level", "signal"],
                                               values="p1").round(2)

# %% [markdown]
# ## BTSR baselines
#
# The paper's four baselines ask whether BTSR can be solved without representing the
# word in its context: the word alone (`BL(word)`, its avg_type vector; a fastText
# baseline too, which needs static vectors we do not have), the context alone
# (`BL(context)`, the average of the other words of the sentence, token- or
# type-level), and the average of word and context. Each is mapped with the
# orthogonal alignment of its level, trained on the largest training set. Type
# vectors come from the training text only; same-form candidates share one type
# vector, so `BL(word)` can only guess among them (ties count at random).

# %%
base = report.baselines_table(spaces, largest, original)
run.record("baselines", base, title="BTSR baselines (P@1, P@5)")
run.not_run("baseline_fasttext", "BL(word) fastText baseline",
            "needs fastText vectors trained on Wikipedia for en/zh/es; none can be downloaded here")
base.pivot_table(index="baseline", columns="variant", values=["btsr_p1", "btsr_p5"]).mul(100).round(2)

# %% [markdown]
# ## Figure 3: BTSR against the number of parallel sentences
#
# P@5 as the training text grows, for every level and signal (solid: plain
# orthogonal map; the dictionary-trained maps as horizontal lines). The paper gives
# two numbers of its Figure 3 in the text (EN-ES, `avg_type wa orig`, 100 parallel
# sentences), compared below.

# %%
report.curve_plot(grid, "btsr_p5", "BTSR P@5 (%)", VARIANTS, extra=report.unmapped(original)["btsr_p5"].to_dict())
plt.show()
run.figure("Fig. 3", grid.assign(value=100 * grid.btsr_p5)[["variant", "method", "n", "value"]], title="Fig. 3: BTSR P@5 (%)")

# %%
pts = grid[(grid.method == "avg_type wa orig") & (grid.n == 100)]
ours_f3 = pts.assign(value=100 * pts.btsr_p5, n=100)[["variant", "method", "n", "value"]]
display(run.compare("fig3_points", ours_f3, ["variant", "method", "n"],
                    title="Figure 3 (numbers given in the text): BTSR P@5 (%), 100 parallel sentences",
                    note="paper: 20k candidates, mBERT/BERT; ours: e5-small, rebuilt set"))

# %% [markdown]
# ## Figure 1: BCWS against the number of parallel sentences
#
# Spearman's rho (x100) between cosine and the BCWS ratings (EN-ZH only). The paper
# draws these curves for mBERT and monolingual BERTs and reports that every method
# beats the previous state of the art once it has 5k parallel sentences, and that
# `avg_type` leads; its figure gives no numbers in the text, so we only redraw.

# %%
zh_variants = [v for v in VARIANTS if v in bcws]
if zh_variants:
    report.curve_plot(grid, "bcws", "BCWS Spearman rho (x100)", zh_variants,
                      extra=report.unmapped(original)["bcws"].to_dict())
    plt.show()
    run.figure("Fig. 1", grid.assign(value=100 * grid.bcws)[["variant", "method", "n", "value"]], title="Fig. 1: BCWS rho (x100)")
else:
    run.not_run("Fig. 1", "Figure 1: BCWS", "no EN-ZH variant in this run")

# %% [markdown]
# ## Figure 2: sentence retrieval against the number of parallel sentences
#
# P@5 of finding each held-out English sentence's translation among all held-out
# target sentences (the Tatoeba pairs; the paper used the UMCorpus and WMT13 test
# sets). Lines: sentences averaged from token vectors (`[token]`); the type-level
# methods are also evaluated with sentences averaged from avg_type vectors
# (`[type]`, dashed).

# %%
report.retrieval_plot(grid, original, VARIANTS)
plt.show()
sr = report.retrieval_series(grid)
run.figure("Fig. 2", sr.assign(value=100 * sr.sr)[["variant", "level", "signal", "technique", "n", "value"]],
           title="Fig. 2: P@5 (%)")

# %% [markdown]
# ## Table 4: SCWS, the English space before and after alignment
#
# Spearman's rho (x100) on SCWS for the English side, unaligned (`original`) and
# after the MIM alignments learnt from the largest training set (the paper: 200k
# sentences). An orthogonal map alone would not change English cosines except
# through the mean-centring; MIM's linear map does. `original` is the raw space, as
# in the paper; `original (centred)` adds the maps' normalise-and-centre step, which
# is the fair reference for what the map itself changes.

# %%
ours4 = report.table4_ours(grid, original, largest)
cmp4 = run.compare("table4", ours4, ["variant", "setting"], title="Table 4: SCWS Spearman rho (x100)",
                   note=f"{len(scws_data)} of 2003 SCWS pairs; e5-small multi rows only; alignments from "
                        f"{', '.join(f'{v}: {int(n)}' for v, n in largest.items())} sentence pairs (paper 200k)")
display(cmp4)
ours4.pivot_table(index="variant", columns="setting", values="value").round(2)

# %% [markdown]
# ## What changed in this version, and why
#
# An audit of this chapter against the paper found four set-ups that flattered the
# model or strayed from the paper's recipe; each is fixed above. The table below
# recomputes, in this run, each changed quantity both ways with everything else held
# equal (same encoder pass, training pairs and test pairs; maps from the largest
# training set): `before` is the first version's choice, `after` this version's.
# The first version's own end-to-end numbers (its test pairs and candidates differ)
# are in the closing note of the change, not recomputed here.
#
# - **Candidates (5).** The first version left every occurrence of every test target
#   word out of the fillers, so the only same-form distractors were other test pairs,
#   and a word-level representation could solve most of the "sense" task. The paper
#   puts the targets of *all* contextualised pairs in the space.
# - **Ties (5).** Type-level vectors give all occurrences of a word one vector; a
#   top-k that lists the gold first among equal scores credits a method that cannot
#   tell senses apart. Ties now count at random, in expectation.
# - **Type vectors (6).** `BL(word)` and the `[type]` evaluations used avg_type
#   vectors averaged over the whole pool, test sentences included: a gold target's
#   type vector could be half its own test context. They now come from training text.
# - **No mapping (7).** Every map normalises and centres; the unmapped space did not.
# - **Selection (8).** Words were ranked by frequency among the test items' own words,
#   which keeps most pairs; the paper ranks words in its language.

# %%
ba = pd.concat([audit.before_after(spaces[v], int(largest[v]), max_contexts=P.max_contexts, seed=P.seed)
                .assign(variant=v) for v in VARIANTS], ignore_index=True)
run.record("before_after", ba, title="Audit: each change's effect, before vs after, computed in this run")
display(Markdown(report.change_paragraph(ba)))
ba.pivot_table(index=["change", "measure"], columns="variant", values=["before", "after"], sort=False).round(1)

# %% [markdown]
# ## Known-answer checks
#
# Checks whose answer is known in advance, on this run's own vectors: a candidate
# retrieves itself, Procrustes from a space to itself is the identity, each gold is
# its pair's target word, and the centred unmapped space equals the target side of a
# plain map (which applies no matrix there). The run stops if one fails.

# %%
checks = pd.concat([audit.known_answers(spaces[v]).assign(variant=v) for v in VARIANTS], ignore_index=True)
run.record("known_answers", checks, title="Known-answer checks on the run's vectors")
assert checks.ok.all(), checks[~checks.ok]
checks

# %% [markdown]
# ## What the numbers say
#
# The summary below is computed from this run's tables.

# %%
display(Markdown(report.summary_markdown(grid, original, base, largest, VARIANTS)))

# %% [markdown]
# How to read these against the paper:
#
# - **Levels are not comparable.** Our P@k sits far above the paper's 15-35: far
#   fewer candidates (thousands, not 200k), an automatically built set biased to
#   frequent words, and a different model (e5-small, a sentence encoder, not mBERT).
#   Table 3's differences say that, not that e5-small is better than BERT.
# - **What to compare.** The ordering of methods at one size (the paper: `avg_type`
#   at or near the top and helped by MIM; `dict` as good as parallel text; `sa` poor
#   with little data; `iso_type` weakest), the summary's gap between the best map and
#   the *centred* unmapped space (what the map adds), and the gap between the best
#   contextual method and `BL(word)` (what context adds: with same-form distractors
#   in the candidate space a word-only representation can no longer resolve senses).
#   The context-only baselines stay low, which shows the non-parallel contexts work
#   as intended: the target sentence cannot be found from the context.
# - The paper's `mono -> mono` rows, where the map is the only thing that brings two
#   languages together, need the hub models (`xalign run 02 --profile paper`, with a
#   network and preferably a GPU).

# %%
run.save()
