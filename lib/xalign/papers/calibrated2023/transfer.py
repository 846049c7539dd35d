"""Cross-lingual transfer on XNLI: zero-shot, translate-train-all, transfer rate and gap.

Data ("XNLI Manual", Sec. 4.1 of the calibrated-retrieval paper): for each language the
human-translated, labelled dev (2,490 rows) and test (5,010 rows) sets are concatenated and split
8:1:1 into train, validation and test. The files are line-parallel, and rows come in groups of three
hypotheses for one premise; we split by premise group (no premise in two splits) with the same
indices in every language, so the test sets stay translations of each other.

Two ways to train a classifier:

- ``"frozen"`` (the default profile, 2 CPU cores): the encoder is not trained; each pair (premise
  u, hypothesis v) becomes the SentEval feature vector [u, v, |u - v|, u * v] of mean-pooled
  sentence vectors, and a scikit-learn logistic regression (or MLP) is trained on it; the inverse
  regularisation strength is chosen on the validation splits. Fits are memoised.
- ``"finetune"`` (the paper's protocol, for a GPU): the whole encoder is fine-tuned with a
  classification head (:func:`finetune_nli`), validated every 5% of the steps, the checkpoint with
  the best mean validation accuracy over all languages kept; learning rate and batch size
  searched; test accuracy averaged over seeds.

Indexes (Sec. 4): zero-shot = train on one source language, test on the others;
translate-train-all = train on the union of all languages' training sets; transfer rate =
zero-shot / translate-train-all x 100 per language; transfer gap = source accuracy - mean accuracy
over the target languages. All accuracies are percentages. The control's intervals are in
:mod:`.control`, the correlations across languages or models in :mod:`.correlations`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from xalign.data.taskdata import NLI_LABELS
from xalign.data.xnli_manual import LABEL_INDEX, SPLITS, XNLIManual, labels_array
from xalign.measures import transfer as rates
from xalign.measures.probe import pair_features
from xalign.measures.sklearn_probes import LOGREG_MAX_ITER, LOGREG_TOL, make_classifier
from xalign.papers.calibrated2023.control import control_intervals


# ------------------------------------------------------------------ frozen features
def encode_pair_features(encoder, data: XNLIManual, layer: int = -1,
                         splits: Sequence[str] = SPLITS, langs: Sequence[str] | None = None
                         ) -> dict[str, dict[str, tuple[np.ndarray, np.ndarray]]]:
    """``feats[lang][split] = (X, y)``: pair features of one layer's mean-pooled vectors, and labels."""
    from xalign.core.progress import bar as progress_bar
    from xalign.core.sentvec import sentence_vectors

    layers = None if getattr(encoder, "n_layers", 1) == 1 else [layer]
    out: dict[str, dict[str, tuple[np.ndarray, np.ndarray]]] = {}
    for lang in progress_bar(list(langs or data.langs), desc="XNLI features", unit="lang"):
        out[lang] = {}
        for s in splits:
            rows = data.rows[lang][s]
            if not rows:
                continue
            texts = [r[0] for r in rows] + [r[1] for r in rows]
            vecs = sentence_vectors(encoder, texts, layers=layers)[:, 0]
            out[lang][s] = (pair_features(vecs[: len(rows)], vecs[len(rows):]), labels_array(rows))
    return out


def control_features(encoder, data: XNLIManual, source: str = "en", layer: int = -1):
    """The features :func:`control_before_after` reads after fine-tuning: ``source``'s train and test
    splits, the other languages' test splits only (their train splits are never read there)."""
    if source not in data.langs:
        raise ValueError(f"source language {source!r} is not among the data's languages {data.langs}")
    own = encode_pair_features(encoder, data, layer, splits=("train", "test"), langs=[source])
    rest = encode_pair_features(encoder, data, layer, splits=("test",), langs=[x for x in data.langs if x != source])
    return {lang: (own if lang == source else rest)[lang] for lang in data.langs}


def head_features(feats, split: str, n: int | None):
    """Features with only the first ``n`` rows of ``split`` (matches :meth:`XNLIManual.head`)."""
    return {lang: {s: ((X[:n], y[:n]) if s == split else (X, y)) for s, (X, y) in v.items()}
            for lang, v in feats.items()}


