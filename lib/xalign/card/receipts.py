"""Comparability receipts: what produced each card value, so that it can be set beside someone else's.

Published bitext and alignment numbers fail to reproduce mostly for reasons a results
table does not say: which layer and pooling, which prefix the encoder put before every
text, which direction was searched, which scoring (cosine, CSLS, a fitted map...), and
which data. Each card measure carries a receipt (``card["measures"][id]["receipt"]``):

- ``pooling``: groups of layer labels and how each got its vector (``[{"layers": [...],
  "pooling": "..."}]``); every per-layer value of the measure is in exactly one group;
- ``prefix`` (the text prepended to every input, ``""`` for none) and ``template`` (a
  prompt template, ``None`` for an encoder that has none);
- ``direction``, ``scoring``, ``sample``: the protocol in words, from the card's settings;
- ``data``: the data files the measure's step read, each with its sha256 (recorded as the
  files were handed out, :func:`xalign.data.datasets.files_used`).

:func:`receipts_markdown` shows them on the card page: one row per measure, and the data
files once each with the measures that read them.
"""

from __future__ import annotations

import time
from pathlib import Path

from xalign.card.sizes import sample_size
from xalign.core.markup import code, text
from xalign.data.datasets import files_used

#: how a hidden layer's sentence vector is made (xalign.core.encoders, pooling "mean")
MEAN_POOLING = "mean over the text's non-padding tokens (special and prefix tokens included)"
#: word vectors in context (the word-level measures)
WORD_IN_CONTEXT = "mean of the word's sub-word token states in its sentence"
#: a word fed alone (BLI)
WORD_ALONE = "the word fed alone, mean of its sub-word token states (no special tokens)"
#: word-level measures: hidden layers only
WORD_MEASURES = ("s_weak", "s_strong", "btsr_p1")


def output_pooling(encoder) -> str:
    """How the ``out`` label's vector is made for this encoder (its own sentence embedding)."""
    modules = getattr(encoder, "st_modules", None)
    if modules:
        names = ", ".join(type(x).__name__ for x in modules)
        return f"the model's own sentence embedding (last layer through its sentence-transformers modules: {names})"
    if hasattr(encoder, "obj"):
        return f"the model's own sentence embedding ({type(encoder.obj).__name__}.encode(texts))"
    return "the model's own sentence embedding"


def _protocol(cfg: dict, totals: dict[str, int] | None = None) -> dict[str, tuple[str, str, str]]:
    """measure id -> (direction, scoring, sample), in words, from the card's settings.

    ``totals`` (measure id -> its item count ``n``) says how many items a size of "all" (None in the
    settings, ``--profile full``) came to; every size is worded by :func:`xalign.card.sizes.sample_size`.
    """
    totals = totals or {}
    k, langs, seed = cfg["csls_k"], ", ".join(cfg["tatoeba_langs"]), cfg["seed"]
    tato_n = sample_size(cfg["tatoeba_n"], "pairs per language", total=totals.get("tatoeba_nn_xx-en"))
    tato = f"Tatoeba {langs}: {tato_n}, searched within the language (seed {seed})"
    src, tgt = cfg["word_pair"].split("-")
    corpus = f"{cfg['word_pair']} {cfg['word_corpus']} sentences"
    words = (f"{cfg['word_n']} distinct MUSE dictionary word pairs from "
             f"{sample_size(cfg['word_sentences'], corpus, first=True)}")
    pruned = [x for x in cfg["bli_prune"] if x in cfg["bli_langs"]]
    bli = (f"{cfg['bli_queries']} MUSE test source words per direction; candidates: wordfreq's top {cfg['bli_vocab']} "
           f"words plus the sample's translations; {', '.join(pruned) or 'no language'} pruned to its script")
    out = {}
    for d, (q, c) in (("xx-en", ("xx", "en")), ("en-xx", ("en", "xx"))):
        arrow = f"{q}->{c}: each {q} sentence queries the {c} sentences"
        out[f"tatoeba_nn_{d}"] = (arrow, "cosine, top-1 accuracy", tato)
        out[f"tatoeba_csls_{d}"] = (arrow, f"CSLS (k = {k}), top-1 accuracy", tato)
    mutual = "both: the pair must be the top-1 of its xx->en row and of its en->xx column"
    mexa = ("cosine; share of pairs whose similarity is strictly above every other in its row and column "
            "(MEXA's alignment score)")
    out["mexa"] = (mutual, mexa, tato)
    mteb = ("cosine top-1; support-weighted F1 of (gold, retrieved) as scikit-learn's f1_score(average='weighted') "
            "(MTEB's BitextMining main score), mean over languages")
    out["mteb_bitext_f1"] = ("xx->en: each xx sentence queries the en sentences (MTEB's sentence1 -> sentence2)",
                             mteb, tato)
    csls_nn = f"CSLS (k = {k}) nearest neighbour is the translation"
    out["s_weak"] = (f"{src}->{tgt}: each {src} word queries the {tgt} words of the sample", csls_nn, words)
    strong = f"{src}->{tgt}: each {src} word's {tgt} translation must be closer to it than every other {src} word"
    out["s_strong"] = (strong, f"CSLS (k = {k}) against the other {src} words (Gaschi et al.'s Eq. 3)", words)
    en_xx = "en->xx: en query words, xx candidates (" + ", ".join(f"en->{x}" for x in cfg["bli_langs"]) + ")"
    out["bli_nn"] = (en_xx, "cosine nearest neighbour, P@1 (no mapping)", bli)
    out["bli_csls"] = (en_xx, f"CSLS (k = {k}) nearest neighbour, P@1 (no mapping)", bli)
    x = cfg["btsr_lang"]
    btsr = (f"en-{x} set from {cfg['btsr_per_source']} XNLI + Tatoeba pairs, up to {cfg['btsr_candidates']} "
            f"candidates (seed {seed})")
    out["btsr_p1"] = (f"en->{x}: en word tokens query {x} word tokens in context",
                      ("cosine after an orthogonal Procrustes map (centred) fitted on token word-alignment anchors, P@1 "
                       "(ties shared in expectation)"), btsr)
    out["sts"] = ("none: each pair's two sentences are compared with each other",
                  "cosine of the pair against the gold score, Spearman x 100, mean over tracks",
                  f"STS 2017 {', '.join(cfg['sts_tracks'])}: "
                  + sample_size(cfg["sts_n"], "pairs of each track", first=True, total=totals.get("sts")))
    targets = ", ".join(x for x in cfg["xnli_langs"] if x != "en")
    xnli_dir = (f"en -> {targets}: trained on en (zero-shot) or on all languages (translate-train-all), "
                "tested on each target")
    xnli_scoring = (f"logistic regression (C = {cfg['xnli_C']}) on frozen [u, v, |u-v|, u*v]; accuracy of zero-shot "
                    "/ accuracy of translate-train-all x 100, mean over targets")
    xnli_sample = (f"XNLI Manual {', '.join(cfg['xnli_langs'])}: {sample_size(cfg['xnli_n_train'], 'train')} / "
                   f"{sample_size(cfg['xnli_n_test'], 'test rows per language')} (seed {seed})")
    out["xnli_transfer_rate"] = (xnli_dir, xnli_scoring, xnli_sample)
    out["xnli_zero_shot"] = (f"en -> {targets}: trained on en, tested on each target",
                             (f"logistic regression (C = {cfg['xnli_C']}) on frozen [u, v, |u-v|, u*v]; accuracy "
                              "over every target's test rows"), xnli_sample)
    return out


