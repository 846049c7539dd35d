"""The thesis' MultiSent pipeline, step by step, so its configuration can be rerun.

Nyholm (2020) plugged multilingual BERT into SentEval. Reading its code
listing (Figure 1) next to SentEval's own code gives this input path:

1. SentEval's SNLI loader (which the thesis adapted for XNLI) opens every
   file as Latin-1 (``codecs.open(path, 'rb', 'latin-1')``) although XNLI is
   UTF-8, then splits on white space. Every non-ASCII character becomes two
   or three mojibake characters (:func:`latin1_mojibake`). SentEval's SST
   loader (the template for XED) reads UTF-8, so XED is spared this step.
2. The batcher calls ``tokenizer.encode(sent)`` on that *list of words*.
   In transformers 2.x/3.x a list of strings is taken as ready-made
   tokens: ``convert_tokens_to_ids`` looks each whole word up in the
   sub-word vocabulary, with no WordPiece splitting, and every word that is
   not itself a vocabulary entry becomes ``[UNK]`` (:func:`whole_word_ids`).
3. The sentence vector is the last layer's first token (``[CLS]``) of a
   model that was never fine-tuned, so that token was only ever trained
   through the next-sentence-prediction head.
4. The classifiers were SentEval's prototyping set-up: RMSprop, batch 128,
   tenacity 3, and for the SNLI template ``noreg`` with ``max_epoch=15,
   epoch_size=1``; the MLP had 5 sigmoid hidden units (:func:`thesis_probes`).

For a SentencePiece vocabulary (XLM-R, e5) a whole word's entry is the
word with the word-start marker ``"▁"``, so the lookup uses that form; for
a WordPiece vocabulary (mBERT) it is the word itself, exactly
``convert_tokens_to_ids``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np

from xalign.core.hashing import text_hash
from xalign.core.layers import parse_layers
from xalign.core.precision import precision_of
from xalign.data import taskdata
from xalign.data.tasks import Split, Task
from xalign.measures.probe import ProbeSpec
from xalign.measures.sentbank import SentenceBank, memo_bank, unique

SP_MARKER = "\u2581"


def latin1_mojibake(text: str) -> str:
    """What reading UTF-8 text as Latin-1 gives (SentEval's SNLI loader): ``"é"`` -> ``"Ã©"``."""
    return text.encode("utf-8").decode("latin-1")


def senteval_words(text: str, latin1: bool = True) -> list[str]:
    """SentEval's view of one line: (mojibake if ``latin1``) split on white space."""
    return (latin1_mojibake(text) if latin1 else text).split()


_VOCABS: dict[int, tuple] = {}


def vocab_of(tokenizer) -> dict:
    """``tokenizer.get_vocab()``, built once per tokenizer (a fast tokenizer rebuilds the dict, ~1 s, per call)."""
    hit = _VOCABS.get(id(tokenizer))
    if hit is None or hit[0] is not tokenizer:
        hit = (tokenizer, tokenizer.get_vocab())
        _VOCABS[id(tokenizer)] = hit
    return hit[1]


def word_start_marker(tokenizer) -> str:
    """``"▁"`` for a SentencePiece vocabulary, ``""`` for WordPiece."""
    vocab = vocab_of(tokenizer)
    n_marked = sum(1 for tok in list(vocab)[:5000] if tok.startswith(SP_MARKER))
    return SP_MARKER if n_marked > 100 else ""


def whole_word_ids(words: Sequence[str], tokenizer, marker: str | None = None,
                   vocab: dict | None = None) -> list[int]:
    """``tokenizer.encode(list_of_words)`` as in transformers 2.x: one vocabulary lookup per word.

    Words that are not vocabulary entries become the unknown token; an
    empty sentence becomes ``["."]`` (the batcher's first line); special
    tokens are added around the result.
    """
    marker = word_start_marker(tokenizer) if marker is None else marker
    vocab = vocab_of(tokenizer) if vocab is None else vocab
    unk = tokenizer.unk_token_id
    words = list(words) or ["."]
    ids = [vocab.get(marker + w, unk) for w in words]
    return with_special_tokens(ids, tokenizer)


def with_special_tokens(ids: list[int], tokenizer) -> list[int]:
    """``[CLS] ids [SEP]`` (BERT) / ``<s> ids </s>`` (XLM-R): the single-sentence template."""
    first = tokenizer.cls_token_id if tokenizer.cls_token_id is not None else tokenizer.bos_token_id
    last = tokenizer.sep_token_id if tokenizer.sep_token_id is not None else tokenizer.eos_token_id
    return ([first] if first is not None else []) + list(ids) + ([last] if last is not None else [])


def thesis_ids(texts: Sequence[str], tokenizer, latin1: bool = True) -> list[list[int]]:
    """Token ids of every text along the thesis' path (see the module docstring)."""
    marker, vocab = word_start_marker(tokenizer), vocab_of(tokenizer)
    return [whole_word_ids(senteval_words(t, latin1), tokenizer, marker, vocab) for t in texts]


def trace(text: str, tokenizer, latin1: bool = True) -> dict:
    """One sentence along the thesis' path next to ordinary tokenisation (for display)."""
    words = senteval_words(text, latin1)
    ids = whole_word_ids(words, tokenizer)
    return {"text": text, "SentEval words": " ".join(words),
            "thesis tokens": " ".join(tokenizer.convert_ids_to_tokens(ids)),
            "tokenizer(text)": " ".join(tokenizer.convert_ids_to_tokens(tokenizer(text)["input_ids"]))}


def unk_share(ids: Sequence[Sequence[int]], tokenizer) -> float:
    """Fraction of the non-special tokens that are the unknown token."""
    unk = tokenizer.unk_token_id  # looked up once: a tokenizer attribute costs microseconds per access
    special = set(tokenizer.all_special_ids) - {unk}
    toks = [t for seq in ids for t in seq if t not in special]
    return float(np.mean([t == unk for t in toks])) if toks else float("nan")


def encode_ids(enc, ids: Sequence[Sequence[int]], poolings: Sequence[str] = ("first", "mean"),
               layers=None) -> dict[str, np.ndarray]:
    """Run ``enc.model`` on given token ids; returns pooling -> (n, L, dim) float32.

    ``"first"``: the first token; ``"mean"``: mean over all tokens (special
    tokens included, like :meth:`xalign.core.encoders.Encoder.encode`). ``layers``: any
    :func:`xalign.core.layers.parse_layers` spec (None: all; out of range: a ``ValueError``).
    Batches are sorted by length; results are cached per chunk in ``enc.cache``.
    """
    layers = parse_layers(layers, enc.n_layers)
    ids = [list(map(int, s))[: enc.max_length] for s in ids]
    out = {p: np.zeros((len(ids), len(layers), enc.dim), np.float32) for p in poolings}
    for start in range(0, len(ids), enc.chunk_size):
        chunk = ids[start : start + enc.chunk_size]
        digest = text_hash([json.dumps(s) for s in chunk])
        keys = {p: {"model": enc.name, "revision": enc.revision, "pooling": f"token-ids-{p}",
                    "layers": layers, "precision": precision_of(enc),
                    "inputs": digest} for p in poolings}
        got = {p: enc.cache.get(k) for p, k in keys.items()}
        if any(v is None for v in got.values()):
            fresh = enc.forward_ids(chunk, poolings, layers)
            for p in poolings:
                enc.cache.put(keys[p], x=fresh[p])
                got[p] = {"x": fresh[p]}
        for p in poolings:
            out[p][start : start + len(chunk)] = got[p]["x"]
    return out


def thesis_bank(enc, texts: Sequence[str], latin1: bool = True, poolings: Sequence[str] = ("first", "mean"),
                keep_layers=None) -> tuple[SentenceBank, float]:
    """Sentence vectors along the thesis' input path; returns (bank, unknown-token share).

    The bank is keyed by the original texts, so it plugs into the same tasks;
    both are memoised in the encoder's cache (:func:`~xalign.measures.sentbank.memo_bank`).
    """
    texts = unique(texts)
    keep = parse_layers(keep_layers, enc.n_layers)

    def compute():
        ids = thesis_ids(texts, enc.tokenizer, latin1)
        vec = encode_ids(enc, ids, poolings, layers=keep)
        return SentenceBank(texts, vec, {p: keep for p in poolings}), unk_share(ids, enc.tokenizer)

    key = {"latin1": bool(latin1), "poolings": list(poolings), "keep": keep}
    return memo_bank("nyholm2020.thesis_bank", enc, texts, key, compute)


def thesis_probes(task: str = "xnli", max_epoch: int | None = None) -> list[ProbeSpec]:
    """The thesis' two classifiers in SentEval's prototyping configuration.

    ``"xnli"`` (SNLI template): no regularisation (``noreg``), ``epoch_size=1``;
    ``"xed"`` (SST template): SentEval's L2 grid chosen on dev. MLP: 5 sigmoid
    hidden units; LR: ``nhid=0``. SentEval caps SNLI at ``max_epoch=15``,
    which is some 46,000 updates on the 392,702 machine-translated training
    pairs the thesis had but under 300 on XNLI's 2,490 dev pairs (nothing
    trains); the default here is SentEval's general cap of 200 epochs, with
    early stopping. Pass ``max_epoch=15`` for the literal setting.
    """
    if task == "xnli":
        kw = {"config": "prototyping", "regs": (), "max_epoch": max_epoch or 200, "epoch_size": 1}
    elif task == "xed":
        kw = {"config": "prototyping", "regs": None, "max_epoch": max_epoch or 200}
    else:
        raise ValueError(f"task must be 'xnli' or 'xed', got {task!r}")
    return [ProbeSpec("MLP", kind="mlp", nhid=5, **kw), ProbeSpec("LR", kind="logreg", **kw)]


def thesis_task(task: Task, n_dev: int | None, seed: int = 0) -> Task:
    """``task`` plus the dev split the thesis' configuration early-stops on (SentEval's SplitClassifier).

    SentEval's SNLI template, which the thesis adapted for XNLI, selects and
    early-stops on a separate dev split (the thesis: XNLI dev, 2,490 pairs),
    not on 5 % of the training data. Our training rows are already drawn from
    XNLI dev, so the dev split is ``n_dev`` further rows of XNLI dev, whole
    premise groups that share no premise with the training rows (the same
    rows in every language, as the files are line-parallel).
    """
    lang = task.meta.get("train_lang")
    if lang is None:
        raise ValueError(f"thesis_task: task {task.name!r} has no meta['train_lang'] (not an XNLI task?)")
    if not n_dev or n_dev < 3:
        raise ValueError(f"thesis_task: xnli_dev_pairs must be at least 3 (one premise group), got {n_dev!r}")
    pairs = taskdata.xnli_pairs(lang, "dev")
    groups = taskdata.premise_groups(pairs)
    used_premises = set(task.train.texts[0])
    used = np.unique(groups[[i for i, p in enumerate(pairs) if p.premise in used_premises]])
    free = np.flatnonzero(~np.isin(groups, used))
    if len(free) < 3:
        raise ValueError(f"thesis_task: xnli_train_pairs leaves no XNLI dev rows of {lang!r} for a dev split; "
                         f"train on fewer pairs (at most {len(pairs) - n_dev}) or set xnli_dev_pairs")
    pick = free[taskdata.sample_groups(len(free), groups[free], n_dev, seed + 1)]
    chosen = [pairs[i] for i in pick]
    dev = Split(([p.premise for p in chosen], [p.hypothesis for p in chosen]), taskdata.nli_label_ids(chosen))
    return Task(task.name, task.train, task.test, task.n_classes, dev=dev,
                meta={**task.meta, "n_dev": len(chosen)})


def unk_by_language(langs: Sequence[str], tokenizer, n: int | None = None, seed: int = 0,
                    latin1: bool = True) -> dict[str, float]:
    """Share of words that become the unknown token on the thesis' path, per XNLI language.

    Tokenizer work only (no encoding): ``n`` test rows per language (premises
    and hypotheses), so it is cheap for all 15 languages.
    """
    out = {}
    for lang in langs:
        texts = unique([t for p in taskdata.xnli_pairs(lang, "test", n, seed) for t in (p.premise, p.hypothesis)])
        out[lang] = unk_share(thesis_ids(texts, tokenizer, latin1), tokenizer)
    return out