def _stack(feats, langs, split):  # (X, y) of one split, languages stacked
    missing = [lang for lang in langs if split not in feats.get(lang, {})]
    if missing:
        raise KeyError(f"no {split} features for {missing}")
    X = np.concatenate([feats[lang][split][0] for lang in langs])
    y = np.concatenate([feats[lang][split][1] for lang in langs])
    return X, y


def frozen_transfer(feats, train_langs: Sequence[str], test_langs: Sequence[str] | None = None,
                    val_langs: Sequence[str] | None = None, Cs: Sequence[float] = (0.1, 1.0),
                    classifier: str = "logreg", seed: int = 0, keep_hits: bool = False,
                    store=None) -> tuple[pd.DataFrame, dict]:
    """Train on the train splits of ``train_langs``, pick C by mean validation accuracy over
    ``val_langs`` (default: every language, as the paper selects checkpoints), test on each
    of ``test_langs``. With a single C no validation split is needed. Returns (frame of lang,
    value = test accuracy %, and info); ``keep_hits`` adds ``hits``, the per-row booleans
    (correct or not) of each language's test split, for confidence intervals.

    The result is memoised (:func:`xalign.core.memo.cached`, in ``store``) under a digest of the
    feature arrays it reads, the arguments, the scikit-learn version and this module's code.
    """
    import sklearn

    from xalign.core import hashing, memo

    langs = list(feats)
    test_langs = list(test_langs or langs)
    val_langs = list(val_langs or langs)
    Cs = list(Cs)
    if not Cs:
        raise ValueError("no regularisation strength to try (Cs is empty)")
    X, y = _stack(feats, list(train_langs), "train")
    used = [X, y] + [a for lang in (val_langs if len(Cs) > 1 else []) for a in feats[lang]["val"]] \
        + [a for lang in test_langs for a in feats[lang]["test"]]
    key = {"train": list(train_langs), "val": val_langs if len(Cs) > 1 else None, "test": test_langs,
           "Cs": [float(c) for c in Cs],
           "classifier": classifier, "seed": seed, "keep_hits": keep_hits, "sklearn": sklearn.__version__,
           "solver": ["lbfgs", LOGREG_TOL, LOGREG_MAX_ITER, "float64"],
           "features": hashing.array_digest(*used)}
    return memo.cached("calibrated2023.frozen_transfer", key,
                       lambda: _fit_and_test(feats, X, y, test_langs, val_langs, Cs, classifier, seed, keep_hits),
                       code=[frozen_transfer], store=store)


def _fit_and_test(feats, X, y, test_langs, val_langs, Cs, classifier, seed, keep_hits):
    best = None  # (validation accuracy, C, fitted model)
    for C in Cs:
        model = make_classifier(classifier, C, seed).fit(X, y)
        val = float("nan") if len(Cs) == 1 else float(np.mean([100 * model.score(*feats[lang]["val"])
                                                               for lang in val_langs]))
        if best is None or val > best[0]:
            best = (val, C, model)
    val, C, model = best
    rows = []
    for lang in test_langs:
        X_test, y_test = feats[lang]["test"]
        hits = model.predict(X_test) == y_test
        rows.append({"lang": lang, "value": 100 * float(hits.mean()), **({"hits": hits} if keep_hits else {})})
    return pd.DataFrame(rows), {"C": C, "val_accuracy": val, "n_train": len(y), "classifier": classifier}


