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
# # Feature-based transfer of multilingual sentence embeddings (Nyholm 2020)
#
# Do frozen multilingual BERT sentence vectors, fed to SentEval's simple
# classifiers, carry inference and emotion detection across languages?
# Nyholm's thesis {cite}`nyholm2020` ("MultiSent") trains logistic-regression
# and MLP probes on XNLI (15 languages) and XED (8 emotions; en, fr, it) and
# finds scores close to chance (XNLI 33-56 %, chance 33.3 %; XED 25-38 %),
# suspecting that "something along the stream of encoding the data, extracting
# the features, and performing the classification" went wrong. We rebuild its
# pipeline, reproduce Tables 1-7 beside its numbers, and test one explanation
# that we infer from the code it names: **the text reached the model in a form
# that lost most of its words**.
#
# **What differs from the thesis.** The thesis used multilingual BERT (cased).
# The `default` profile runs `multilingual-e5-small` (12 layers, 384
# dimensions, XLM-R's SentencePiece vocabulary), a *contrastively trained
# sentence encoder* whose features are far better sentence vectors than raw
# M-BERT's, so our "repaired pipeline" numbers are not what M-BERT would give;
# the `paper` profile runs `bert-base-multilingual-cased` on all 15 languages
# and the full dev and test sets. XNLI's 392,702 machine-translated training
# pairs are not part of the data this book uses, so we **train on XNLI's
# labelled dev set (hyper-parameters by cross-validation) and test on its
# labelled test set**. Encoding all of XNLI takes hours on a CPU, so the
# `default` profile uses nine languages that cover every case (en; de, es, fr;
# sw; vi; ru; ar; zh), a few hundred pairs each. The thesis' XED files (Kajava
# 2018) are not public; we use the released XED (Öhman et al. 2020) with the
# thesis' split sizes where the data allow.

# %% tags=["parameters"]
profile = "default"
model = None  # encoder: multilingual-e5-small, offline, or a hub id such as bert-base-multilingual-cased
autocast = None  # empty string: exact float32 (the profiles); "auto" or "bfloat16": faster, less exact
xnli_languages = None  # XNLI languages (the thesis' Table 4 has 14; it lacks tr)
xnli_train_pairs = None  # training pairs per language, whole premise groups drawn from XNLI dev; None takes all 2490
xnli_dev_pairs = None  # dev pairs per language for the thesis configuration (SentEval's SplitClassifier), other XNLI dev rows
xnli_test_pairs = None  # test pairs per language from the labelled test set; None takes all 5010
xed_languages = None  # XED languages (thesis: en, fr, it)
xed_sizes = None  # dict lang to [train, dev, test], key * for the others; train shrinks where lines run short
xed_label_policy = None  # single keeps lines with one emotion, as in the thesis; first takes the first emotion listed
study_languages = None  # XNLI languages for the layer/pooling sweep and the step-by-step diagnosis
senteval_config = None  # SentEval configuration of our probes: prototyping, 5 folds, or standard, 10 folds
probe_training = None  # our LR and MLP: full-batch (L-BFGS in float64 to convergence) or senteval (early-stopped)
mlp_hidden = None  # hidden units of our MLP probe
classifier_sizes = None  # MLP hidden sizes for the classifier-size study; 0 is logistic regression
xnli_train_sizes = None  # training-set sizes (pairs) for the XNLI learning curve
xed_train_sizes = None  # training-set sizes (sentences) for the XED learning curve
layer = None  # layer of the main repaired features; -1 is the last
seed = None  # seed for sampling and splits, and the probes' seed in the studies after Table 7
seeds = None  # training seeds of our probes in Tables 4-7 and the diagnosis (the first also draws the k-fold splits)
thesis_seeds = None  # training seeds of the thesis configuration's early-stopped probes (batch order, initialisation)

# %%
import warnings

warnings.filterwarnings("ignore", category=FutureWarning)

