"""What a card keeps per item: its reported layer's outcomes (small, decodable) and the best-layer shares."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from toy_encoders import CharGrams
from xalign.book.card_page import card_markdown
from xalign.card.battery import ITEM_STATS, CardConfig, run_card
from xalign.card.items import decode_items, encode_items, layer_choice, top_layers


def test_items_round_trip_compactly():
    hits = np.random.default_rng(0).random((40, 3, 2)) < 0.5
    record = encode_items(hits)
    assert set(record) == {"shape", "bits"} and len(record["bits"]) == 240
    np.testing.assert_array_equal(decode_items(json.loads(json.dumps(record))), hits.astype(float))
    rows = np.c_[np.zeros(5), np.linspace(-1, 1, 5), [0.5, 1.25, 2.0, 3.0, 4.75]]
    np.testing.assert_allclose(decode_items(encode_items(rows)), rows, atol=1e-6)
    with pytest.raises(ValueError, match="shape"):
        decode_items({"shape": [3], "bits": "01"})


def test_layer_choice_and_top_layers():
    base = np.r_[np.ones(30), np.zeros(30)]
    better = np.r_[np.ones(45), np.zeros(15)]
    got = layer_choice({"0": base, "1": better, "2": base}, "1", np.mean, n_boot=200, seed=0)
    assert got["best_layer_shares"] == {"0": 0.0, "1": 1.0, "2": 0.0}
    np.testing.assert_array_equal(decode_items(got["items"]), better)
    assert top_layers({"0": 0.1, "1": 0.6, "2": 0.3, "3": 0.0}, 2) == [("1", 0.6), ("2", 0.3)]
    assert layer_choice({"0": base}, "1", np.mean, 10, 0) == {}  # no items at the reported layer: nothing kept


def _check_card_items(card):
    """Every measure with items: they reproduce the main score, and the shares cover the layers, summing to 1."""
    kept = [mid for mid, r in card["measures"].items() if "items" in r]
    for mid in kept:
        r = card["measures"][mid]
        items = decode_items(r["items"])
        best = next(x for x in r["layers"] if x["layer"] == r["best_layer"])
        stat = ITEM_STATS.get(mid)
        score = stat(items) if stat else 100 * items.mean()
        assert score == pytest.approx(best["value"]) and len(items) == best["n"], mid
        shares = r["best_layer_shares"]
        measured = [x["layer"] for x in r["layers"]]  # every layer, or the output only (MTEB's bitext F1)
        assert list(shares) == measured and set(measured) <= set(card["layers"]), mid
        assert sum(shares.values()) == pytest.approx(1, abs=0.01), mid
        assert all("_items" not in x for x in r["layers"])
    return kept


def test_a_card_keeps_items_at_its_reported_layer(tmp_path):
    card = run_card(CharGrams(), CardConfig.tiny(), log=lambda *_: None)
    kept = _check_card_items(card)
    assert set(kept) == set(card["measures"])  # every sentence-level measure, BLI's per-query hits included
    assert all(r["best_layer_shares"] == {"out": 1.0} for r in card["measures"].values())
    json.dumps(card)  # the result file is plain JSON
    assert "Which layer is best" in card_markdown(card)


@pytest.mark.slow
def test_a_layered_card_gives_every_layer_a_share(tiny_models):
    from xalign.core.loading import load_encoder

    enc = load_encoder(str(tiny_models["mbert"]), progress=False, device="cpu")
    cfg = replace(CardConfig.tiny(), word_runs=2)
    card = run_card(enc, cfg, log=lambda *_: None)
    kept = _check_card_items(card)
    for mid in ("s_weak", "s_strong"):  # two runs of word_n pairs each: every run's pairs are items
        assert all(x["n"] == 2 * cfg.word_n for x in card["measures"][mid]["layers"])
    assert "btsr_p1" not in kept and "best_layer_shares" not in card["measures"]["btsr_p1"]
    assert {"tatoeba_nn_xx-en", "sts", "xnli_zero_shot", "xnli_transfer_rate", "bli_csls", "s_weak", "s_strong"} <= set(kept)
    assert len(json.dumps(card)) < 60_000  # items at one layer only: the result file stays small
    md = card_markdown(card)
    assert "Which layer is best" in md and "share of resamples" in md


def test_the_page_of_a_full_card_says_all_and_the_runs():
    from dataclasses import asdict
    from pathlib import Path

    from xalign.card.settings import with_profile

    card = json.loads((Path(__file__).parents[1] / "reference" / "cards" / "all-MiniLM-L6-v2.json").read_text())
    card["config"] = json.loads(json.dumps(asdict(with_profile(CardConfig(), "full"))))
    battery = card_markdown(card).split("## Battery")[1]
    assert "None" not in battery and "all pairs each" in battery
    assert "5000 distinct dictionary word pairs (drawn 10 times) from all de-en wmt19 sentences" in battery