def control_before_after(before, after, source: str = "en", Cs: Sequence[float] = (0.1, 1.0),
                         classifier: str = "logreg", seed: int = 0, store=None) -> pd.DataFrame:
    """Frozen-feature zero-shot from ``source`` with the features of one encoder before and after
    fine-tuning. C is chosen on the validation splits *before* fine-tuning and kept, so only the
    features differ.

    Returns:
        One row per state: ``C``, ``source`` accuracy, mean target accuracy, ``targets / source x
        100`` with its paired-bootstrap interval ``ci_lo``, ``ci_hi`` (:func:`control_intervals`),
        and on the ``after`` row the ratio's ``change`` (points) with ``change_ci_lo``, ``change_ci_hi``.
    """
    _, info = frozen_transfer(before, [source], Cs=Cs, classifier=classifier, seed=seed, store=store)
    rows, hits = [], {}
    for state, feats in (("before", before), ("after", after)):
        acc, _ = frozen_transfer(feats, [source], Cs=[info["C"]], classifier=classifier, seed=seed,
                                 keep_hits=True, store=store)
        src = acc.loc[acc.lang == source, "value"].item()
        tgt = acc.loc[acc.lang != source, "value"].mean()
        hits[state] = [acc.loc[acc.lang == source, "hits"].item(), *acc.loc[acc.lang != source, "hits"]]
        rows.append({"state": state, "C": info["C"], "source": src, "targets (mean)": tgt,
                     "targets / source x 100": 100 * tgt / src})
    ci = control_intervals(hits["before"], hits["after"], seed=seed)
    out = pd.DataFrame(rows)
    out["ci_lo"], out["ci_hi"] = [ci[s][0] for s in out.state], [ci[s][1] for s in out.state]
    out["change"] = [np.nan, out["targets / source x 100"].iloc[1] - out["targets / source x 100"].iloc[0]]
    out["change_ci_lo"], out["change_ci_hi"] = [np.nan, ci["change"][0]], [np.nan, ci["change"][1]]
    return out


# ------------------------------------------------------------------ full fine-tuning (paper protocol)
@dataclass(frozen=True)
class NLIFinetuneConfig:
    lr: float = 2e-5
    batch_size: int = 32
    epochs: int = 10
    eval_every: float = 0.05   # validate after every 5% of the steps
    warmup: float = 0.0
    weight_decay: float = 0.0
    max_length: int = 128
    seed: int = 0


def _nli_batches(tokenizer, rows, batch_size, max_length, device, shuffle_rng=None):
    import torch

    order = shuffle_rng.permutation(len(rows)) if shuffle_rng is not None else np.arange(len(rows))
    for s in range(0, len(order), batch_size):
        batch = [rows[i] for i in order[s : s + batch_size]]
        enc = tokenizer([r[0] for r in batch], [r[1] for r in batch], truncation=True,
                        max_length=max_length, padding=True, return_tensors="pt")
        y = torch.tensor([LABEL_INDEX[r[2]] for r in batch], device=device)
        yield {k: v.to(device) for k, v in enc.items()}, y


def _nli_accuracy(model, tokenizer, rows, config, device) -> float:
    import torch

    correct = 0
    with torch.inference_mode():
        for x, y in _nli_batches(tokenizer, rows, 4 * config.batch_size, config.max_length, device):
            correct += int((model(**x).logits.argmax(-1) == y).sum())
    return 100 * correct / max(len(rows), 1)


def finetune_nli(model_name: str, train_rows, val_sets: dict, test_sets: dict,
                 config: NLIFinetuneConfig = NLIFinetuneConfig(), device: str | None = None,
                 progress: bool = True) -> dict:
    """Fine-tune ``model_name`` with a 3-way classification head on ``train_rows``.

    Validates every ``eval_every`` of the steps on each of ``val_sets``
    ({lang: rows}); the test accuracies ({lang: %}) reported are those of the
    step with the best mean validation accuracy. Returns
    {"val": mean val %, "test": {lang: %}, "step": step}.
    """
    import torch
    from transformers import AutoModelForSequenceClassification, get_linear_schedule_with_warmup

    from xalign.core.devices import default_device
    from xalign.core.progress import bar as progress_bar
    from xalign.papers.calibrated2023.finetune import resolve_base

    device = device or default_device()
    source, _ = resolve_base(model_name)
    torch.manual_seed(config.seed)
    rng = np.random.default_rng(config.seed)
    from xalign.core.pretrained import CLASSIFIER_HEADS, load_model, load_tokenizer

    tokenizer = load_tokenizer(source)
    # the classification head is new (trained below); every other weight must come from the checkpoint
    model = load_model(source, AutoModelForSequenceClassification, new_heads=CLASSIFIER_HEADS,
                       num_labels=len(NLI_LABELS)).to(device)
    steps_per_epoch = int(np.ceil(len(train_rows) / config.batch_size))
    total = steps_per_epoch * config.epochs
    opt = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    sched = get_linear_schedule_with_warmup(opt, int(config.warmup * total), total)
    every = max(1, round(config.eval_every * total))
    best = {"val": -1.0, "test": {}, "step": 0}
    step = 0
    bar = progress_bar(total=total, desc=f"fine-tune {model_name} on NLI", disable=not progress)
    for _ in range(config.epochs):
        model.train()
        for x, y in _nli_batches(tokenizer, train_rows, config.batch_size, config.max_length, device, rng):
            loss = torch.nn.functional.cross_entropy(model(**x).logits, y)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            opt.zero_grad(set_to_none=True)
            step += 1
            bar.update(1)
            if step % every == 0 or step == total:
                model.eval()
                val = float(np.mean([_nli_accuracy(model, tokenizer, r, config, device) for r in val_sets.values()]))
                if val > best["val"]:
                    best = {"val": val, "step": step,
                            "test": {k: _nli_accuracy(model, tokenizer, r, config, device)
                                     for k, r in test_sets.items()}}
                model.train()
    bar.close()
    return best