from xalign.book import claims, display
from xalign.book.results import ChapterRun
from xalign.core.loading import load_encoder
from xalign.papers.meta import check_model_layers, parameters
from xalign.papers.nyholm2020 import experiments, figures, gap, report

display.book_style()
P = parameters("nyholm2020", profile, globals())  # the profile's values; -p overrides win
run = ChapterRun("05_feature_based_transfer", "nyholm2020", profile, P.to_dict())
enc = load_encoder(P.model)
check_model_layers("nyholm2020", P, enc.n_layers, P.model)  # layer 99 is an error, not 99 % n_layers
enc.autocast = P.autocast or None
run.use_encoder(enc)

# %% tags=["show-input"]
result = experiments.run_chapter(P, run, enc)  # every table below, recorded in run; figures drawn by figures.*

# %% [markdown]
# ## Data
#
# **XNLI** (Conneau et al. 2018; CC BY-NC 4.0): premise-hypothesis pairs
# labelled entailment / neutral / contradiction, human-translated into 14
# languages, line-parallel, in groups of three rows sharing one premise (one
# per label): a sample of whole groups, the same in every language, is
# exactly balanced (chance 33.3 %).
#
# (ch05-table2)=
# ### Table 2: XNLI files

# %%
display.table(report.shown(result.data_tables["table2"], ["split"], unit="lines")[0], caption="Table 2: XNLI files (lines)");

# %% [markdown]
# **XED** (Öhman et al. 2020; CC BY 4.0): subtitle lines annotated with
# Plutchik's eight emotions (English and Finnish by annotators, the others by
# projection). The files are **multi-label** (`"1, 4, 7"`); we keep lines with
# one emotion, as the thesis' files had. A few CSV-quoted fields of the
# projection files swallow alignment metadata; the reader counts those records:

# %%
display.table(result.data_tables["xed_files"], caption="XED files and the records the reader counts");

# %% [markdown]
# (ch05-table1)=
# ### Table 1: XED class distribution
#
# Ours: the single-label English lines of the later, larger released data.

# %%
display.table(*report.shown(result.data_tables["table1"], ["emotion"], unit="% of lines"), caption="Table 1: XED classes");

# %% [markdown]
# (ch05-table3)=
# ### Table 3: XED splits

# %%
display.table(*report.shown(result.data_tables["table3"], ["lang", "split"], unit="lines"), caption="Table 3: XED splits (lines)");

# %% [markdown]
# ## Method: the thesis' pipeline, step by step
#
# The thesis' `batcher` (its Figure 1) read next to SentEval's loaders
# gives this path (step 1 is our inference):
#
# 1. **Loading.** SentEval's SNLI task, which the thesis adapted for XNLI,
#    reads files as Latin-1 (`senteval/snli.py`, line 66 at commit 5d6dc11);
#    XNLI is UTF-8, so every non-ASCII character becomes mojibake (`é` -> `Ã©`).
#    The SST task, the template for XED, reads UTF-8.
# 2. **Tokenisation.** `tokenizer.encode` gets SentEval's *list of words*,
#    which transformers 2.x/3.x looks up whole in the sub-word vocabulary: a
#    word that is not an entry (`home.` included) becomes `[UNK]`.
# 3. **Pooling.** The last layer's `[CLS]` of a model never fine-tuned.
# 4. **Classifiers.** SentEval's prototyping set-up (RMSprop, batch 128,
#    tenacity 3), unregularised for XNLI; the MLP has 5 sigmoid units.
#
# `multisent.whole_word_ids` is the thesis' Figure 1 for any tokenizer. One
# sentence per language, along the thesis' path and the ordinary one:

# %%
display.table(result.examples, caption="One sentence per language, along the thesis' path and the ordinary one");

# %% tags=["remove-input"]
display.prose("**Which XNLI files did the thesis read?** Its example premise is printed as `He didn't get to go .`; "
              f"the raw XNLI dev file (English) reads {display.code(report.raw_xnli_premise('en', 'He didn'))}.");