def _pooling_groups(mid: str, labels: list[str], encoder, output_label: str) -> list[dict]:
    groups: dict[str, list[str]] = {}
    for label in labels:
        if label == output_label and not label.isdigit():
            how = (f"the word fed alone as a text: {output_pooling(encoder)}" if mid.startswith("bli_")
                   else output_pooling(encoder))
        elif mid in WORD_MEASURES:
            how = WORD_IN_CONTEXT
        elif mid.startswith("bli_"):
            how = WORD_ALONE
        elif mid == "mexa" and hasattr(encoder, "mexa_pooling_receipt"):  # a decoder: MEXA's own weighting
            how = encoder.mexa_pooling_receipt
        else:  # an encoder that pools "mean" its own way says how (a decoder-only LLM leaves out its BOS)
            how = getattr(encoder, "mean_pooling_receipt", MEAN_POOLING)
        groups.setdefault(how, []).append(label)
    return [{"layers": ls, "pooling": how} for how, ls in groups.items()]


def measure_receipt(mid: str, labels: list[str], encoder, output_label: str, cfg: dict, data: list[dict]) -> dict:
    """The receipt of one card measure.

    Args:
        mid: the measure id (a key of :data:`xalign.card.battery.MEASURES`).
        labels: the layer labels the measure has values for, in order.
        encoder: the encoder the card ran (its ``prefix``, ``template``, sentence-transformers modules).
        output_label: the label of the model's own sentence embedding (``"out"``, or the last layer's
            label for an encoder whose own embedding is the mean of its last layer).
        cfg: the card's settings (``asdict(CardConfig)``).
        data: the records of the data files the measure's step read (data set, file, sha256, ...).

    Returns:
        ``{"pooling", "prefix", "template", "direction", "scoring", "sample", "data"}`` (see the module notes).

    Raises:
        KeyError: a measure this module has no protocol for (every card measure must have one).
    """
    protocols = _protocol(cfg)
    if mid not in protocols:
        raise KeyError(f"no receipt protocol for card measure {mid!r}; known: {', '.join(protocols)}")
    direction, scoring, sample = protocols[mid]
    return {"pooling": _pooling_groups(mid, labels, encoder, output_label),
            "prefix": str(getattr(encoder, "prefix", "") or ""), "template": getattr(encoder, "template", None),
            "direction": direction, "scoring": scoring, "sample": sample,
            "data": [{"dataset": d["dataset"], "file": d["file"], "sha256": d["sha256"]}
                     for d in sorted(data, key=lambda d: (d["dataset"], d["file"]))]}