def finetune_transfer(model_name: str, data: XNLIManual, train_langs: Sequence[str],
                      lrs: Sequence[float] = (5e-6, 1e-5, 2e-5), batch_sizes: Sequence[int] = (16, 32, 128),
                      seeds: Sequence[int] = (0, 1, 2, 3, 4), epochs: int = 10, device: str | None = None,
                      progress: bool = True) -> tuple[pd.DataFrame, dict]:
    """The paper's XNLI protocol: grid over learning rate x batch size (first seed, best mean
    validation accuracy), then the chosen setting over all seeds; test accuracy averaged over seeds.
    Returns (frame of lang, value, std) and info."""
    train = [r for lang in train_langs for r in data.rows[lang]["train"]]
    val = {lang: data.rows[lang]["val"] for lang in data.langs}
    test = {lang: data.rows[lang]["test"] for lang in data.langs}

    def run(lr, bs, seed):
        cfg = NLIFinetuneConfig(lr=lr, batch_size=bs, epochs=epochs, seed=seed)
        return finetune_nli(model_name, train, val, test, cfg, device, progress)

    grid = {(lr, bs): run(lr, bs, seeds[0]) for lr in lrs for bs in batch_sizes}
    (lr, bs), first = max(grid.items(), key=lambda kv: kv[1]["val"])
    results = [first] + [run(lr, bs, s) for s in seeds[1:]]
    acc = pd.DataFrame([r["test"] for r in results])
    frame = pd.DataFrame({"lang": acc.columns, "value": acc.mean().to_numpy(),
                          "std": acc.std(ddof=0).to_numpy()})
    return frame, {"lr": lr, "batch_size": bs, "seeds": list(seeds),
                   "grid_val": {f"{k[0]}/{k[1]}": v["val"] for k, v in grid.items()}}


# ------------------------------------------------------------------ indexes
def transfer_rate(zero_shot: pd.DataFrame, translate_train_all: pd.DataFrame,
                  keys: Sequence[str] = ("lang",)) -> pd.DataFrame:
    """100 x zero-shot / translate-train-all accuracy (:func:`xalign.measures.transfer.transfer_rate`), per key
    (e.g. lang, or model and lang); frames of ``keys`` and ``value`` in, the same out."""
    keys = list(keys)
    m = zero_shot[keys + ["value"]].merge(translate_train_all[keys + ["value"]], on=keys,
                                          suffixes=("_zs", "_tta"), how="inner")
    if len(m) != len(zero_shot) or len(m) != len(translate_train_all):
        raise ValueError("zero-shot and translate-train-all results must cover the same keys")
    if (m["value_tta"] <= 0).any():
        raise ValueError("translate-train-all accuracy must be positive")
    m["value"] = rates.transfer_rate(m["value_zs"].to_numpy(), m["value_tta"].to_numpy())
    return m[keys + ["value"]]


def transfer_gap(scores: pd.DataFrame, source: str, lang: str = "lang") -> float:
    """Source-language accuracy minus the mean accuracy over all other languages (points)."""
    src = scores.loc[scores[lang] == source, "value"]
    if len(src) != 1:
        raise KeyError(f"no single score for source language {source!r}")
    others = scores.loc[scores[lang] != source, "value"]
    if others.empty:
        raise ValueError("no target languages")
    return float(src.iloc[0] - others.mean())