# %% [markdown]
# So the thesis read a *tokenised* XNLI (not SentEval's PTB script, which also
# splits `didn't`): most likely XNLI 1.0's `sentence1_tokenized` columns, which
# segment Chinese and Thai; for those our unknown-token shares overstate its loss.
#
# ### Encoding
#
# **Thesis** features follow that path (last layer, first token); **repaired**
# features tokenize the raw UTF-8 text (with e5's prefix for classification,
# `query: `) and average over tokens; the **CBOW** baseline, planned by the
# thesis, averages the input sub-word embeddings. Words lost to `<unk>` on its path:

# %%
display.table(result.features.unk_table(), caption="Words lost to the unknown token on the thesis' path")
display.prose(report.unk_summary(result.table4.unk_thesis_langs));

# %% [markdown]
# These shares use e5's tokenizer standing in for M-BERT's. Words with
# diacritics (Vietnamese) or in a non-Latin script are lost to the Latin-1
# reading; Chinese and Thai, written without spaces, stay high in UTF-8 too.
#
# (ch05-table4)=
# ## Table 4: XNLI, per language

# %% tags=["remove-input"]
display.prose(report.probe_setup(P.xnli_dev_pairs, P.mlp_hidden, P.seeds, P.thesis_seeds));

# %%
display.table(*report.shown(result.table4.table, ["lang", "classifier"]), full_label="Full table (CBOW, zero-shot, F1)")
display.prose(report.table4_summary(result.table4.table))
display.figure("ch05-table4", figures.plot_table4(result.table4.table, result.model));

# %% [markdown]
# ```{glue:figure} ch05-table4
# :name: fig-ch05-table4
#
# **Thesis Table 4 as bars** (the thesis draws none). XNLI test accuracy (%),
# logistic regression, thesis (M-BERT) beside our runs (mean over seeds);
# error bars: 95 % bootstrap intervals; dotted: chance.
# ```
#
# {numref}`fig-ch05-unk-correlation` sets the thesis' accuracy against the
# words its inferred input path loses (e5's tokenizer; an upper bound for zh, th).

# %%
display.figure("ch05-unk-correlation", figures.plot_unk_correlation(result.unk_points));

# %% [markdown]
# ```{glue:figure} ch05-unk-correlation
# :name: fig-ch05-unk-correlation
#
# **Not in the thesis.** The thesis' XNLI accuracy (Table 4, %) against the
# words (%) that become `<unk>` on its inferred input path (e5's tokenizer);
# the Latin-script languages sit on the left, the others near 100 %.
# ```

# %%
display.table(report.correlation_table(result.unk_correlation), digits={"Spearman rho": 2}, caption="Accuracy vs lost words")
display.prose(report.correlation_summary(result.unk_correlation));

# %% [markdown]
# (ch05-table6)=
# ## Table 6: XNLI next to other systems
#
# The thesis' best score per language (MLP or LR, **chosen by test accuracy**)
# beside quoted fine-tuned systems; our rows (seed means) follow that rule.

# %%
display.table(*report.shown(result.table6, ["model", "lang"]), caption="Table 6: XNLI next to other systems (%)")
display.table(gap.shown(result.mlp_lr_gap), caption="MLP against logistic regression, per language")
display.prose(gap.gap_summary(result.mlp_lr_gap));

# %% [markdown]
# (ch05-table5)=
# ## Table 5: XED emotion detection
#
# On XED the thesis path has only the whole-word lookup and first-token
# pooling; selection is on the dev split. Chance is 12.5 %; the full table
# gives the majority-class accuracy. The projected languages (fr, it) have
# fewer single-label lines, and label noise.

# %%
display.table(*report.shown(result.xed.table5, ["lang", "classifier"]), full_label="Full table (CBOW, F1, majority class)");

# %% [markdown]
# (ch05-table7)=
# ## Table 7: XED next to Kajava (2018)
#
# Kajava's MLP (3 x 100 ReLU units, 10-fold cross-validation, her data) is
# quoted, not rerun; the MultiSent rows are those of Table 5.

