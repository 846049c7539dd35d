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
    cfg = report.ft_config("m", **vars(P))  # the keywords are the parameters' names
    assert (cfg.lr, cfg.batch_size, cfg.nli_epochs, cfg.sts_epochs, cfg.bf16, cfg.seed) == (5e-6, 32, 2, 5, True, 3)
    assert report.ft_config("m", **vars(P), checkpoints=1).checkpoints == 1
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
    assert "CLSR 0.0 [0.0, 0.0] (within sampling noise)" in text
    assert "STS +2.5 [+1.0, +4.0]" in text and "STS +2.5 [+1.0, +4.0] (within" not in text


def test_notebook_03_defines_no_functions():
    import ast
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[1] / "notebooks" / "03_calibrated_retrieval_transfer_rate.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    defs = [n.lineno for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))]
    assert defs == [], f"function definitions at lines {defs}: they belong in calibrated2023/report.py"


# ------------------------------------------------------------------ the page: flat tables and generated prose
def _merged():
    rows = []
    for setup, shift in (("none", 0.0), ("sentence_embedding", 1.0)):
        for lang, paper in (("de", 95.0), ("sw", 80.0)):
            ours = paper - 2 + shift
            rows.append({"model": "LaBSE", "setup": setup, "lang": lang, "paper": paper, "ours": ours,
                         "ci_lo": ours - 1.5, "ci_hi": ours + 1.5, "diff": ours - paper,
                         "ours_model": "multilingual-e5-small"})
    rows.append({"model": "LaBSE", "setup": "qa", "lang": "de", "paper": 94.0, "ours": np.nan, "ci_lo": np.nan,
                 "ci_hi": np.nan, "diff": np.nan, "ours_model": np.nan})
    return pd.DataFrame(rows)


def test_comparison_table_is_flat_with_readable_headers_and_intervals():
    from xalign.papers.calibrated2023 import views

    table, short = views.comparison_table(_merged(), ["setup", "lang"], by="setup")
    assert not isinstance(table.columns, pd.MultiIndex) and list(table["language"]) == ["de", "sw"]
    assert short[0] == "language" and "paper model" not in short  # one pair of models: named in the caption
    assert "before: paper" in short and "after: 95% CI" in short and "after: diff" in short
    assert "QA: paper" in table  # the paper's QA block is in the full table
    assert table.loc[0, "before: 95% CI"] == "[91.5, 94.5]"
    assert table["QA: ours"].isna().all() and table.loc[0, "QA: paper"] == 94.0
    assert table["our model"].eq("multilingual-e5-small").all()  # filled in where only the paper has a value
    long, short_long = views.comparison_table(_merged(), ["setup", "lang"], diff_in_short=False)
    assert len(long) == 5 and views.DIFF_COLUMN in long and views.DIFF_COLUMN not in short_long
    assert views.models_compared(_merged()) == "multilingual-e5-small vs the paper's LaBSE"
    assert views.interval_text(np.nan, 2.0) is None
    # averages last within their block; a group with no number of ours only in the full table
    blocks = pd.DataFrame({"model": "LaBSE", "ours_model": "m", "block": ["zero_shot"] * 3 + ["transfer_rate"] * 2,
                           "lang": ["avg", "de", "fr", "avg", "de"], "paper": 1.0, "ours": 2.0, "diff": 1.0})
    table, _ = views.comparison_table(blocks, ["block", "lang"])
    assert list(table["language"]) == ["de", "fr", "average", "de", "average"]
    assert table["measure"].tolist()[:3] == ["zero-shot (from en)"] * 3
    _, short = views.comparison_table(_merged(), ["setup", "lang"], by="setup")
    assert not any(c.startswith("QA: ") for c in short)
    assert [c.split(":")[0] for c in short[1:]] == ["before"] * 4 + ["after"] * 4


def test_change_phrase_picks_its_words_from_the_interval():
    from xalign.papers.calibrated2023 import evidence

    assert evidence.change_phrase(2.5, 1.0, 4.0).startswith("rose by 2.5 points (95% CI [+1.0, +4.0])")
    assert evidence.change_phrase(-3.0, -5.0, -1.0).startswith("fell by 3.0 points")
    assert evidence.change_phrase(0.4, -0.3, 1.1) == ("did not move beyond sampling noise (+0.4 points, 95% CI "
                                                      "[-0.3, +1.1])")
    assert evidence.change_phrase(0.0, 0.0, 0.0) == "did not change at all (every resample gives 0)"
    assert "no conclusion" in evidence.change_phrase(1.0, np.nan, 2.0)
    for args in [(0.0, 0.0, 0.0), (0.0, -0.1, 0.1), (1e-9, 0.0, 1e-9)]:  # never "by 0.0 ... to 0.0"
        text = evidence.change_phrase(*args)
        assert "by 0.0" not in text and "rose" not in text and "fell" not in text


