"""Chapter 5's inputs (Nyholm 2020): the tasks drawn from XNLI and XED, and every text set encoded once.

:func:`load_data` draws the tasks (the same premise groups in every language), :func:`run_data_tables`
compares the data statistics with the thesis' Tables 1-3, :func:`encode_features` encodes every text
set along the thesis' path and the repaired one, and :func:`our_probes` names our classifiers. The
experiments that use them are in :mod:`.experiments`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from xalign.core.profiles import as_list
from xalign.data import taskdata
from xalign.data.tasks import Task
from xalign.measures import probe
from xalign.measures.probe import Batcher, ProbeSpec
from xalign.measures.sentbank import SentenceBank, cbow_bank, union_batcher
from xalign.papers.nyholm2020 import multisent

PAPER = "nyholm2020"
#: chance accuracy (%) of XNLI's three balanced labels and of XED's eight emotions
CHANCE = {"XNLI": 100 / 3, "XED": 12.5}
#: the diagnosis' steps, in order (the first letter is the step's id)
STEPS = ("A thesis: Latin-1, whole words, first token, last layer", "B read UTF-8", "C sub-word tokenizer",
         "D mean pooling", "E our probes (CV-selected L2)", "F layer chosen on held-out data")


#: XNLI's test items per language (the thesis' Table 4 scores them all)
XNLI_TEST_ITEMS = 5010


def chance(task_name: str) -> float:
    """Chance accuracy (%) of a task named ``"XNLI <lang>"`` or ``"XED <lang>"``."""
    return CHANCE["XNLI"] if task_name.startswith("XNLI") else CHANCE["XED"]


def chance_band(task_name: str, n_items: int) -> float:
    """Half-width (points) of the 95% binomial interval of a chance-level accuracy over ``n_items`` test
    items: an accuracy within ``chance(task) + chance_band(...)`` is chance level (XNLI, 5,010 items: 1.3)."""
    p = chance(task_name) / 100
    return 100 * 1.96 * (p * (1 - p) / n_items) ** 0.5


# --------------------------------------------------------------------------- data
@dataclass
class Data:
    """The chapter's tasks.

    Attributes:
        langs: XNLI languages; ``study``: those of the layer study and the diagnosis.
        xnli: XNLI task per language (train and test drawn from XNLI dev / test).
        thesis: the same tasks plus the dev split the thesis configuration early-stops on.
        zero_shot: English training data, each other language's test set.
        xed: XED task per language.
    """

    langs: list[str]
    study: list[str]
    xed_langs: list[str]
    xnli: dict[str, Task]
    thesis: dict[str, Task]
    zero_shot: dict[str, Task]
    xed: dict[str, Task]


def load_data(*, xnli_languages: Sequence[str] | str, study_languages: Sequence[str] | str,
              xed_languages: Sequence[str] | str, xed_label_policy: str, xed_sizes: Mapping[str, Sequence[int]],
              xnli_train_pairs: int | None, xnli_dev_pairs: int | None, xnli_test_pairs: int | None,
              seed: int) -> Data:
    """Draw every task of the chapter (the same groups in every language).

    Args:
        xnli_languages, study_languages, xed_languages: the profile's languages (lists or comma strings);
            the study languages outside ``xnli_languages`` are left out.
        xed_label_policy: ``single`` or ``first`` (:func:`xalign.data.taskdata.single_labels`).
        xed_sizes: language -> [train, dev, test] XED lines, ``"*"`` for the others.
        xnli_train_pairs, xnli_dev_pairs, xnli_test_pairs: XNLI pairs per language (None: all).
        seed: the draws' seed.
    """
    langs = as_list(xnli_languages)
    study = [lang for lang in as_list(study_languages) if lang in langs]
    xed_langs = as_list(xed_languages)
    if xed_label_policy is None or not xed_langs:
        raise ValueError("nyholm2020: xed_languages must name at least one language and xed_label_policy be set")
    xnli = {lang: taskdata.xnli_task(lang, lang, xnli_train_pairs, xnli_test_pairs, seed) for lang in langs}
    thesis = {lang: multisent.thesis_task(task, xnli_dev_pairs, seed) for lang, task in xnli.items()}
    zero_shot = {lang: taskdata.xnli_task("en", lang, xnli_train_pairs, xnli_test_pairs, seed)
                 for lang in langs if lang != "en" and "en" in langs}
    missing = [lang for lang in xed_langs if lang not in xed_sizes and "*" not in xed_sizes]
    if missing:
        raise ValueError(f"nyholm2020: xed_sizes has no entry for {missing} and no '*' entry")
    sizes = {lang: (xed_sizes.get(lang) or xed_sizes["*"]) for lang in xed_langs}
    xed = {lang: taskdata.xed_task(lang, *sizes[lang], seed=seed, policy=xed_label_policy)
           for lang in xed_langs}
    return Data(langs, study, xed_langs, xnli, thesis, zero_shot, xed)


def load_profile_data(P) -> Data:
    """:func:`load_data` with every value taken from the chapter's parameters ``P``
    (:func:`xalign.papers.meta.parameters`): the one call the chapter and the bench scripts share."""
    return load_data(xnli_languages=P.xnli_languages, study_languages=P.study_languages,
                     xed_languages=P.xed_languages, xed_label_policy=P.xed_label_policy, xed_sizes=P.xed_sizes,
                     xnli_train_pairs=P.xnli_train_pairs, xnli_dev_pairs=P.xnli_dev_pairs,
                     xnli_test_pairs=P.xnli_test_pairs, seed=P.seed)


def run_data_tables(run, data: Data, xed_label_policy: str) -> dict[str, pd.DataFrame]:
    """Tables 1-3 (data statistics) and the XED files' summary (Table 1: English lines kept by
    ``xed_label_policy``).

    Returns:
        ``{"table2", "xed_files", "table1", "table3"}``: the compared frames (``paper``, ``ours``,
        ``diff``) and the per-file summary (records, single-/multi-label lines, skipped records).
    """
    first = data.langs[0]
    ours_t2 = pd.DataFrame([
        {"split": "train", "value": np.nan, "ours (used as)": "not in the mirror"},
        {"split": "dev", "value": len(taskdata.xnli_pairs("en", "dev")),
         "ours (used as)": f"training data: {len(data.xnli[first].train.labels)} pairs; the thesis configuration's "
                           f"dev split: {len(data.thesis[first].dev.labels)} other pairs"},
        {"split": "test", "value": len(taskdata.xnli_pairs("en", "test")),
         "ours (used as)": f"test data: {len(data.xnli[first].test.labels)} pairs"}])
    t2 = run.compare("table2", ours_t2, ["split"], title="Table 2: XNLI file sizes (lines per language)",
                     note="no machine-translated training split here: we train on dev and test on test; "
                          "the thesis configuration early-stops on a disjoint part of dev, as SentEval's SNLI task does")
    xed_files = pd.DataFrame([{"lang": lang, **taskdata.read_xed(taskdata.xed_path(lang)).summary()}
                              for lang in data.xed_langs])
    _, en_y = taskdata.single_labels(taskdata.read_xed(taskdata.xed_path("en")).records, xed_label_policy)
    ours_t1 = pd.DataFrame([{"emotion": k, "value": v} for k, v in taskdata.class_distribution(en_y).items()])
    t1 = run.compare("table1", ours_t1, ["emotion"], title="Table 1: XED class distribution (%)",
                     note="released XED (2020), English single-label lines; the thesis had Kajava's 2018 files")
    ours_t3 = pd.DataFrame([{"lang": t.meta["lang"], "split": k, "value": t.meta[f"n_{k}"]}
                            for t in data.xed.values() for k in ("train", "dev", "test")])
    t3 = run.compare("table3", ours_t3, ["lang", "split"], title="Table 3: XED split sizes",
                     note="stratified splits of the released data; training split shrinks where a language "
                          "has fewer single-label lines")
    return {"table2": t2, "xed_files": xed_files, "table1": t1, "table3": t3}


def trace_examples(data: Data, tokenizer) -> pd.DataFrame:
    """One test premise per XNLI language along the thesis' path and along ordinary tokenisation."""
    return pd.DataFrame([{"lang": lang, **multisent.trace(data.xnli[lang].test.texts[1][0], tokenizer)}
                         for lang in data.langs])


