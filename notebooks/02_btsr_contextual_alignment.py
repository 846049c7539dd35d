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
# - *Word alignment.* fast_align is not installable here; eflomal (same IBM-model
#   family, symmetrised with grow-diag-final-and) replaces it.
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
autocast = None  # bfloat16 for a faster, slightly different CPU run; None: exact fp32

# %%
import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns
from IPython.display import Markdown, display

from xalign.book.results import ChapterRun
from xalign.core.profiles import as_list
from xalign.data import corpora, datasets, wordsim
from xalign.papers.liu2020 import ctxalign as ca
from xalign.papers.meta import parameters

P = parameters("liu2020", profile, globals())  # the profile's values; -p overrides win
VARIANTS = as_list(P.variants)
SIZES = [s if s == "all" else int(s) for s in as_list(P.sizes)]
METHODS = ca.default_methods(tuple(as_list(P.signals))) + [("avg_type", "dict"), ("iso_type", "dict")]
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
encoders = ca.load_variant_encoders(VARIANTS, models, autocast=P.autocast)
run.use_encoder(encoders[ca.parse_variant(VARIANTS[0])[0]])
run.notes.append("encoders: " + ", ".join(f"{k}={e.name} ({e.revision})" for k, e in encoders.items()))
pd.DataFrame([{"model key": k, "model": e.name, "revision": e.revision, "layers": e.n_layers, "dim": e.dim,
               "averaged layers": str(ca.resolve_layers(e, P.layers))} for k, e in encoders.items()])

# %% [markdown]
# ## Building the BTSR test set
#
# **Parallel text.** For each language pair the parallel corpora are pooled and
# de-duplicated so that no English and no target sentence occurs twice (XNLI
# repeats each premise for three hypotheses). Words are `\w+` runs, lower-cased;
# Chinese is segmented by forward maximum matching against the Chinese Open
# Wordnet's lemmas and the MUSE dictionary's words (made Simplified). eflomal
# aligns the whole pool.
#
# **Translation pairs.** Query words are English WordNet lemmas, one per synset (its
# first, most frequent lemma); each query word's senses are translated through the
# Open Multilingual Wordnet, and senses sharing a translation are collapsed into one
# sense cluster (the paper's *uniform* example: 制服 for the clothes, 均匀的 for two
# adjective senses). Each (word, translation) is a pair.
#
# **Contexts.** A pair is kept when the two words are aligned in at least two sentence
# pairs; the English context is drawn from one of them and the target context from
# another, so the two contexts are never translations of each other (the builder
# checks this for every pair and fails otherwise).
#
# **Selection.** The paper annotated pairs whose source or target word is among the
# 250 most frequent or the 250 most ambiguous words and kept those both annotators
# accepted; we apply the same selection but have no annotators, so some of our pairs
# are wrong (aligner errors, or a different sense of the word in the chosen context).
#
# **Candidates.** The test pairs' target words in their contexts, plus distinct words
# of the other target-language sentences (never a test target word), each in one
# random sentence, up to `n_candidates`.

# %%
LANGS = list(dict.fromkeys(ca.parse_variant(v)[3] for v in VARIANTS))
pair_data = {}
for lang in LANGS:
    corpus = corpora.load_parallel("en", lang, as_list(P.sources), P.max_per_source)
    pair_data[lang] = ca.prepare_pair(corpus, seed=P.seed, top=P.top, n_test=P.n_test,
                                      n_candidates=P.n_candidates, query=P.query, n_retrieval=P.n_retrieval)
btsr_stats = pd.DataFrame([{"pair": f"en-{lang}", **{f"pool: {k}": v for k, v in d.corpus.counts().items()},
                            **d.btsr.stats, "training pairs": len(d.train), "retrieval test pairs": len(d.retrieval),
                            "MUSE train pairs": len(d.dictionary)} for lang, d in pair_data.items()])
run.record("btsr_set", btsr_stats, title="Rebuilt BTSR set: sizes",
           note="BTSR-style set rebuilt with the paper's recipe from WordNet/OMW and XNLI/Tatoeba(/WMT21); "
                "not the paper's human-checked test set")
btsr_stats.T

# %% [markdown]
# The table gives the size of the set we built: translation pairs from the wordnets,
# how many could be put in two different aligned contexts, how many the selection
# keeps (the paper: 1,181 EN-ZH and 994 EN-ES checked pairs from 14,604 and 9,623
# contextualised ones, out of 1M sentence pairs), and how many candidates the text
# allows (`filler_words_available`: the paper used 20k and 200k candidates drawn from
# Wikipedia; our text does not reach 20k distinct words). A sample of the pairs:

# %%
for lang, d in pair_data.items():
    display(Markdown(f"**en-{lang}** (random sample of test pairs)"))
    display(ca.btsr_sample(d, n=8, seed=P.seed))

