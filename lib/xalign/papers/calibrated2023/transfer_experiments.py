"""Chapter 3's cross-lingual transfer experiments on XNLI (Tables 2, 3, 4, 8, 9).

They follow :mod:`.experiments` (same conventions) in the chapter::

    xnli = run_transfer(P, setup, plain, calib, control, run)

A module of its own because it is the paper's second protocol: :mod:`.experiments` measures the
encoders (layer choice, Tatoeba and STS, the Sentence-BERT fine-tuning, the control of Table 1);
this one trains XNLI classifiers on them (zero-shot, translate-train-all, transfer rate) and
correlates the transfer with calibrated retrieval. It reads :mod:`.experiments` only through
the ``run_*`` results it is handed.

"translate-train-all" here trains on the union of XNLI Manual's training splits, which are *human*
translations (the XNLI dev and test sets); the paper trains on the machine-translated XNLI
training sets. Block names in the results keep the paper's ``translate_train_all``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import pandas as pd

from xalign.data.paper_tables import paper_table
from xalign.papers.calibrated2023 import calibrated as cal
from xalign.papers.calibrated2023 import correlations, report
from xalign.papers.calibrated2023.experiments import PAPER, Calibration, Control, NoFinetuning, Setup

#: the paper tables that print calibrated retrieval, zero-shot, translate-train-all, transfer rate
XNLI_TABLES = (("table8", "Table 8: 14 XNLI languages"), ("table3", "Table 3: five languages + avg"),
               ("table4", "Table 4: transfer rate, five languages + avg"))


# ------------------------------------------------------------------ transfer (Tables 2, 3, 4, 8, 9)
@dataclass
class Transfer:
    """Zero-shot, translate-train-all (on XNLI Manual's human translations), transfer rate, Urdu."""

    zero_shot: dict             # model -> accuracy per language after training on English (with hits)
    train_all: dict             # model -> accuracy per language after training on all languages
    urdu: dict                  # model -> accuracy per language after training on Urdu (None without ur)
    settings: pd.DataFrame      # model, setting, and what the classifier chose (C, validation accuracy, ...)
    blocks: pd.DataFrame        # model, block, lang, value, ci_lo, ci_hi; target languages and their avg
    per_model: pd.DataFrame     # model, lang and one column per block (target languages)
    across: pd.DataFrame        # Pearson r x 100 across languages, per model and pair of blocks
    compared: dict              # table -> frame compared with the paper (table9, table8, table3, table4, table2)
    urdu_rows: pd.DataFrame | None  # our Table 2 rows (accuracies, avg, gap), None without ur


def run_transfer(P, setup: Setup, plain: NoFinetuning, calib: Calibration, control: Control, run) -> Transfer:
    """XNLI Manual: zero-shot from English, training on every language's (human-translated) training
    split, the transfer rate, correlations, and zero-shot from Urdu.

    Records ``xnli_all``, ``correlations_across_languages`` and compares ``table9``, ``table8``,
    ``table3``, ``table4`` and (with Urdu among the languages) ``table2``.
    """
    langs = setup.xnli_langs
    targets = [x for x in langs if x != "en"]
    feats, data = control.features, control.data
    scores = partial(report.transfer_scores, feats=feats, data=data, xnli_method=P.xnli_method, xnli_Cs=P.xnli_Cs,
                     xnli_classifier=P.xnli_classifier, seed=P.seed, xnli_lrs=P.xnli_lrs,
                     xnli_batch_sizes=P.xnli_batch_sizes, xnli_seeds=P.xnli_seeds, xnli_epochs=P.xnli_epochs)
    zs, tta, ur, info = {}, {}, {}, []
    for m in setup.xnli_models:
        zs[m], i1 = scores(m, ["en"])
        tta[m], i2 = scores(m, langs)
        ur[m], i3 = scores(m, ["ur"]) if "ur" in langs else (None, {})
        info += [dict(model=m, setting=s, **i) for s, i in (("zero-shot (en)", i1), ("translate-train-all", i2),
                                                             ("zero-shot (ur)", i3))]
    # per language with 95% intervals; "avg" over the 14 target languages, their test rows resampled together
    xnli = pd.concat([report.xnli_rows(zs, "zero_shot", avg_over=targets, seed=P.seed),
                      report.xnli_rows(tta, "translate_train_all", avg_over=targets, seed=P.seed)], ignore_index=True)
    rate = report.rate_rows(zs, tta, avg_over=targets, seed=P.seed)
    calret = pd.concat([calib.t5[calib.t5.setup == "sentence_embedding"],
                        plain.t5[plain.t5.model.isin(setup.sentence_models)]])
    calret = report.calibrated_rows(calret[calret.direction == P.compare_direction], targets, seed=P.seed)
    blocks = pd.concat([xnli, rate, calret], ignore_index=True)
    blocks = blocks[blocks.lang != "en"]
    run.record("xnli_all", pd.concat([xnli, rate], ignore_index=True), title="XNLI Manual: zero-shot, "
               "translate-train-all, transfer rate, all languages and models, 95% bootstrap intervals "
               "(avg: over the 14 target languages)")
    compared = {"table9": _compare_table9(setup, zs, tta, run, seed=P.seed, xnli_method=P.xnli_method)}
    compared.update(_compare_tables_8_3_4(setup, blocks, run, xnli_method=P.xnli_method,
                                          compare_direction=P.compare_direction))
    per_model = blocks[blocks.lang != "avg"].pivot_table(index=["model", "lang"], columns="block",
                                                         values="value").reset_index()
    across = correlations.paper_correlations(per_model, over="lang", by="model", seed=P.seed)
    run.record("correlations_across_languages", across, title="Pearson r x 100 across the target languages, "
               "95% bootstrap interval (languages resampled)")
    ours2 = None
    if "ur" in langs:
        ours2 = report.urdu_rows(ur, "ur", seed=P.seed)
        compared["table2"] = cal.compare_counterparts(
            run, "table2", ours2, ["data", "lang"], setup.counterpart,
            title="Table 2: zero-shot transfer from Urdu, XNLI Manual",
            note="the XNLI (MT) block is not run: no Urdu MT training set")
    return Transfer(zero_shot=zs, train_all=tta, urdu=ur, settings=pd.DataFrame(info), blocks=blocks,
                    per_model=per_model, across=across, compared=compared, urdu_rows=ours2)


def _compare_table9(setup: Setup, zs: dict, tta: dict, run, *, seed: int, xnli_method: str) -> pd.DataFrame:
    """Table 9 (LaBSE's zero-shot and translate-train-all in all 15 languages; "avg" over all 15)."""
    ours9 = pd.concat([report.xnli_rows(zs, "zero_shot", seed=seed),
                       report.xnli_rows(tta, "translate_train_all", seed=seed)], ignore_index=True)
    return cal.compare_counterparts(run, "table9", ours9, ["block", "lang"],
                                    {m: c for m, c in setup.counterpart.items() if c == "LaBSE"},
                                    title="Table 9: zero-shot and translate-train-all, 15 languages",
                                    note=f"paper: LaBSE fine-tuned on MT XNLI; ours: XNLI Manual, {xnli_method}")


def _compare_tables_8_3_4(setup: Setup, blocks: pd.DataFrame, run, *, xnli_method: str,
                          compare_direction: str) -> dict[str, pd.DataFrame]:
    """Tables 8, 3 and 4; their correlation rows (across the paper's models) need >= 3 models."""
    ours8 = blocks[blocks.model.isin(setup.counterpart)][["model", "block", "lang", "value", "ci_lo", "ci_hi"]]
    several = len(setup.models) >= 3
    if several:
        wide8 = blocks[blocks.model.isin(setup.models)].pivot_table(index=["model", "lang"], columns="block",
                                                                    values="value").reset_index()
        corr = correlations.paper_correlations(wide8, over="model", by="lang", intervals=False).assign(
            model="all")
        ours8 = pd.concat([ours8, corr[["model", "block", "lang", "value"]]], ignore_index=True)
    mapping = {**setup.counterpart, "all": "all"} if several else setup.counterpart
    out = {}
    for table, title in XNLI_TABLES:
        paper = paper_table(PAPER, table)
        mine = ours8[ours8.block.isin(set(paper.block)) & ours8.lang.isin(set(paper.lang))]
        out[table] = cal.compare_counterparts(run, table, mine, ["block", "lang"], mapping, title=title,
                                              note=f"XNLI Manual, {xnli_method} protocol; calibrated retrieval "
                                                   f"{compare_direction}; correlations need >= 3 models",
                                              paper=paper)
    return out