# --------------------------------------------------------------------------- features
@dataclass
class Features:
    """Every encoded text set of the chapter, and the batchers the probes read.

    Attributes:
        fixed / thesis / thesis_utf8 / cbow: XNLI banks per language (repaired: every layer for the
            study languages, else the main and last layers; thesis: Latin-1 path, last layer, first
            token; thesis_utf8: the same read as UTF-8, study languages only; CBOW: input embeddings).
        xed_fixed / xed_thesis / xed_cbow: the same for XED (its thesis path reads UTF-8).
        unk: ``{(texts, reading): share}`` of words that become the unknown token (fraction).
        F / XF: batchers ``{"thesis", "repaired", "cbow"}`` over every XNLI / XED bank.
        last / main_layer: the last layer and the repaired features' layer (0 = embeddings).
    """

    fixed: dict[str, SentenceBank]
    thesis: dict[str, SentenceBank]
    thesis_utf8: dict[str, SentenceBank]
    cbow: dict[str, SentenceBank]
    xed_fixed: dict[str, SentenceBank]
    xed_thesis: dict[str, SentenceBank]
    xed_cbow: dict[str, SentenceBank]
    unk: dict[tuple[str, str], float]
    F: dict[str, Batcher]
    XF: dict[str, Batcher]
    last: int
    main_layer: int

    def unk_table(self) -> pd.DataFrame:
        """The unknown-token shares (%) as a table: one row per text set, one column per reading."""
        s = pd.Series(self.unk, name="unknown-token share").rename_axis(["texts", "reading"]).unstack()
        out = (100 * s).reset_index()
        out.columns.name = None
        return out.rename(columns={c: f"{c} (% of words)" for c in out.columns if c != "texts"})


