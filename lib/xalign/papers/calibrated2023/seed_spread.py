"""How much chapter 3's fine-tuning moves with its seed: measured once, kept as data, read by the chapter.

One fine-tuning run of the default profile costs minutes, so the chapter runs one seed; the spread
over seeds is measured once by ``bench/finetune_seed_spread.py`` (:func:`seed_result` per seed,
:func:`spread_record` for the file) and stored in :data:`DATA_FILE`. The chapter reads it with
:func:`load_seed_spread`, which accepts it only for the same model, revision, input prefix,
precision and profile parameters (:func:`matched_parameters` of :data:`MATCHED_PARAMETERS`; the seed
excepted) and otherwise says why not, so that no spread measured for another configuration is shown.

A change with fine-tuning is claimed (:func:`seed_verdict`) only when every seed's change has the
same sign and is larger than the spread over seeds (max - min); otherwise it is unstable across
fine-tuning seeds.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from xalign.core import markup
from xalign.papers.calibrated2023.wording import change_phrase, ci_text, signed, verdict

FORMAT = 1
DATA_FILE = Path(__file__).with_name("finetune_seed_spread.json")
#: the profile's parameters a measured spread must share with the run that shows it (the seed excepted)
MATCHED_PARAMETERS = ("tatoeba_langs", "tatoeba_n", "val_pairs", "val_n", "ckpt_val_n", "sts_n", "method",
                      "compare_direction", "nli_pairs", "sts_pairs", "ft_lr", "ft_batch_size", "ft_warmup",
                      "ft_nli_epochs", "ft_sts_epochs", "ft_checkpoints", "ft_freeze_embeddings", "ft_bf16",
                      "ft_by_model")
TASKS = ("CLSR", "STS")


def matched_parameters(params: Mapping) -> dict:
    """The profile parameters a spread depends on (:data:`MATCHED_PARAMETERS`), JSON-comparable.

    Args:
        params: the chapter's parameters as results record them (``P.to_dict()``); a name missing is None.

    Returns:
        name -> value, lists and tuples as lists, comma strings ("a,b") as lists.
    """
    from xalign.core.profiles import as_list

    out = {}
    for name in MATCHED_PARAMETERS:
        v = params.get(name)
        if name in ("tatoeba_langs", "val_pairs"):
            v = list(as_list(v))
        out[name] = json.loads(json.dumps(v))
    return out


# ------------------------------------------------------------------ measuring (the bench)
def seed_result(model: str, encoder, layer: int, before_t5: pd.DataFrame, before_sts: pd.DataFrame,
                nli_train: list, sts_train: list, config, ckpt_val_n: int | None, *, tatoeba_langs: list[str] | str,
                val_pairs: list[str] | str, fig2_tatoeba_langs: list[str] | str, tatoeba_n: int | None,
                sts_n: int | None, method: str, compare_direction: str, sample_seed: int) -> dict:
    """Fine-tune ``model`` with one seed and score it as chapter 3 does (:func:`.experiments.run_calibration`).

    Args:
        model: the model name; ``encoder``: its loaded encoder (its ``prefix`` is the training prefix).
        layer: the layer chosen on validation before fine-tuning (kept after it).
        before_t5: Tatoeba rows of ``model`` before fine-tuning at ``layer`` (``report.tatoeba_at_best``).
        before_sts: STS 2017 rows of ``model`` before fine-tuning (``report.sts_rows``).
        nli_train, sts_train: the training pairs (the chapter's sample).
        config: the fine-tuning settings (:func:`.report.ft_config`); its ``seed`` is the fine-tuning seed
            (batch order, initial state of the run).
        ckpt_val_n: validation pairs per language pair that choose the checkpoint
            (:func:`.experiments.checkpoint_val_n`).
        tatoeba_langs ... compare_direction: the chapter's parameters of those names; ``sample_seed``: its
            ``seed`` (the samples and the intervals).

    Returns:
        ``seed``, ``checkpoint`` (step, fraction, validation % of the chosen one), ``checkpoints``
        (validation % of each), ``change`` (task -> points: CLSR = Tatoeba accuracy %, direction
        ``compare_direction``, mean over languages; STS = Spearman x 100, mean over tracks),
        ``languages`` (language -> Tatoeba change, points), ``seconds`` (training and scoring, wall).
    """
    from xalign.core.loading import load_encoder
    from xalign.core.profiles import as_list
    from xalign.papers.calibrated2023 import calibrated as cal
    from xalign.papers.calibrated2023 import finetune, report

    started = time.time()
    run = finetune.finetune_sentence_encoder(model, nli_train, sts_train, config, prefix=encoder.prefix)
    pairs = [tuple(p.split("-")) for p in as_list(val_pairs)]
    scored = cal.evaluate_checkpoints(run.checkpoints, prefix=encoder.prefix, val_n=ckpt_val_n,
                                      seed=sample_seed, sts_n=sts_n, tatoeba_langs=as_list(fig2_tatoeba_langs),
                                      tatoeba_n=tatoeba_n, method=method, val_pairs=pairs, layer=layer)
    chosen = cal.choose_checkpoint(scored)
    after = load_encoder(chosen["path"], prefix=encoder.prefix, progress=False)
    tat = cal.tatoeba_retrieval(after, as_list(tatoeba_langs), n=tatoeba_n, seed=sample_seed, layers=[layer],
                                method=method, keep_hits=True)
    t5 = report.tatoeba_at_best({model: tat}, {model: layer}, "sentence_embedding", seed=sample_seed)
    sts = report.sts_rows({model: after}, {model: layer}, "sentence_embedding", n=sts_n, seed=sample_seed)
    t5_all = pd.concat([before_t5, t5], ignore_index=True)
    t5_all = t5_all[t5_all.direction == compare_direction]
    per = report.language_changes(t5_all, seed=sample_seed)
    table1 = report.table1_rows(t5_all, pd.concat([before_sts, sts], ignore_index=True), seed=sample_seed)
    wide = table1.pivot_table(index="task", columns="setup", values="value")
    steps = {round(float(c["fraction"]), 6): int(c["step"]) for c in run.info["checkpoints"]}
    return {"seed": int(config.seed),
            "checkpoint": {"step": steps.get(round(float(chosen["fraction"]), 6)),
                           "fraction": float(chosen["fraction"]), "validation": float(chosen["validation"])},
            "checkpoints": {f"{float(f):.4f}": float(v) for f, v in zip(scored["fraction"], scored["validation"])},
            "change": {t: float(wide.loc[t, "sentence_embedding"] - wide.loc[t, "none"]) for t in TASKS},
            "languages": {r.lang: float(r.change) for r in per.itertuples()},
            "train_seconds": float(run.info.get("seconds", np.nan)), "seconds": round(time.time() - started, 1)}


def summary(values: Sequence[float]) -> dict:
    """Mean, SD (n - 1), min, max and spread (max - min) of per-seed numbers."""
    v = np.asarray(list(values), float)
    return {"mean": float(v.mean()), "sd": float(v.std(ddof=1)) if len(v) > 1 else float("nan"),
            "min": float(v.min()), "max": float(v.max()), "spread": float(v.max() - v.min())}


def spread_record(model: str, encoder, seeds: Sequence[int], results: Sequence[dict], *, config, matched: Mapping,
                  sample_seed: int, extra: Mapping = ()) -> dict:
    """The data file's content: what was run (model, revision, prefix, precision, parameters, seeds),
    each seed's numbers and their summary (:func:`summary`) per task and per language.

    ``config``: the fine-tuning settings (:func:`.report.ft_config`; its seed is left out); ``matched``: the
    parameters the spread depends on (:func:`matched_parameters`); ``sample_seed``: the chapter's ``seed``."""
    from xalign.core.precision import precision_of

    cfg = vars(config).copy()
    cfg.pop("seed")
    langs = list(results[0]["languages"]) if results else []
    return {"format": FORMAT, "model": model, "revision": encoder.revision, "prefix": encoder.prefix,
            "precision": precision_of(encoder), "training_precision": "bfloat16" if cfg.get("bf16") else "float32",
            "parameters": dict(matched), "sample_seed": int(sample_seed), "finetune_config": cfg,
            "seeds": [int(s) for s in seeds], "per_seed": list(results),
            "summary": {"change": {t: summary([r["change"][t] for r in results]) for t in TASKS},
                        "languages": {lang: summary([r["languages"][lang] for r in results]) for lang in langs}},
            **dict(extra)}


# ------------------------------------------------------------------ reading (the chapter)
@dataclass
class SeedSpread:
    """A measured seed spread for one model, or why there is none for this run (``reason``)."""

    model: str
    seeds: list[int] = field(default_factory=list)
    changes: dict = field(default_factory=dict)     # task -> per-seed changes (points), in ``seeds`` order
    languages: dict = field(default_factory=dict)   # language -> per-seed Tatoeba changes (points)
    chosen_steps: list = field(default_factory=list)  # the checkpoint step validation chose, per seed
    reason: str | None = None                       # why no spread is available (None: available)

    @property
    def available(self) -> bool:
        return self.reason is None and len(self.seeds) > 1

    def stats(self, task: str) -> dict:
        """:func:`summary` of the per-seed changes in ``task`` ("CLSR" or "STS")."""
        return summary(self.changes[task])


def load_seed_spread(matched: Mapping, model: str, encoder, path: str | Path | None = None) -> SeedSpread:
    """The measured seed spread of ``model``'s fine-tuning, if it was measured for this configuration.

    Args:
        matched: the run's parameters a spread depends on (:func:`matched_parameters`: the seed excepted).
        model: the model name; ``encoder``: its loaded encoder (revision, prefix, precision compared).
        path: the data file (default :data:`DATA_FILE`).

    Returns:
        A :class:`SeedSpread`; when the file is missing or was measured with anything else, one with
        ``reason`` saying what differs and no numbers.
    """
    from xalign.core.precision import precision_of

    path = Path(path) if path is not None else DATA_FILE
    if not path.is_file():
        return SeedSpread(model, reason="the seed spread has not been measured")
    data = json.loads(path.read_text())
    want = {"model": model, "revision": encoder.revision, "prefix": encoder.prefix,
            "precision": precision_of(encoder)}
    # the settings that differ, by name: a reader's page shows no Python values (lists, None)
    diffs = [k for k, v in want.items() if data.get(k) != v]
    params = dict(matched)
    stored = data.get("parameters", {})
    diffs += [k for k, v in params.items() if stored.get(k) != v]
    if data.get("format") != FORMAT:
        diffs.insert(0, "the file's format")
    if diffs:
        return SeedSpread(model, reason="the seed spread was measured with another configuration (other "
                          + ", ".join(diffs) + ")")  # e.g. "(other prefix, ft_steps)"
    runs = data["per_seed"]
    return SeedSpread(model, seeds=[int(r["seed"]) for r in runs],
                      changes={t: [float(r["change"][t]) for r in runs] for t in TASKS},
                      languages={lang: [float(r["languages"][lang]) for r in runs] for lang in runs[0]["languages"]},
                      chosen_steps=[r["checkpoint"]["step"] for r in runs])


def seed_verdict(changes: Sequence[float]) -> str:
    """Whether a change with fine-tuning holds across seeds.

    Args:
        changes: the change (points) with each fine-tuning seed.

    Returns:
        ``"up"`` / ``"down"`` when every seed's change is above / below zero by more than the spread
        (max - min) of the changes; ``"unstable"`` otherwise; ``"none"`` with fewer than two seeds.
    """
    v = np.asarray(list(changes), float)
    if len(v) < 2 or not np.isfinite(v).all():
        return "none"
    spread = float(v.max() - v.min())
    if (v > 0).all() and float(v.min()) > spread:
        return "up"
    if (v < 0).all() and float(-v.max()) > spread:
        return "down"
    return "unstable"


def range_text(values: Sequence[float], digits: int = 1) -> str:
    """``"+0.8 to +1.5 (SD 0.3)"``: the per-seed values' range and standard deviation (true minus signs)."""
    s = summary(values)
    return f"{signed(s['min'], digits)} to {signed(s['max'], digits)} (SD {s['sd']:.{digits}f})"


def spread_note(spread: Mapping[str, SeedSpread]) -> str:
    """One sentence per model for captions: the change in CLSR and STS over the measured fine-tuning seeds,
    or that no seed spread is available for this configuration (and why)."""
    parts = []
    for m, sp in spread.items():
        if not sp.available:
            parts.append(f"No seed spread is available for {markup.code(m)} in this configuration ({markup.text(sp.reason)}).")
            continue
        seeds = ", ".join(map(str, sp.seeds))
        tasks = "; ".join(f"{t} {range_text(sp.changes[t])}" for t in TASKS)
        parts.append(f"{markup.code(m)}'s change over {len(sp.seeds)} fine-tuning seeds ({seeds}; measured once): {tasks}.")
    return " ".join(parts)


def seed_change_phrase(value, lo, hi, seeds=None, unit: str = "points") -> str:
    """:func:`change_phrase` with the change over fine-tuning seeds: a rise or fall is claimed only when the
    interval excludes zero *and* every seed's change has that sign and exceeds the seeds' spread
    (:func:`seed_verdict`); otherwise it is "unstable across fine-tuning seeds".

    Args:
        value, lo, hi: this run's change and its 95% interval (points).
        seeds: the change with each measured fine-tuning seed; None: no seed spread is available (the
            interval alone words it; the caller says that the seeds' spread is unknown).
    """
    v = verdict(lo, hi)
    if seeds is None:
        return change_phrase(value, lo, hi, unit)
    over = f"{len(seeds)} fine-tuning seeds: {range_text(seeds)}"
    if v in ("up", "down"):
        if seed_verdict(seeds) == v:
            return f"{change_phrase(value, lo, hi, unit)}, and the change holds across {over}"
        return (f"changed by {signed(value)} {unit} ({ci_text(lo, hi)}) but is unstable across fine-tuning seeds "
                f"({over}), so no change is claimed")
    return f"{change_phrase(value, lo, hi, unit)}; over {over}"