# %% [markdown]
# ## Anchors and alignments
#
# Every sentence of the pool is encoded once, with the spans of all its words, which
# gives every word's vector in context. From these:
#
# - `token` anchors: the vectors of words linked by the aligner, in their sentence
#   pair (a contextual dictionary of every aligned token);
# - `avg_type` vectors: a word's mean over up to 1000 random contexts of the training
#   text (paper footnote 3); `iso_type` vectors: the word fed to the model alone;
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
    ks, _, kt, lang = ca.parse_variant(v)
    spaces[v] = ca.build_spaces(encoders[ks], encoders[kt], pair_data[lang], P.layers, P.max_contexts,
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
    ks, _, kt, lang = ca.parse_variant(v)
    if lang == "zh":
        bcws[v] = ca.context_pair_vectors(encoders[ks], encoders[kt], bcws_data, P.layers, b_side="tgt")
    scws[v] = ca.context_pair_vectors(encoders[ks], encoders[ks], scws_data, P.layers, b_side="src")
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
frames, original = [], []
for v in VARIANTS:
    sp = spaces[v]
    sizes_v = ca.training_sizes(SIZES, len(sp.data.train))
    frames.append(ca.evaluate_grid(sp, sizes_v, METHODS, bcws=bcws.get(v), scws=scws[v]).assign(variant=v))
    original.append({"variant": v, **ca.original_space_scores(sp, bcws.get(v), scws[v])})
grid = pd.concat(frames, ignore_index=True)
grid["method"] = grid["level"] + " " + grid["signal"] + " " + grid["technique"]
original = pd.DataFrame(original)
largest = grid[grid.signal != "dict"].groupby("variant")["n"].max()
run.record("grid", grid, title="All methods x training sizes (BTSR, sentence retrieval, BCWS, SCWS)")
run.record("original_space", original, title="Scores without any mapping (the multilingual space itself)")
original

# %% [markdown]
# The last table is the *unaligned* multilingual space: with one multilingual model
# both languages already share a space, so this is the bar every alignment has to
# clear.
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
best = grid[(grid.signal.isin(["wa", "sa"])) & (grid.n == grid.variant.map(largest))]
ours3 = best.assign(value=100 * best.btsr_p5)[["variant", "level", "signal", "technique", "value"]]
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
# orthogonal alignment of its level, trained on the largest training set.

# %%
base = []
for v in VARIANTS:
    base.append(ca.btsr_baselines(spaces[v], n=int(largest[v])).assign(variant=v))
    base.append(pd.DataFrame([{"baseline": "no mapping (original multilingual space) [token]", "mapped_with": "-",
                               "btsr_p1": original.set_index("variant").loc[v, "btsr_p1"],
                               "btsr_p5": original.set_index("variant").loc[v, "btsr_p5"], "variant": v}]))
base = pd.concat(base, ignore_index=True)
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
def curve_plot(metric, ylabel, data=grid, variants=VARIANTS, extra=None):
    """One panel per variant: metric (x100) against the training size, dict and unaligned as flat lines."""
    fig, axes = plt.subplots(1, len(variants), figsize=(6.5 * len(variants), 4.2), squeeze=False, sharey=True)
    for ax, v in zip(axes[0], variants):
        d = data[(data.variant == v) & (data.signal != "dict") & (data.technique == "orig")].dropna(subset=[metric])
        sns.lineplot(data=d.assign(y=100 * d[metric]), x="n", y="y", hue="level", style="signal", markers=True,
                     ax=ax, hue_order=list(ca.LEVELS))
        flat = data[(data.variant == v) & (data.signal == "dict") & (data.technique == "orig")]
        for (_, r), c in zip(flat.iterrows(), ["tab:orange", "tab:green"]):
            ax.axhline(100 * r[metric], ls=":", color=c, label=f"{r.level} dict orig")
        if extra is not None and v in extra:
            ax.axhline(100 * extra[v], ls="--", color="grey", label="no mapping")
        ax.set_xscale("log")
        ax.set_xlabel("parallel sentence pairs used for the alignment")
        ax.set_ylabel(ylabel)
        ax.set_title(v)
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


curve_plot("btsr_p5", "BTSR P@5 (%)", extra=original.set_index("variant")["btsr_p5"].to_dict())
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
    curve_plot("bcws", "BCWS Spearman rho (x100)", variants=zh_variants,
               extra=original.set_index("variant")["bcws"].to_dict())
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
sr = grid.melt(id_vars=["variant", "level", "signal", "technique", "n"], value_vars=["sr_token", "sr_type"],
               var_name="evaluated on", value_name="sr").dropna(subset=["sr"])
sr["evaluated on"] = sr["evaluated on"].map({"sr_token": "[token]", "sr_type": "[type]"})
sr["level"] = sr["level"] + " " + sr["evaluated on"]
fig, axes = plt.subplots(1, len(VARIANTS), figsize=(6.5 * len(VARIANTS), 4.2), squeeze=False, sharey=True)
for ax, v in zip(axes[0], VARIANTS):
    d = sr[(sr.variant == v) & (sr.signal != "dict") & (sr.technique == "orig")]
    sns.lineplot(data=d.assign(y=100 * d.sr), x="n", y="y", hue="level", style="signal", markers=True, ax=ax)
    ax.axhline(100 * original.set_index("variant").loc[v, "sr_token"], ls="--", color="grey", label="no mapping")
    ax.set_xscale("log")
    ax.set_xlabel("parallel sentence pairs used for the alignment")
    ax.set_ylabel("sentence retrieval P@5 (%)")
    ax.set_title(v)
    ax.legend(fontsize=7)
fig.tight_layout()
plt.show()
run.figure("Fig. 2", sr.assign(value=100 * sr.sr)[["variant", "level", "signal", "technique", "n", "value"]], title="Fig. 2: P@5 (%)")

# %% [markdown]
# ## Table 4: SCWS, the English space before and after alignment
#
# Spearman's rho (x100) on SCWS for the English side, unaligned (`original`) and
# after the MIM alignments learnt from the largest training set (the paper: 200k
# sentences). An orthogonal map alone would not change English cosines except
# through the mean-centring; MIM's linear map does.

# %%
t4 = grid[(grid.technique == "mim") & grid.signal.isin(["wa", "sa"]) & (grid.n == grid.variant.map(largest))]
ours4 = pd.concat([t4.assign(setting=t4.level + " " + t4.signal + " mim", value=100 * t4.scws),
                   original.assign(setting="original", value=100 * original.scws)])[["variant", "setting", "value"]]
cmp4 = run.compare("table4", ours4, ["variant", "setting"], title="Table 4: SCWS Spearman rho (x100)",
                   note=f"{len(scws_data)} of 2003 SCWS pairs; e5-small multi rows only; alignments from "
                        f"{', '.join(f'{v}: {int(n)}' for v, n in largest.items())} sentence pairs (paper 200k)")
display(cmp4)
ours4.pivot_table(index="variant", columns="setting", values="value").round(2)

# %% [markdown]
# ## What the numbers say
#
# The summary below is computed from this run's tables.

# %%
lines = []
for v in VARIANTS:
    g = grid[(grid.variant == v) & (grid.n.isin([largest[v], 0]))].set_index("method")
    top3 = g["btsr_p5"].sort_values(ascending=False).head(3)
    o = original.set_index("variant").loc[v]
    lines.append(f"- **{v}**: best BTSR P@5 {', '.join(f'`{m}` {100 * x:.1f}' for m, x in top3.items())}; "
                 f"unaligned space {100 * o.btsr_p5:.1f}. SCWS unaligned {100 * o.scws:.1f}, "
                 f"after `avg_type wa mim` {100 * g.loc['avg_type wa mim', 'scws']:.1f}.")
display(Markdown("\n".join(lines)))

# %% [markdown]
# How to read these against the paper. In our default run (e5-small; XNLI + Tatoeba;
# ~3.9k training pairs per language pair; 713 EN-ZH and 730 EN-ES test pairs against
# 5.8k and 8.3k candidates):
#
# - **Levels are not comparable.** Our P@5 is around 80-89 where the paper reports
#   15-35: far fewer candidates (thousands, not 200k), an automatically built set
#   biased to frequent words, and a different model. Table 3's differences of +50
#   to +65 points say that, not that e5-small is better than BERT.
# - **What carries over.** `avg_type` alignment with MIM is at or near the top for
#   both pairs, and MIM helps `avg_type wa` in both (EN-ZH 81.5 -> 83.0, EN-ES
#   85.3 -> 85.9; the paper's main finding); the MUSE dictionary (`dict`) is as good
#   as word-aligned parallel text, even slightly better (the paper's second
#   finding); sentence-level signals (`sa`) need more data than word alignments and
#   are poor at 100 sentences; `iso_type` is the weakest level with little data and
#   with `sa`, and `iso_type sa mim` collapses. On SCWS, `avg_type wa mim` lifts the
#   English score above the unaligned space (67.8 -> 69.5 with the EN-ZH map, 68.1
#   with EN-ES) and `iso_type sa mim` lowers it sharply (to ~48), the directions of
#   the paper's Table 4 (paper, multi_en->multi_zh: +2.3 and -4.5).
# - **What does not.** e5-small's multilingual space is already aligned without any
#   map (the dashed "no mapping" lines): alignment adds a few points on BTSR (EN-ZH
#   77.3 -> 84.0, EN-ES 84.1 -> 89.2 at best) and little on sentence retrieval, and
#   the word-only baseline (`BL(word)`, one avg_type vector per word) comes within a
#   few points of the best contextual method (82.6 vs 84.0; 85.1 vs 89.2). Our
#   automatic set does not force sense distinctions the way the paper's
#   human-checked set does (its baselines were far below the aligned models). The
#   context-only baselines stay very low (P@5 5-7), which shows the non-parallel
#   contexts work as intended: the target sentence cannot be found from the context.
# - The paper's `mono -> mono` rows, where the map is the only thing that brings two
#   languages together, need the hub models (`xalign run 02 --profile paper`, with a
#   network and preferably a GPU).

# %%
run.save()
