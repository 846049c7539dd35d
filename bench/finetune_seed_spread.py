"""How much chapter 3's fine-tuning moves with its seed (issue 33): the default profile, several seeds.

Runs the chapter's fine-tuning (profile ``default`` unless ``--profile``) once per seed, everything
else as the profile says: the chapter's layer choice, its training sample, its checkpoint choice on
WMT21 validation, then Tatoeba (at the chosen layer, the chapter's sample) and STS 2017 of the chosen
checkpoint, the change before -> after per language and averaged. Writes the result as data (by
default the file the chapter reads, ``xalign/papers/calibrated2023/finetune_seed_spread.json``) and
prints a table with the wall time of each seed:

    python bench/finetune_seed_spread.py                      # seeds: the profile's and the next two
    python bench/finetune_seed_spread.py --seeds 0 1 2 --out spread.json

The fine-tuned checkpoints are cached by key (the profile's seed's run is the one the book uses),
and so are the checkpoint scores, so a rerun only re-reads them. One seed of the default profile is
about half an hour of training on two CPU cores.
"""

from __future__ import annotations

import argparse
import json
import time
from functools import partial
from pathlib import Path

from xalign.papers.calibrated2023 import seed_spread as S


def measure(profile: str = "default", seeds=None, model: str | None = None, overrides: dict | None = None,
            out: Path | None = None, log=print) -> dict:
    """Run the seeds and return (and with ``out``, write) :func:`seed_spread.spread_record`'s record.

    Args:
        profile: the chapter's profile; ``overrides``: parameters replacing the profile's (tests).
        seeds: fine-tuning seeds (default: the profile's seed and the next two).
        model: the model fine-tuned (default: the profile's first).
        out: the JSON file written after every seed (so an interrupted run keeps the seeds done).
    """
    from transformers.utils import logging as hf_logging

    from xalign.core.loading import load_encoder
    from xalign.core.profiles import as_list
    from xalign.data import sentdata
    from xalign.papers.calibrated2023 import calibrated as cal
    from xalign.papers.calibrated2023 import finetune, report
    from xalign.papers.calibrated2023.experiments import checkpoint_val_n
    from xalign.papers.meta import checked_parameters

    hf_logging.set_verbosity_error()
    P = checked_parameters("calibrated2023", profile, overrides or {})
    ft_config = partial(report.ft_config, ft_by_model=P.ft_by_model, ft_lr=P.ft_lr, ft_batch_size=P.ft_batch_size,
                        ft_warmup=P.ft_warmup, ft_nli_epochs=P.ft_nli_epochs, ft_sts_epochs=P.ft_sts_epochs,
                        ft_checkpoints=P.ft_checkpoints, ft_freeze_embeddings=P.ft_freeze_embeddings, seed=P.seed,
                        ft_bf16=P.ft_bf16)  # the chapter's (experiments.run_calibration)
    seeds = [int(s) for s in (seeds if seeds is not None else (P.seed, P.seed + 1, P.seed + 2))]
    model = model or as_list(P.models)[0]
    started = time.time()
    enc = load_encoder(model, progress=False)
    nli = finetune.subsample(finetune.nli_training_pairs(sentdata.snli_rows(("dev", "test"))), P.nli_pairs,
                             seed=P.seed)
    sts = finetune.subsample(finetune.sts_training_pairs(sentdata.stsbenchmark_pairs("train")), P.sts_pairs,
                             seed=P.seed)
    for seed in seeds:  # train every seed first (cached by key): scoring below re-reads the runs
        finetune.finetune_sentence_encoder(model, nli, sts, ft_config(model, seed=seed), prefix=enc.prefix)
        log(f"seed {seed} trained: {time.time() - started:.0f} s")
    val_pairs = [tuple(p.split("-")) for p in as_list(P.val_pairs)]
    val = cal.validation_retrieval(enc, val_pairs, n=P.val_n, seed=P.seed, method=P.method)
    layer = cal.validation_best_layer(val)
    tat = cal.tatoeba_retrieval(enc, as_list(P.tatoeba_langs), n=P.tatoeba_n, seed=P.seed, method=P.method,
                                keep_hits=True)
    before_t5 = report.tatoeba_at_best({model: tat}, {model: layer}, "none", seed=P.seed)
    before_sts = report.sts_rows({model: enc}, {model: layer}, "none", n=P.sts_n, seed=P.seed)
    log(f"{model} ({enc.prefix!r}, {enc.revision}): layer {layer}; trained and scored before "
        f"fine-tuning: {time.time() - started:.0f} s")
    results, record = [], {}
    for seed in seeds:
        results.append(S.seed_result(model, enc, layer, before_t5, before_sts, nli, sts, ft_config(model, seed=seed),
                                     checkpoint_val_n(P.ckpt_val_n, P.val_n), tatoeba_langs=P.tatoeba_langs,
                                     val_pairs=P.val_pairs, fig2_tatoeba_langs=P.fig2_tatoeba_langs,
                                     tatoeba_n=P.tatoeba_n, sts_n=P.sts_n, method=P.method,
                                     compare_direction=P.compare_direction, sample_seed=P.seed))
        r = results[-1]
        log(f"seed {seed}: step {r['checkpoint']['step']}, CLSR {r['change']['CLSR']:+.2f}, "
            f"STS {r['change']['STS']:+.2f} ({r['seconds']:.0f} s)")
        record = S.spread_record(model, enc, seeds[:len(results)], results, config=ft_config(model),
                                 matched=S.matched_parameters(P.to_dict()), sample_seed=P.seed,
                                 extra={"profile": profile, "layer": int(layer),
                                        "wall_seconds": round(time.time() - started, 1)})
        if out is not None:
            Path(out).parent.mkdir(parents=True, exist_ok=True)
            Path(out).write_text(json.dumps(record, indent=1) + "\n")
    return record


def table(record: dict) -> str:
    """The record as a short text table: one row per seed, then mean, SD and min-max."""
    lines = [f"{'seed':>8} {'step':>5} {'val %':>7} {'CLSR':>7} {'STS':>7} {'wall s':>7}"]
    for r in record["per_seed"]:
        lines.append(f"{r['seed']:>8} {r['checkpoint']['step']!s:>5} {r['checkpoint']['validation']:>7.2f} "
                     f"{r['change']['CLSR']:>+7.2f} {r['change']['STS']:>+7.2f} {r['seconds']:>7.0f}")
    s = record["summary"]["change"]
    for name, key in (("mean", "mean"), ("SD", "sd"), ("min", "min"), ("max", "max")):
        lines.append(f"{name:>8} {'':>5} {'':>7} {s['CLSR'][key]:>+7.2f} {s['STS'][key]:>+7.2f}")
    lines.append(f"wall time {record.get('wall_seconds', float('nan')):.0f} s")
    return "\n".join(lines)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profile", default="default")
    ap.add_argument("--seeds", type=int, nargs="+", default=None)
    ap.add_argument("--model", default=None)
    ap.add_argument("--out", type=Path, default=S.DATA_FILE)
    args = ap.parse_args(argv)
    record = measure(args.profile, args.seeds, args.model, out=args.out)
    print(table(record))


if __name__ == "__main__":
    main()