def _deltas(ours_clsr):
    return pd.DataFrame({"model": ["LaBSE", "mBERT", "m"], "source": ["paper", "paper", "ours"],
                         "change in CLSR": [-0.2, 5.6, ours_clsr], "change in STS": [6.2, 20.2, 3.0]})


def test_calibration_effect_and_headline_follow_the_numbers():
    from types import SimpleNamespace

    from xalign.papers.calibrated2023 import evidence

    per = pd.DataFrame({"model": "m", "lang": ["de", "sw", "jv"], "change": [0.5, 6.0, -4.0],
                        "ci_lo": [-1.0, 2.0, -7.0], "ci_hi": [2.0, 9.0, -1.0]})
    setup = SimpleNamespace(models=["m"], counterpart={"m": "LaBSE"})
    for clsr, (lo, hi), verb in ((3.0, (1.0, 5.0), "raises"), (-2.0, (-3.0, -1.0), "lowers"),
                                 (0.3, (-0.5, 1.1), "changes")):
        ci = pd.DataFrame({"model": "m", "task": ["CLSR", "STS"], "ci_lo": [lo, 1.0], "ci_hi": [hi, 5.0]})
        text = " ".join(evidence.calibration_effect(_deltas(clsr), ci, per, {"m": "LaBSE"}))
        assert "mBERT +5.6" in text and "where the paper's LaBSE changes by -0.2" in text
        assert "m's average Tatoeba retrieval" in text and "its STS 2017 (Spearman x 100) rose by 3.0 points" in text
        assert "1 rise and 1 fall beyond their own 95% interval (falling: jv)" in text
        line = evidence.headline(setup, SimpleNamespace(deltas=_deltas(clsr), change_ci=ci))
        assert line.startswith(f"English sentence-embedding fine-tuning {verb} m's average Tatoeba retrieval")
        assert ("within sampling noise" in line) == (verb == "changes") and "the paper's LaBSE: -0.2" in line
    ci = pd.DataFrame({"model": "m", "task": ["CLSR"], "ci_lo": [0.0], "ci_hi": [0.0]})
    line = evidence.headline(setup, SimpleNamespace(deltas=_deltas(0.0), change_ci=ci))
    assert "exactly where it was" in line and "(0.0 points, 95% CI [0.0, 0.0])" in line and "by 0.0" not in line
    assert evidence.signed(-0.01) == "0.0" and evidence.signed(-1.26) == "-1.3"
    quiet = per.assign(ci_lo=-10.0, ci_hi=10.0)
    assert "none of its 3 languages changes beyond its own 95% interval" in evidence.language_sentence("m", quiet)
    still = quiet.assign(change=0.0, ci_lo=0.0, ci_hi=0.0)
    text = evidence.language_sentence("m", still)
    assert "no language's accuracy changes" in text and "from 0.0" not in text


