"""Sentence-embedding fine-tuning on English (Sentence-BERT recipe), checkpointed and cached.

The calibrated-retrieval paper fine-tunes each encoder as a siamese network
(Reimers and Gurevych 2019): Multiple Negatives Ranking loss on NLI
entailment pairs (anchor = premise, positive = entailed hypothesis, the other
positives of the batch are the negatives) and cosine-similarity loss on STS
Benchmark pairs (gold score / 5), mean pooling of the last layer. A
checkpoint is saved whenever another ``1 / checkpoints`` of the training
batches has been processed; the notebook picks the one with the best
validation retrieval.

Batches are single-task (in-batch negatives must be NLI pairs). With
``order="interleave"`` (default) the NLI batches of ``nli_epochs`` epochs and
the STS-B batches of ``sts_epochs`` epochs are shuffled together, so the
checkpoint after 10% of the steps has seen about 10% of each data set (the
paper's Fig. 2 axis); ``"sequential"`` trains on NLI first, then STS-B.

The model is a ``sentence_transformers.SentenceTransformer`` (Transformer +
mean Pooling) built from the encoder's checkpoint directory; the training
loop is ours (AdamW, linear warm-up and decay, gradient clipping at 1, as in
sentence-transformers' defaults) so that it needs neither ``datasets`` nor
``accelerate``. Each checkpoint is saved as a plain ``transformers``
directory that :func:`xalign.core.loading.load_encoder` reads. A finished run is
cached under ``$XALIGN_CACHE/finetuned/<key>``, the key being the base model
and its revision, the input prefix, the hyper-parameters (seed included), a
hash of the training data and of the training code (:func:`training_code_digest`);
it is written to a temporary directory and renamed into place when complete, so
an interrupted run leaves nothing behind and a rerun does not retrain.

Memory: a step keeps every layer's activations for the backward pass (2.1 GB
for e5-small's longest default-profile step). On a CPU a step whose estimate
exceeds ``activation_budget_gb`` (``ACTIVATION_BUDGET_GB``) recomputes the
activations of its first layers in the backward pass instead (:mod:`.activations`;
default profile: 20% of one forward pass more over the run): the weights and
losses are bit-identical. Large freed blocks go back to the system during
training (:func:`xalign.core.memory.freed_memory_returned`). Default profile, the
whole run after loading the chapter's encoders: peak RSS 4.3 GB -> 3.5 GB (with a
1 GB budget). In the whole chapter that still peaked at 4.0 GB (cold book run on
two cores), so the budget is 0.5 GB: on the run's six longest steps the memory
above the loaded model went from 1.98 to 1.64 GB, at no measurable cost in time.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from xalign.core import perturb
from xalign.core.code_closure import code_digest
from xalign.core.decoder import ensure_pad_token
from xalign.core.hashing import key_digest, text_hash
from xalign.core.memory import freed_memory_returned
from xalign.papers.calibrated2023.activations import Recompute, layers_to_recompute

ORDERS = ("interleave", "sequential")
ACTIVATION_BUDGET_GB = 0.5   # default on a CPU (see the module notes); None: keep every activation


@dataclass(frozen=True)
class SentenceFinetuneConfig:
    """Hyper-parameters (the paper's Table 10 columns, plus the loop's own)."""

    lr: float = 2e-5
    batch_size: int = 128
    warmup: float = 0.1          # fraction of all steps with linearly rising learning rate
    nli_epochs: int = 1
    sts_epochs: int = 10
    checkpoints: int = 10        # save after every 1/checkpoints of the steps
    max_length: int = 128        # tokens per sentence during training
    weight_decay: float = 0.01
    max_grad_norm: float = 1.0
    mnrl_scale: float = 20.0     # MultipleNegativesRankingLoss similarity scale
    freeze_embeddings: bool = False  # keep the (sub-)word embedding matrix fixed (saves CPU time)
    order: str = "interleave"
    seed: int = 0
    bf16: bool = False           # bfloat16 autocast of the forward pass (CPUs with AVX-512 BF16 / AMX, GPUs)

    def __post_init__(self):
        if self.order not in ORDERS:
            raise ValueError(f"order must be one of {ORDERS}, got {self.order!r}")
        if self.batch_size < 2:
            raise ValueError("batch_size must be at least 2 (in-batch negatives)")
        if not 0 <= self.warmup < 1:
            raise ValueError(f"warmup is a fraction of the steps in [0, 1), got {self.warmup}")
        if self.checkpoints < 1 or self.nli_epochs < 0 or self.sts_epochs < 0:
            raise ValueError("checkpoints must be >= 1 and epochs >= 0")


@dataclass
class FinetuneResult:
    """A finished run: its directory, the checkpoints and the training losses."""

    directory: Path
    checkpoints: list[tuple[float, Path]]   # (fraction of steps done, checkpoint directory)
    losses: pd.DataFrame                    # step, task, loss
    info: dict
    cached: bool = True                     # loaded from the cache rather than trained by this call

    @property
    def final(self) -> Path:
        return self.checkpoints[-1][1]


# ------------------------------------------------------------------ data
def nli_training_pairs(rows: Sequence[tuple[str, str, str]], hard_negatives: bool = False) -> list[tuple]:
    """(premise, entailed hypothesis) pairs from NLI rows; with ``hard_negatives`` triplets
    (premise, entailed, contradicted hypothesis) for premises that have both."""
    if not hard_negatives:
        return [(p, h) for p, h, y in rows if y == "entailment"]
    ent: dict[str, list[str]] = {}
    con: dict[str, list[str]] = {}
    for p, h, y in rows:
        (ent if y == "entailment" else con if y == "contradiction" else {}).setdefault(p, []).append(h)
    return [(p, e, c) for p in ent for e, c in zip(ent[p], con.get(p, []))]


def sts_training_pairs(rows: Sequence[tuple[str, str, float]], max_score: float = 5.0) -> list[tuple]:
    """(sentence1, sentence2, score / max_score) for the cosine-similarity loss."""
    return [(a, b, s / max_score) for a, b, s in rows]


def subsample(items: Sequence, n: int | None = None, fraction: float | None = None, seed: int = 0) -> list:
    """A seeded random subset of ``n`` items (or ``fraction`` of them), in a fixed shuffled order.

    Nested: for the same seed, a smaller ``n`` gives a prefix of a larger one.
    """
    items = list(items)
    order = np.random.default_rng(seed).permutation(len(items))
    if fraction is not None:
        if not 0 < fraction <= 1:
            raise ValueError(f"fraction must be in (0, 1], got {fraction}")
        n = max(1, round(fraction * len(items)))
    if n is None or n >= len(items):
        return [items[i] for i in order]
    return [items[i] for i in order[:n]]


def _batches(examples: list, batch_size: int, epochs: int, rng) -> list[list]:
    out = []
    for _ in range(epochs):
        perm = rng.permutation(len(examples))
        for s in range(0, len(perm), batch_size):
            batch = [examples[i] for i in perm[s : s + batch_size]]
            if len(batch) >= 2:
                out.append(batch)
    return out


def training_schedule(n_nli: int, n_sts: int, config: SentenceFinetuneConfig) -> list[tuple[str, list[int]]]:
    """The batches of a run as (task, example indices), in training order."""
    rng = np.random.default_rng(config.seed)
    nli = [("nli", b) for b in _batches(list(range(n_nli)), config.batch_size, config.nli_epochs, rng)]
    sts = [("sts", b) for b in _batches(list(range(n_sts)), config.batch_size, config.sts_epochs, rng)]
    steps = nli + sts
    if config.order == "interleave":
        steps = [steps[i] for i in rng.permutation(len(steps))]
    return steps


def checkpoint_steps(total: int, checkpoints: int) -> list[int]:
    """Steps (1-based) after which a checkpoint is saved: evenly spread, the last one at ``total``."""
    if total < 1:
        raise ValueError("no training steps")
    steps = sorted({max(1, round(total * k / checkpoints)) for k in range(1, checkpoints + 1)})
    return steps


# ------------------------------------------------------------------ model
def resolve_base(base: str | Path) -> tuple[str, str]:
    """(loadable source, revision) for a model name: the offline e5 alias, the packaged Gemma 3 270M (its
    converted folder, no network), a directory or a hub id."""
    from xalign.core.gemma_model import GEMMA_ALIASES, gemma_revision, materialize_gemma
    from xalign.core.offline_model import _OFFLINE_ALIASES, _local_revision, materialize_offline_model

    if str(base) in _OFFLINE_ALIASES:
        path = materialize_offline_model()
        return str(path), _local_revision(path)
    if str(base) in GEMMA_ALIASES:
        return str(materialize_gemma()), gemma_revision()
    if Path(base).expanduser().is_dir():
        path = Path(base).expanduser()
        return str(path), _local_revision(path)
    from xalign.core.pretrained import load_config

    cfg = load_config(str(base))
    return str(base), getattr(cfg, "_commit_hash", None) or "unknown"


def build_sentence_transformer(source: str, max_length: int = 128, device: str | None = None):
    """A SentenceTransformer of the checkpoint ``source``: Transformer + mean Pooling."""
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Pooling, Transformer

    from xalign.core.devices import default_device
    from xalign.core.pretrained import st_transformer_kwargs

    transformer = Transformer(source, max_seq_length=max_length, **st_transformer_kwargs())
    dim = (transformer.get_embedding_dimension() if hasattr(transformer, "get_embedding_dimension")
           else transformer.get_word_embedding_dimension())
    return SentenceTransformer(modules=[transformer, Pooling(dim, "mean")], device=device or default_device())


def save_checkpoint(model, directory: Path, info: dict) -> None:
    """Write the transformer of a SentenceTransformer as a plain `transformers` checkpoint."""
    directory.mkdir(parents=True, exist_ok=True)
    module = model[0]
    module.auto_model.save_pretrained(str(directory))
    module.tokenizer.save_pretrained(str(directory))
    (directory / "xalign_finetune.json").write_text(json.dumps(info, indent=2))


def train_steps(model, nli: list[tuple], sts: list[tuple], config: SentenceFinetuneConfig,
                prefix: str = "", on_checkpoint=None, progress: bool = True,
                activation_budget_gb: float | None = None) -> pd.DataFrame:
    """Run the training loop on ``model`` in place; returns the per-step losses (step, task, loss).

    ``on_checkpoint(step, fraction)`` is called after each checkpoint step. A step whose
    activations would exceed ``activation_budget_gb`` (None: no limit) recomputes those of its
    first layers in the backward pass (:func:`layers_to_recompute`; identical numbers).
    """
    import torch
    from sentence_transformers.sentence_transformer.losses import (
        CosineSimilarityLoss,
        MultipleNegativesRankingLoss,
    )
    from transformers import get_linear_schedule_with_warmup

    from xalign.core.progress import bar as progress_bar

    steps = training_schedule(len(nli), len(sts), config)
    if not steps:
        raise ValueError(f"nothing to train on: {len(nli)} NLI and {len(sts)} STS examples "
                         f"(batch size {config.batch_size})")
    total = len(steps)
    save_at = set(checkpoint_steps(total, config.checkpoints))
    torch.manual_seed(config.seed)
    if config.freeze_embeddings:
        model[0].auto_model.get_input_embeddings().weight.requires_grad_(False)
    losses = {"nli": MultipleNegativesRankingLoss(model, scale=config.mnrl_scale),
              "sts": CosineSimilarityLoss(model)}
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        (no_decay if ("bias" in name or "LayerNorm" in name or "layer_norm" in name) else decay).append(p)
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": config.weight_decay},
                             {"params": no_decay, "weight_decay": 0.0}], lr=config.lr)
    sched = get_linear_schedule_with_warmup(opt, math.ceil(config.warmup * total), total)
    device = model.device
    autocast = torch.autocast(device.type, dtype=torch.bfloat16, enabled=config.bf16)
    recompute = Recompute(model)
    hidden = int(getattr(model[0].auto_model.config, "hidden_size", 0) or 0)
    model.train()
    log = []
    bar = progress_bar(steps, desc="fine-tune", unit="step", disable=not progress)
    for step, (task, idx) in enumerate(bar, 1):
        data = nli if task == "nli" else sts
        batch = [data[i] for i in idx]
        n_text = 2 if task == "sts" else len(batch[0])
        features = []
        for c in range(n_text):
            f = model.preprocess([prefix + ex[c] for ex in batch])
            features.append({k: (v.to(device) if hasattr(v, "to") else v) for k, v in f.items()})
        tokens = sum(int(f["input_ids"].numel()) for f in features)
        recompute.set(layers_to_recompute(tokens, len(recompute.layers), hidden, activation_budget_gb))
        if task == "sts":
            labels = torch.tensor([ex[2] for ex in batch], dtype=torch.float32, device=device)
        else:
            labels = torch.zeros(len(batch), device=device)
        with autocast:
            loss = losses[task](features, labels)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), config.max_grad_norm)
        opt.step()
        sched.step()
        opt.zero_grad(set_to_none=True)
        log.append({"step": step, "task": task, "loss": float(loss.detach())})
        bar.set_postfix(task=task, loss=f"{log[-1]['loss']:.3f}")
        if step in save_at and on_checkpoint is not None:
            model.eval()
            on_checkpoint(step, step / total)
            model.train()
    bar.close()
    recompute.close()
    model.eval()
    return pd.DataFrame(log)


#: The functions whose code decides the trained weights (their digest is part of a run's key).
TRAINING_CODE = (SentenceFinetuneConfig, _batches, training_schedule, checkpoint_steps, build_sentence_transformer,
                 save_checkpoint, train_steps, Recompute)


def training_code_digest() -> str:
    """sha256 of the training code (:data:`TRAINING_CODE` and every xalign definition it reaches, by the
    memo's rule: :func:`xalign.core.code_closure.code_digest`) and of the versions of the packages it runs
    on; an edit of the loop or of a helper it calls retrains instead of serving old weights."""
    from importlib.metadata import PackageNotFoundError, version

    packages = []
    for pkg in ("torch", "transformers", "sentence-transformers"):
        try:
            packages.append(f"{pkg}=={version(pkg)}")
        except PackageNotFoundError:
            packages.append(f"{pkg} missing")
    return hashlib.sha256(json.dumps([code_digest(TRAINING_CODE), packages]).encode()).hexdigest()


def run_key(base: str, revision: str, prefix: str, nli: list[tuple], sts: list[tuple],
            config: SentenceFinetuneConfig) -> dict:
    """Everything a fine-tuned checkpoint depends on (its cache key): base model, data, config, code."""
    cfg = asdict(config)
    if not cfg["bf16"]:  # fields added later enter the key only when set
        del cfg["bf16"]
    return {"base": str(base), "revision": revision, "prefix": prefix,
            "config": cfg, "code": training_code_digest(),
            "nli": text_hash(["\t".join(map(str, ex)) for ex in nli]),
            "sts": text_hash(["\t".join(map(str, ex)) for ex in sts])}


def finetune_sentence_encoder(base: str | Path, nli: Sequence[tuple], sts: Sequence[tuple],
                              config: SentenceFinetuneConfig = SentenceFinetuneConfig(), prefix: str = "",
                              cache_root: str | Path | None = None, device: str | None = None,
                              progress: bool = True, activation_budget_gb: float | None | str = "auto"
                              ) -> FinetuneResult:
    """Fine-tune ``base`` on NLI pairs (MNRL) and STS pairs (cosine loss); cached by its key (:func:`run_key`).

    ``nli``: (anchor, positive) pairs or (anchor, positive, negative) triplets;
    ``sts``: (sentence1, sentence2, score in [0, 1]). ``prefix`` is prepended to
    every training text (e5's ``"query: "``, so that training sees the
    inputs the encoder sees at test time). ``activation_budget_gb``: see
    :func:`train_steps` (``"auto"``: ``ACTIVATION_BUDGET_GB`` on a CPU, no limit on a GPU;
    it does not change the result, so it is not part of the key). Returns the checkpoints.
    """
    from xalign.core.paths import cache_dir

    nli, sts = list(nli), list(sts)
    for i, ex in enumerate(sts):
        if len(ex) != 3 or not 0.0 <= float(ex[2]) <= 1.0:
            raise ValueError(f"sts[{i}] must be (sentence1, sentence2, score in [0, 1]), got {ex!r}")
    if nli and len({len(ex) for ex in nli}) != 1:
        raise ValueError("nli examples must all be pairs or all be triplets")
    source, revision = resolve_base(base)
    key = perturb.training_key(run_key(str(base), revision, prefix, nli, sts, config))  # a harness rerun retrains
    root = Path(cache_root) if cache_root else cache_dir("finetuned")
    out = root / key_digest(key)[:20]
    if (out / "done.json").exists():
        return load_run(out)

    root.mkdir(parents=True, exist_ok=True)
    tmp = root / f".{out.name}.part-{os.getpid()}"
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir()
    started = time.time()
    try:
        model = build_sentence_transformer(source, config.max_length, device)
        perturb.perturb_weights(model, key_digest(key))  # the variation harness only: weights moved at rounding scale,
        perturb.perturb_gradients(model, key_digest(key))  # and every gradient of every step
        ensure_pad_token(model[0].tokenizer)  # a decoder-only LLM's (Llama's) has none; padding is masked out
        if activation_budget_gb == "auto":
            activation_budget_gb = ACTIVATION_BUDGET_GB if model.device.type == "cpu" else None
        saved: list[dict] = []

        def on_checkpoint(step: int, fraction: float) -> None:
            name = f"ckpt-{len(saved) + 1:02d}"
            save_checkpoint(model, tmp / name, {"key": key, "step": step, "fraction": fraction})
            saved.append({"name": name, "step": step, "fraction": fraction})

        with freed_memory_returned():  # the training's freed memory goes back to the system
            losses = train_steps(model, nli, sts, config, prefix, on_checkpoint, progress, activation_budget_gb)
            model = None  # the weights and optimiser state too
        losses.to_csv(tmp / "losses.csv", index=False)
        info = {"key": key, "checkpoints": saved, "steps": len(losses),
                "n_nli": len(nli), "n_sts": len(sts), "seconds": round(time.time() - started, 1)}
        (tmp / "done.json").write_text(json.dumps(info, indent=2))
        try:
            os.replace(tmp, out)
        except OSError:  # another process finished the same run first
            if not (out / "done.json").exists():
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    result = load_run(out)
    result.cached = False
    return result


def load_run(directory: str | Path) -> FinetuneResult:
    """A finished (cached) run from its directory."""
    directory = Path(directory)
    info = json.loads((directory / "done.json").read_text())
    ckpts = [(c["fraction"], directory / c["name"]) for c in info["checkpoints"]]
    losses = pd.read_csv(directory / "losses.csv")
    return FinetuneResult(directory=directory, checkpoints=ckpts, losses=losses, info=info)
