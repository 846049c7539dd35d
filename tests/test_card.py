"""The model card: battery, intervals, result file, page, compare table, and the --model mapping."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.stats import spearmanr

from toy_encoders import CharGrams
from xalign.book.card_page import compare_markdown, compare_table, paper_references, save_card
from xalign.card.battery import MEASURES, CardConfig, _rate_stat, run_card
from xalign.measures.intervals import accuracy_ci, bootstrap_ci
from xalign.measures.sts import mean_track_spearman


# ------------------------------------------------------------------ intervals (known answers)
def test_accuracy_ci_brackets_the_mean_and_is_seeded():
    correct = np.r_[np.ones(30), np.zeros(70)]
    lo, hi = accuracy_ci(correct)
    assert lo < 0.3 < hi and 0.18 < lo and hi < 0.42
    assert accuracy_ci(correct, seed=1) == accuracy_ci(correct, seed=1)
    assert accuracy_ci(np.ones(10)) == (1.0, 1.0)


def test_bootstrap_ci_rows_and_errors():
    rng = np.random.default_rng(0)
    x = rng.normal(size=400)
    pairs = np.c_[x, x + 0.1 * rng.normal(size=400)]
    lo, hi = bootstrap_ci(pairs, lambda v: np.corrcoef(v.T)[0, 1], n_boot=200)
    assert 0.98 < lo <= hi < 1.0
    with pytest.raises(ValueError, match="empty"):
        bootstrap_ci([])
    with pytest.raises(ValueError, match="level"):
        bootstrap_ci([1.0], level=1.5)


def testmean_track_spearman_is_mean_spearman_over_tracks():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=50), np.round(rng.normal(size=50), 1)  # ties in the gold scores
    c, d = rng.normal(size=40), rng.normal(size=40)
    rows = np.r_[np.c_[np.zeros(50), a, b], np.c_[np.ones(40), c, d]]
    want = 100 * (spearmanr(a, b).statistic + spearmanr(c, d).statistic) / 2
    assert mean_track_spearman(rows) == pytest.approx(want)


def test_rate_stat_known_answer():
    # two target languages; zero-shot 1/2 and 1/2 correct, translate-train-all 1 and 1/2
    items = np.array([[[1, 1], [1, 1]], [[0, 1], [0, 0]]], float)
    assert _rate_stat(items) == pytest.approx((50 + 100) / 2)


# ------------------------------------------------------------------ --model
def test_model_parameters_map_onto_each_chapter():
    from xalign.book.runner import chapter_ids, model_parameters

    got = {c[:2]: model_parameters(c, "my/model") for c in chapter_ids()}
    assert got["01"] == {"model": "my/model"}
    assert got["02"] == {"multi_model": "my/model"}
    assert got["03"] == {"models": ["my/model"]}
    assert got["04"]["model"] == "my/model" and list(got["04"]["table1_models"]) == ["my/model"]
    assert got["05"] == {"model": "my/model"}


@pytest.mark.parametrize("command", ["run", "book", "card"])
def test_cli_has_model_flag(command, capsys):
    from xalign.book.cli import main

    with pytest.raises(SystemExit):
        main([command, "--help"])
    assert ("--model" in capsys.readouterr().out) or command == "card"


# ------------------------------------------------------------------ the battery
def test_card_of_an_encode_object_has_sentence_measures_only(tmp_path):
    card = run_card(CharGrams(), CardConfig.tiny(), log=lambda *_: None)
    assert card["layers"] == ["out"] and not card["layered"]
    assert set(card["not_available"]) == {"s_weak", "s_strong", "btsr_p1"}
    assert set(card["scores"]) == set(MEASURES) - set(card["not_available"])
    for r in card["measures"].values():
        x = r["layers"][0]
        assert x["lo"] <= x["value"] + 1e-9 and x["value"] <= x["hi"] + 1e-9
    assert card["data"] and all(len(d["sha256"]) == 64 for d in card["data"])
    page = save_card(card, tmp_path)
    assert page.exists() and (page.parent / "curves.png").stat().st_size > 1000
    md = compare_markdown(tmp_path)
    assert "toy-stable-chargrams" in md and "n/a" in md and "one vector per text" in md


@pytest.mark.slow
def test_tiny_card_of_the_offline_model(encoder, tmp_path):
    card = run_card(encoder, CardConfig.tiny(), log=lambda *_: None)
    assert card["layers"] == [str(i) for i in range(encoder.n_layers)]
    assert set(card["scores"]) == set(MEASURES) and not card["not_available"]
    for mid, r in card["measures"].items():  # MTEB's bitext score: the output layer only
        want = card["layers"][-1:] if mid == "mteb_bitext_f1" else card["layers"]
        assert [x["layer"] for x in r["layers"]] == want
        assert r["best_layer"] in card["layers"]
    page = save_card(card, tmp_path)
    saved = json.loads((tmp_path / "multilingual-e5-small.json").read_text())
    assert saved["revision"] == encoder.revision and saved["scores"] == card["scores"]
    assert "(paper)" in page.with_suffix(".md").read_text()
    table = compare_table(tmp_path)
    assert list(table["row"]) == ["best layer", "layer 0 (static embeddings)"]


def test_paper_references_cover_three_models():
    refs = paper_references()
    assert {"mBERT", "XLM-R", "LaBSE"} <= set(refs.model)
    assert set(refs.measure) <= set(MEASURES)
    labse = refs[(refs.model == "LaBSE") & (refs.measure == "tatoeba_nn_xx-en")]["value"]
    assert labse.item() == pytest.approx(95.4)


@pytest.mark.slow
def test_a_warm_card_reads_every_step_back_and_a_changed_setting_recomputes(tiny_models, monkeypatch):
    """Each step of a model with a cache identity is memoised under the encoder, the settings, the data
    declarations and the step's code: a second card runs no step (the steps would fail here) and is the same
    card, data files included; another bootstrap count runs the steps again."""
    from dataclasses import replace

    from xalign.card import battery as C
    from xalign.core.loading import load_encoder

    enc = load_encoder(str(tiny_models["mbert"]), progress=False, device="cpu")
    cfg = replace(CardConfig.tiny(), n_boot=37)
    cold = run_card(enc, cfg, log=lambda *_: None)

    def refuse(step, *args):
        raise AssertionError(f"{step.__name__} ran again")

    monkeypatch.setattr(C, "run_recorded", refuse)
    monkeypatch.setattr(C, "_summary", lambda *a: pytest.fail("a summary was computed again"))  # bootstraps too
    warm = run_card(enc, cfg, log=lambda *_: None)
    assert warm["measures"] == cold["measures"] and warm["data"] == cold["data"] and warm["data"]
    assert all(warm["step_seconds"][k] <= cold["step_seconds"][k] + 1 for k in cold["step_seconds"])
    with pytest.raises(AssertionError, match="ran again"):
        run_card(enc, replace(cfg, n_boot=38), log=lambda *_: None)
    assert C.step_identity(C.wrap(CharGrams()), cfg) is None  # an encode(texts) object: its steps always run