# %%
display.table(*report.shown(result.xed.table7, ["classifier", "lang"]), caption="Table 7: XED next to Kajava (2018)")
display.prose(report.xed_summary(result.xed.table5));

# %% [markdown]
# ## Which choices move the result?
#
# These studies train each probe with one seed (`seed`): a difference within
# the seed ranges of Tables 4 and 5 is no finding.
#
# ### Pooling and layer
#
# One logistic regression per pooling and layer; 20 % of the XNLI training
# pairs (whole premises) are held out to pick L2 (XED has its own dev split);
# each task's layer is chosen on that held-out score, not on test:

# %%
display.table(result.layers.best_layer[["task", "layer", "dev_acc", "acc"]].rename(
    columns={"dev_acc": "held-out acc (%)", "acc": "test acc (%)"}), caption="Each task's layer, chosen on held-out data")
display.figure("ch05-layer-sweep", figures.plot_layer_sweep(result.layers.sweep, result.layers.cbow))
display.prose(report.sweep_summary(result.layers.sweep, result.layers.best_layer, result.layers.cbow));

# %% [markdown]
# ```{glue:figure} ch05-layer-sweep
# :name: fig-ch05-layer-sweep
#
# **Not in the thesis.** Test accuracy (%) of a logistic regression per layer
# (0 = embeddings), mean vs first-token pooling; dashed: CBOW, dotted: chance.
# ```
#
# e5 was trained with mean pooling, raw M-BERT's `[CLS]` not as a sentence
# vector: this says nothing about M-BERT. At layer 0 mean pooling should sit
# near CBOW; the first token is one vector for all sentences: no information.
#
# ### Classifier size
#
# MLPs of growing hidden size on the repaired features (the thesis used 5).

# %%
display.figure("ch05-classifier-size", figures.plot_classifier_size(result.classifier_size));

# %% [markdown]
# ```{glue:figure} ch05-classifier-size
# :name: fig-ch05-classifier-size
#
# **Not in the thesis.** Test accuracy (%) against the MLP's hidden units (log
# scale; LR = logistic regression), repaired features, one line per task.
# ```
#
# ### Training-set size
#
# Logistic regression on stratified training subsets, repaired and thesis
# features. On the thesis path nearly every raw Chinese sentence becomes one
# `<unk>`: a flat Chinese curve there is built in and says nothing about *the
# thesis'* (probably segmented) input.

# %%
display.figure("ch05-learning-curve", figures.plot_learning_curve(result.learning_curve));

# %% [markdown]
# ```{glue:figure} ch05-learning-curve
# :name: fig-ch05-learning-curve
#
# **Not in the thesis.** Test accuracy (%) against training items (log
# scale), repaired vs thesis features; dotted: chance.
# ```
#
# (ch05-diagnosis)=
# ## Diagnosis: undoing the thesis' pipeline one step at a time
#
# For the study languages (and XED English) we change one thing per step:
# **A** the thesis' path (Latin-1, whole words, first token, last layer); **B**
# read as UTF-8; **C** the sub-word tokenizer; **D** mean pooling; **E** our
# probes; **F** the layer chosen on held-out data above. A-D keep the thesis'
# classifiers, early-stopped on the dev split. XED starts at B (read as UTF-8).

# %%
display.table(report.diagnosis_table(result.diagnosis), caption="Undoing the thesis' pipeline one step at a time (A-F)")
display.figure("ch05-diagnosis", figures.plot_diagnosis(result.diagnosis));

# %% [markdown]
# ```{glue:figure} ch05-diagnosis
# :name: fig-ch05-diagnosis
#
# **Not in the thesis.** Test accuracy (%, mean over seeds) with its 95 %
# bootstrap interval after each step A-F, per probe; dotted: chance.
# ```
#
# ## What the evidence supports

# %% tags=["remove-input"]
display.prose(experiments.evidence(result), before=claims.verdict_table(run));

# %%
run.set_headline(experiments.headline(result), key_figure="ch05-table4")
path = run.save()