def test_transfer_urdu_and_correlation_sentences():
    from xalign.papers.calibrated2023 import evidence

    blocks = pd.DataFrame([
        {"model": "m", "block": "zero_shot", "lang": "avg", "value": 60.0, "ci_lo": 58.0, "ci_hi": 62.0},
        {"model": "m", "block": "translate_train_all", "lang": "avg", "value": 70.0, "ci_lo": 68.0, "ci_hi": 72.0},
        {"model": "m", "block": "transfer_rate", "lang": "avg", "value": 85.7, "ci_lo": 83.0, "ci_hi": 88.0}])
    text = " ".join(evidence.transfer_sentences(blocks, ["m"], "a logistic regression on frozen sentence features"))
    assert "falls short of training on every language's data" in text and "human-translated" in text
    assert "no like-for-like reference" in text
    near = blocks.assign(ci_hi=lambda d: d.ci_hi.where(d.block != "transfer_rate", 101.0))
    assert "within sampling noise" in " ".join(evidence.transfer_sentences(near, ["m"], "p"))
    ur = pd.DataFrame({"model": "m", "lang": ["gap"], "value": [-4.0], "ci_lo": [-6.0], "ci_hi": [-2.0]})
    paper2 = pd.DataFrame({"data": "xnli_manual", "model": "LaBSE", "lang": ["gap"], "value": [-3.1]})
    assert evidence.urdu_sentence(ur, {"m": "LaBSE"}, paper2)[0] == (
        "Trained on Urdu, m: the other languages beat the source language, a negative transfer gap (-4.0 points, "
        "95% CI [-6.0, -2.0]; the paper's LaBSE on XNLI Manual: -3.1).")
    assert "within sampling noise" in evidence.urdu_sentence(ur.assign(ci_hi=1.0), {"m": "LaBSE"})[0]
    assert evidence.urdu_sentence(None, {}) == []
    across = pd.DataFrame({"model": "m", "block": ["corr_zero_shot_translate_train_all", "corr_zero_shot_calibrated"],
                           "value": [80.0, 40.0], "n": 14})
    assert "is not established" in evidence.correlation_sentence(across)[0]
    with_ci = across.assign(ci_lo=[60.0, 10.0], ci_hi=[95.0, 55.0])
    assert "with training on all languages is the stronger" in evidence.correlation_sentence(with_ci)[0]


def test_paper_gains_state_per_language_gains_and_the_languages_that_fall():
    from xalign.papers.calibrated2023 import evidence

    text = evidence.paper_gains(paper_table("calibrated2023", "table5"))
    assert "XLM-R +47.4" in text and "up to +70.3 (XLM-R, ml)" in text
    assert "mBERT in el and jv" in text and "LaBSE in 23 of 36 languages" in text
    assert "all languages" not in text


def test_language_changes_pair_the_same_sentences():
    rng = np.random.default_rng(0)
    before = rng.random(100) < 0.5
    t = pd.DataFrame([{"model": "m", "setup": "none", "lang": "de", "value": 100 * before.mean(), "hits": before},
                      {"model": "m", "setup": "sentence_embedding", "lang": "de", "value": 100.0,
                       "hits": np.ones(100, bool)}])
    out = report.language_changes(t)
    assert out.change.item() == 100 - 100 * before.mean() and 0 < out.ci_lo.item() <= out.change.item() <= out.ci_hi.item()


def test_checkpoint_and_control_sentences_say_when_nothing_moved():
    from types import SimpleNamespace

    from xalign.papers.calibrated2023 import evidence

    run = SimpleNamespace(info={"steps": 4, "checkpoints": [{"fraction": 0.5, "step": 2}, {"fraction": 1.0, "step": 4}]})
    ckpt = pd.DataFrame({"fraction": [0.5, 1.0], "validation": [100.0, 100.0], "sts": [53.87, 53.66]})
    text = evidence.checkpoint_sentence({"m": run}, {"m": ckpt.iloc[0]}, {"m": ckpt})[0]
    assert "checkpoint at 50% of the 4 optimiser steps (step 2)" in text
    assert "validation retrieval does not move and STS moves by -0.2 points" in text
    control = pd.DataFrame({"model": "m", "state": ["before", "after"], "targets / source x 100": [71.4, 71.4]})
    text = evidence.control_sentence(control)[0]
    assert "71.4% after (no interval)" in text and "does not say whether" in text and "only" not in text
    paired = control.assign(ci_lo=[60.0, 60.0], ci_hi=[80.0, 80.0], change=[np.nan, 0.0],
                            change_ci_lo=[np.nan, 0.0], change_ci_hi=[np.nan, 0.0])
    text = evidence.control_sentence(paired)[0]
    assert "71.4% after (95% CI [60.0, 80.0])" in text and "did not change at all" in text
    assert "detects no change" in text and "only" not in text
    moved = paired.assign(**{"targets / source x 100": [71.4, 80.4], "change_ci_lo": [np.nan, 3.0],
                             "change_ci_hi": [np.nan, 15.0]})
    assert "the ratio rose by 9.0 points (95% CI [+3.0, +15.0])" in evidence.control_sentence(moved)[0]


