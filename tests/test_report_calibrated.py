"""Chapter 3's table assembly: intervals beside every sampled number, known answers."""

import numpy as np
import pandas as pd

from test_calibrated import FakeEncoder, tatoeba_loader
from xalign.data.paper_tables import paper_table
from xalign.papers.calibrated2023 import calibrated as cal
from xalign.papers.calibrated2023 import report


def _inside(frame):
    f = frame.dropna(subset=["ci_lo"])
    return bool(len(f)) and ((f.ci_lo <= f.value + 1e-9) & (f.value <= f.ci_hi + 1e-9)).all()


def test_tatoeba_rows_get_intervals_and_table1_averages_them():
    enc = FakeEncoder()
    tat = {"fake": cal.tatoeba_retrieval(enc, ["de", "fr"], n=20, loader=tatoeba_loader, keep_hits=True)}
    none = report.tatoeba_at_best(tat, {"fake": 0}, "none")  # layer 0: noise, accuracy well below 100
    assert {"ci_lo", "ci_hi", "hits"} <= set(none.columns)
    assert _inside(none) and none.loc[none.direction == "mean", "ci_lo"].isna().all()
    good = report.tatoeba_at_best(tat, {"fake": 1}, "sentence_embedding")
    assert (good.dropna(subset=["ci_lo"])[["ci_lo", "ci_hi"]] == 100).all().all()  # all hits: no width
    both = pd.concat([none, good])
    one_dir = both[both.direction == "xx->en"]
    sts = pd.DataFrame({"model": "fake", "setup": ["none", "sentence_embedding"], "track": "en-en",
                        "value": [50.0, 60.0]})
    t1 = report.table1_rows(one_dir, sts)
    clsr = t1[t1.task == "CLSR"].set_index("setup")
    assert clsr.loc["sentence_embedding", "value"] == 100 and _inside(clsr.reset_index())
    assert t1[t1.task == "STS"]["ci_lo"].isna().all()  # no per-pair items: no interval, not a made-up one
    ch = report.change_intervals(one_dir, sts)
    assert ch.task.tolist() == ["CLSR"] and ch.ci_lo.item() > 0  # 0 -> 100 is a real change


def _xnli(acc_by_lang, n=60, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for lang, acc in acc_by_lang.items():
        hits = rng.random(n) < acc
        rows.append({"lang": lang, "value": 100 * hits.mean(), "hits": hits})
    return pd.DataFrame(rows)


def test_xnli_blocks_rate_and_gap_have_intervals():
    zs = {"m": _xnli({"en": 0.8, "de": 0.7, "ur": 0.6})}
    tta = {"m": _xnli({"en": 0.82, "de": 0.78, "ur": 0.7}, seed=1)}
    rows = report.xnli_rows(zs, "zero_shot", avg_over=["de", "ur"])
    avg = rows[rows.lang == "avg"].iloc[0]
    assert avg.value == rows[rows.lang.isin(["de", "ur"])].value.mean() and avg.ci_lo < avg.value < avg.ci_hi
    assert "hits" not in rows and _inside(rows)
    rate = report.rate_rows(zs, tta, avg_over=["de", "ur"])
    de = rate[rate.lang == "de"].iloc[0]
    assert np.isclose(de.value, 100 * zs["m"].value[1] / tta["m"].value[1]) and _inside(rate)
    ur = report.urdu_rows({"m": _xnli({"en": 0.7, "de": 0.7, "ur": 0.5})})
    gap = ur[ur.lang == "gap"].iloc[0]
    assert gap.value < 0 and gap.ci_lo <= gap.value <= gap.ci_hi
    shown = report.show(rate.assign(paper=90.0, ours=rate.value, diff=rate.value - 90), ["model", "lang"],
                        ["block"])
    assert ("transfer_rate", report.CI) in shown.columns


def test_sts_rows_interval_from_pairs():
    def loader(track):
        return [(f"a:{i}", f"b:{i if i % 3 else i + 100}", float(i % 3 != 0) * 5) for i in range(30)]
    enc = FakeEncoder()
    df = cal.sts_scores(enc, ["en-en"], layers=[1], loader=loader, keep_items=True)
    assert df["items"].iloc[0].shape == (30, 2)
    rows = report._with_ci(df, seed=0)
    assert _inside(rows)


def test_known_answers_pass_on_the_fake_encoder_and_the_paper_table():
    enc = FakeEncoder()
    out = report.known_answers({"fake": enc}, [f"en:{i}" for i in range(20)], {"fake": 1},
                               paper_table("calibrated2023", "table8"))
    assert out["ok"].all(), out
    bad = report.known_answers({"fake": enc}, [f"en:{i}" for i in range(20)], {"fake": 1},
                               paper_table("calibrated2023", "table8").assign(value=lambda d: d.value + (d.block == "transfer_rate")))
    assert not bad["ok"].all()  # a transfer rate off by one point is caught


def test_ft_config_and_xnli_layer():
    from types import SimpleNamespace

    P = SimpleNamespace(ft_by_model={"m": {"lr": 5e-6, "sts_epochs": 5}}, ft_lr=None, ft_batch_size=32,
                        ft_warmup=None, ft_nli_epochs=2, ft_sts_epochs=None, ft_bf16=True, ft_checkpoints=4,
                        ft_freeze_embeddings=True, seed=3)
    cfg = report.ft_config("m", P)
    assert (cfg.lr, cfg.batch_size, cfg.nli_epochs, cfg.sts_epochs, cfg.bf16, cfg.seed) == (5e-6, 32, 2, 5, True, 3)
    assert report.ft_config("m", P, checkpoints=1).checkpoints == 1
    assert report.layer_for_xnli("m", {"m": 7}, "best") == 7 and report.layer_for_xnli("m", {"m": 7}, 3) == 3
    assert report.layer_for_xnli("usem3", {"m": 7}, "best") == -1


def test_finetune_caption_says_how_long_the_run_was_and_whether_it_moved():
    from types import SimpleNamespace

    run = SimpleNamespace(info={"steps": 4, "n_nli": 32, "n_sts": 32, "seconds": 18.5,
                                "key": {"config": {"batch_size": 16}}})
    deltas = pd.DataFrame({"model": ["m", "LaBSE"], "source": ["ours", "paper"], "change in CLSR": [0.0, -0.2],
                           "change in STS": [2.5, 6.2]})
    ci = pd.DataFrame({"model": ["m", "m"], "task": ["CLSR", "STS"], "ci_lo": [0.0, 1.0], "ci_hi": [0.0, 4.0]})
    text = report.finetune_caption({"m": run}, deltas, ci)
    assert "4 optimiser steps (batch 16) on 32 NLI + 32 STS-B pairs" in text
    assert "CLSR +0.0 [+0.0, +0.0] (within sampling noise)" in text
    assert "STS +2.5 [+1.0, +4.0]" in text and "STS +2.5 [+1.0, +4.0] (within" not in text


def test_notebook_03_defines_no_functions():
    import ast
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[1] / "notebooks" / "03_calibrated_retrieval_transfer_rate.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    defs = [n.lineno for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))]
    assert defs == [], f"function definitions at lines {defs}: they belong in calibrated2023/report.py"