def run_recorded(step, *args) -> dict:
    """Run one card step, recording the data files it reads.

    Args:
        step: a card step (``tatoeba``, ``sts``...): ``step(*args) -> {measure: {layer: value}}``.
        *args: its arguments (the card model and config).

    Returns:
        ``{"per_layer": step(*args), "seconds": wall time, "data": [file records]}``.
    """
    t0 = time.time()
    with files_used() as used:
        per_layer = step(*args)
    return {"per_layer": per_layer, "seconds": round(time.time() - t0, 1), "data": list(used.values())}


def attach_receipts(measures: dict[str, dict], steps: dict[str, dict], encoder, labels: list[str], cfg: dict) -> None:
    """Give each measure summary its receipt (in place), with the data files of the step that made it.

    Args:
        measures: measure id -> summary (``layers`` with a ``layer`` label each).
        steps: step name -> ``{"per_layer": {measure id: ...}, "data": [file records]}``.
        encoder: the encoder the card ran.
        labels: the card's layer labels (the output label is chosen among them).
        cfg: the card's settings.
    """
    from xalign.card.bitext import output_label

    for r in steps.values():
        for mid in r["per_layer"]:
            measures[mid]["receipt"] = measure_receipt(mid, [x["layer"] for x in measures[mid]["layers"]], encoder,
                                                       output_label(labels), cfg, r.get("data", []))


# ------------------------------------------------------------------ the page
def _layer_range(labels: list[str]) -> str:
    """``["0", "1", "2", "5", "out"]`` -> ``"0-2, 5, out"``."""
    parts, run = [], []
    for label in labels + [None]:
        if label is not None and label.isdigit() and run and int(label) == int(run[-1]) + 1:
            run.append(label)
            continue
        if run:
            parts.append(run[0] if len(run) == 1 else f"{run[0]}-{run[-1]}")
        run = [label] if label is not None and label.isdigit() else []
        if label is not None and not label.isdigit():
            parts.append(label)
    return ", ".join(parts)


def card_samples(card: dict) -> dict[str, str]:
    """measure id -> its sample in words, worded now from the card's settings (so that a card saved with an
    older wording, e.g. a size of None printed as "None", reads as every page does), with the measures'
    item counts as the totals behind "all"; {} for a card whose settings lack a field the wording needs
    (a card from before that field: its receipts' own words are shown)."""
    totals = {mid: r["layers"][0]["n"] for mid, r in card.get("measures", {}).items()
              if r.get("layers") and isinstance(r["layers"][0].get("n"), int)}
    try:
        return {mid: sample for mid, (_, _, sample) in _protocol(card.get("config") or {}, totals).items()}
    except KeyError:
        return {}


def receipts_markdown(card: dict, titles: dict[str, str] | None = None) -> list[str]:
    """The card page's receipts section: one row per measure, then the data files with their sha256.

    Args:
        card: a card dictionary (measures with a ``receipt``; a card written before receipts gives
            a one-line note).
        titles: measure id -> title (default: each measure's own ``title``).

    Returns:
        Markdown lines.
    """
    measures = {mid: r for mid, r in card.get("measures", {}).items() if r.get("receipt")}
    lines = ["## Receipts", ""]
    if not measures:
        return lines + ["This card was written before receipts were recorded: run `xalign card` again.", ""]
    files: dict[tuple, None] = {}  # in order of first use
    for r in measures.values():
        files.update(dict.fromkeys((d["dataset"], d["file"], d["sha256"]) for d in r["receipt"]["data"]))
    number = {key: i + 1 for i, key in enumerate(files)}
    samples = card_samples(card)
    title = {mid: (titles or {}).get(mid, r["title"]) for mid, r in measures.items()}
    lines += [("What produced each value: the layers and how each got its vector, the prefix put before every "
               "text, the direction searched and the scoring; the data files are numbered below with their sha256."),
              "", "| Measure | Layers: vector | Prefix | Direction | Scoring | Sample | Data |",
              "|---|---|---|---|---|---|---|"]
    for mid, r in measures.items():
        rc = r["receipt"]
        pooling = "; ".join(f"{_layer_range(g['layers'])}: {g['pooling']}" for g in rc["pooling"])
        prefix = repr(rc["prefix"]) if rc["prefix"] else "none"
        if rc.get("template"):
            prefix += f"; template {rc['template']!r}"
        used = ", ".join(str(number[(d["dataset"], d["file"], d["sha256"])]) for d in rc["data"]) or "none recorded"
        lines.append(f"| {text(title[mid])} | {text(pooling)} | {text(prefix)} | {text(rc['direction'])} | "
                     f"{text(rc['scoring'])} | {text(samples.get(mid, rc['sample']))} | {used} |")
    lines += ["", "| # | Data file | sha256 |", "|---|---|---|"]
    for key in files:
        dataset, file, sha = key
        lines.append(f"| {number[key]} | {code(f'{dataset}/{Path(file).name}', table=True)} | {code(sha, table=True)} |")
    return lines + [""]