def test_checkpoint_caption_and_sentence_state_steps_queries_margin_and_final_change():
    """Finding 12 of #34: the choice is stated with its step, the queries behind it, its margin over the
    next checkpoint, and what the final checkpoint changes."""
    from types import SimpleNamespace

    from xalign.papers.calibrated2023 import evidence, views

    run = SimpleNamespace(info={"steps": 96, "checkpoints": [{"fraction": f, "step": s} for f, s in
                                                             ((0.25, 24), (0.5, 48), (0.75, 72), (1.0, 96))]})
    ckpt = pd.DataFrame({"fraction": [0.25, 0.5, 0.75, 1.0], "path": ["a", "b", "c", "d"],
                         "validation": [90.0, 91.5, 91.0, 90.5], "sts": [80.0, 81.0, 82.0, 83.5],
                         "n_queries": 2000, "layer": 4})
    chosen = {"m": ckpt.iloc[1]}
    caption = evidence.checkpoint_caption({"m": run}, chosen, {"m": ckpt})
    assert "m: validation chose step 48 of 96 (2,000 validation queries, ahead of the next checkpoint by " \
           "10 queries); the final checkpoint: validation -1.0, STS +2.5 points" in caption
    text = evidence.checkpoint_sentence({"m": run}, chosen, {"m": ckpt})[0]
    assert "(step 48), on 2,000 validation queries, ahead of the next checkpoint by 10 queries" in text
    assert "the final checkpoint differs from it by -1.0 points on validation and +2.5 on STS" in text
    tie = ckpt.assign(validation=[91.5, 91.5, 91.0, 90.5])
    assert "tied with another checkpoint: the earliest is taken" in evidence.checkpoint_caption(
        {"m": run}, {"m": tie.iloc[0]}, {"m": tie})
    assert "by 0 queries (a tie, broken by taking the earliest)" in evidence.checkpoint_sentence(
        {"m": run}, {"m": tie.iloc[0]}, {"m": tie})[0]
    table = views.checkpoints_table({"m": ckpt}, chosen, {"m": run})
    assert table["step"].tolist() == [24, 48, 72, 96] and table["chosen"].tolist() == [False, True, False, False]


def test_rate_intervals_sentence_reports_the_width_of_per_language_rates():
    """Finding 15 of #34: per-language transfer rates carry wide intervals; the prose says how wide."""
    from xalign.papers.calibrated2023 import evidence

    blocks = pd.DataFrame({"model": "m", "block": "transfer_rate", "lang": ["de", "fr", "ur", "avg"],
                           "value": [90.0, 95.0, 80.0, 88.0], "ci_lo": [80.0, 84.0, 66.0, 84.0],
                           "ci_hi": [100.0, 106.0, 92.0, 92.0]})
    text = evidence.rate_intervals_sentence(blocks, ["m"], 300)[0]
    assert "rest on 300 test rows each" in text and "22 points wide at the median and 26 at most" in text
    assert "{numref}" not in text  # generated Markdown outputs are not parsed as MyST
    assert evidence.rate_intervals_sentence(blocks.assign(ci_lo=np.nan), ["m"], 300) == []


def test_finetune_runs_says_what_was_trained_without_timings():
    from types import SimpleNamespace

    from xalign.papers.calibrated2023 import evidence

    run = SimpleNamespace(info={"steps": 96, "n_nli": 1536, "n_sts": 1536, "seconds": 371.2,
                                "key": {"config": {"batch_size": 32}}})
    text = evidence.finetune_runs({"e5": run})
    assert "`e5`: 96 optimiser steps (batch 32) on 1,536 NLI and 1,536 STS-B pairs" in text
    assert "371" not in text and " s " not in text


def test_regularisation_strengths_are_shown_as_written_not_rounded_to_zero():
    """The XNLI control table rounded C = 0.01 to "0.0" (the book's one-decimal numbers)."""
    from xalign.papers.calibrated2023 import views

    control = pd.DataFrame({"model": ["m", "m"], "state": ["before", "after"], "C": [0.01, 1.0],
                            "source": [60.7, 57.3], "targets (mean)": [50.0, 48.0],
                            "targets / source x 100": [82.4, 83.8]})
    assert views.control_table(control)["C (inverse regularisation)"].tolist() == ["0.01", "1"]
    settings = pd.DataFrame({"setting": ["zero-shot"], "C": [0.001], "val_accuracy": [55.0], "n_train": [100]})
    assert views.classifier_table(settings)["C (inverse regularisation)"].tolist() == ["0.001"]