def encode_features(enc, data: Data, layer: int) -> Features:
    """Encode every text set once (the encoder caches on disk); see :class:`Features`. ``layer``: the
    repaired features' layer (-1: the last)."""
    last = enc.n_layers - 1
    main = layer % enc.n_layers
    fixed, thesis, thesis_utf8, cbow, unk = {}, {}, {}, {}, {}
    for lang, task in data.thesis.items():  # train, the thesis configuration's dev split, test
        texts = task.all_texts()
        keep = None if lang in data.study else sorted({main, last})
        fixed[lang] = SentenceBank.from_encoder(enc, texts, keep_layers=keep, dtype=np.float16, desc=f"XNLI {lang}")
        thesis[lang], unk[(lang, "latin-1")] = multisent.thesis_bank(enc, texts, latin1=True, poolings=("first",),
                                                                     keep_layers=[last])
        if lang in data.study:
            thesis_utf8[lang], unk[(lang, "utf-8")] = multisent.thesis_bank(enc, texts, latin1=False,
                                                                            poolings=("first",), keep_layers=[last])
        cbow[lang] = cbow_bank(enc, texts)
    xed_fixed, xed_thesis, xed_cbow = {}, {}, {}
    for lang, task in data.xed.items():
        texts = task.all_texts()
        xed_fixed[lang] = SentenceBank.from_encoder(enc, texts, keep_layers=None if lang == "en" else sorted({main, last}),
                                                    dtype=np.float16, desc=f"XED {lang}")
        xed_thesis[lang], unk[(f"XED {lang}", "utf-8")] = multisent.thesis_bank(enc, texts, latin1=False,
                                                                                poolings=("first",), keep_layers=[last])
        xed_cbow[lang] = cbow_bank(enc, texts)
    F = {"thesis": union_batcher(thesis.values(), "first", last),
         "repaired": union_batcher(fixed.values(), "mean", main),
         "cbow": union_batcher(cbow.values(), "cbow", 0)}
    XF = {"thesis": union_batcher(xed_thesis.values(), "first", last),
          "repaired": union_batcher(xed_fixed.values(), "mean", main),
          "cbow": union_batcher(xed_cbow.values(), "cbow", 0)}
    return Features(fixed, thesis, thesis_utf8, cbow, xed_fixed, xed_thesis, xed_cbow, unk, F, XF, last, main)


def our_probes(mlp_hidden: int, probe_training: str, senteval_config: str) -> list[ProbeSpec]:
    """Our two probes for the repaired features on standardised features: LR and an MLP with ``mlp_hidden``
    units, both trained as ``probe_training`` says (:func:`our_probe_settings`)."""
    return [probe.ProbeSpec("LR", kind="logreg", **our_probe_settings("logreg", probe_training, senteval_config)),
            probe.ProbeSpec("MLP", kind="mlp", nhid=mlp_hidden, **our_probe_settings("mlp", probe_training,
                                                                                     senteval_config))]


def our_probe_settings(kind: str, probe_training: str, senteval_config: str) -> dict:
    """The keyword arguments of our probes of ``kind`` ("logreg" or "mlp"); k from ``senteval_config``.

    ``probe_training = "full-batch"`` (every profile's): both probes train on the whole training set in
    float64 to convergence, L2 by premise-grouped k-fold log-loss, chosen once per task
    (:mod:`xalign.measures.fullbatch`: rounding noise cannot send them down another path). ``"senteval"``:
    SentEval's mini-batch training, 20 % of the training data held out for early stopping, L2 by k-fold
    accuracy. ``probe_training``'s values are checked once, by the profile's range
    (:func:`xalign.papers.meta.checked_parameters`).
    """
    if kind not in ("logreg", "mlp"):
        raise ValueError(f"kind must be 'logreg' or 'mlp', got {kind!r}")
    return {"config": senteval_config, "standardize": True,
            **({"backend": "full-batch"} if probe_training == "full-batch" else {"min_validation": 0.2})}
