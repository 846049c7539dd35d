"""Model against model: paired differences of two cards on the same items, and the monolingual control's place."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from xalign.book.model_compare import (
    measure_difference,
    paired_differences,
    paired_markdown,
    paired_page_markdown,
    sample_differences,
)
from xalign.card.battery import CardConfig
from xalign.card.items import encode_items

CONFIG = {"tatoeba_n": 100, "n_boot": 500, "seed": 0}


def _card(model: str, hits: np.ndarray, sts_rows: np.ndarray | None = None, config=CONFIG) -> dict:
    """A card with one accuracy measure (and STS), as xalign card writes them."""
    from xalign.measures.sts import mean_track_spearman

    measures = {"tatoeba_nn_xx-en": {"best_layer": "3", "main_score": round(100 * hits.mean(), 2),
                                     "items": encode_items(hits), "layers": []}}
    if sts_rows is not None:
        measures["sts"] = {"best_layer": "out", "main_score": round(mean_track_spearman(sts_rows), 2),
                           "items": encode_items(sts_rows), "layers": []}
    return {"model": model, "config": dict(config), "measures": measures}


def test_a_card_against_itself_differs_by_zero_everywhere():
    rng = np.random.default_rng(0)
    rows = np.c_[np.zeros(60), rng.normal(size=60), rng.normal(size=60)]
    card = _card("a", rng.random(100) < 0.7, rows)
    df = paired_differences(card, card).set_index("measure")
    for mid in ("tatoeba_nn_xx-en", "sts"):
        assert (df.loc[mid, "difference"], df.loc[mid, "lo"], df.loc[mid, "hi"]) == (0, 0, 0)
    assert "not measured" in df.loc["bli_nn", "note"] and np.isnan(df.loc["bli_nn", "difference"])


def test_a_model_right_on_every_item_the_other_gets_and_more_is_above_it():
    rng = np.random.default_rng(1)
    b = rng.random(100) < 0.4
    a = b | (rng.random(100) < 0.4)
    gold = rng.normal(size=80)
    good = np.c_[np.zeros(80), gold + 0.3 * rng.normal(size=80), gold]
    bad = np.c_[np.zeros(80), gold + 3 * rng.normal(size=80), gold]
    A, B = _card("a", a, good), _card("b", b, bad)
    r = measure_difference(A, B, "tatoeba_nn_xx-en")
    assert r["difference"] == pytest.approx(100 * (a.mean() - b.mean())) and 0 < r["lo"] <= r["difference"] <= r["hi"]
    assert r["difference"] == pytest.approx(r["score_a"] - r["score_b"]) and r["n"] == 100
    s = measure_difference(A, B, "sts")  # a statistic of rows (Spearman x 100), resampled jointly
    assert s["difference"] == pytest.approx(s["score_a"] - s["score_b"], abs=0.01) and s["lo"] > 0
    back = measure_difference(B, A, "tatoeba_nn_xx-en")
    assert back["hi"] < 0 and back["difference"] == pytest.approx(-r["difference"])


def test_cards_of_different_batteries_are_not_compared_item_by_item():
    hits = np.ones(100)
    a, b = _card("a", hits), _card("b", hits, config={**CONFIG, "tatoeba_n": 50, "n_boot": 100})
    assert sample_differences(a, b) == ["tatoeba_n"]  # the bootstrap count does not change the items
    with pytest.raises(ValueError, match="tatoeba_n"):
        paired_differences(a, b)
    assert "different batteries (tatoeba_n)" in paired_markdown([a, b])
    assert paired_page_markdown([a, b]) == ""
    no_items = _card("c", hits)
    del no_items["measures"]["tatoeba_nn_xx-en"]["items"]
    r = measure_difference(a, no_items, "tatoeba_nn_xx-en")
    assert "no per-item outcomes in the card of c" in r["note"] and np.isnan(r["lo"]) and r["difference"] == 0
    with pytest.raises(ValueError, match="no card of"):
        paired_markdown([a], ["a", "zz"])


def test_compare_command_prints_plain_tables_and_says_what_it_wrote(tmp_path, capsys):
    from xalign.book.cli import main

    rng = np.random.default_rng(2)
    b = rng.random(100) < 0.3
    for card in (_card("model-a", b | (rng.random(100) < 0.5)), _card("model-b", b)):
        card.update(layered=False, layers=["3"], not_available={})
        (tmp_path / f"{card['model']}.json").write_text(json.dumps(card))
    assert main(["compare", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "model-a minus model-b" in out and "A - B [95% paired CI]" in out
    assert "|" not in out and "`" not in out.split("written:")[0], "a terminal gets plain text, not Markdown"
    table = out.splitlines()[:3]
    assert "model-a" in table[0] and "model-b" in table[0] and table[2].startswith("Tatoeba retrieval, NN, xx->en")
    written = tmp_path / "compare.md"
    assert f"written: {written}" in out and "`model-a` minus `model-b`" in written.read_text()
    assert "| Model | Row |" in written.read_text() and "A − B [95% paired CI]" in written.read_text()
    assert main(["compare", "--out", str(tmp_path), "--markdown"]) == 0
    assert "| Model | Row |" in capsys.readouterr().out
    assert main(["compare", "--out", str(tmp_path), "model-b", "nope"]) == 2
    assert "no card of ['nope']" in capsys.readouterr().err


# ------------------------------------------------------------------ the committed cards
COMMITTED = Path(__file__).resolve().parents[1] / "reference" / "cards"
CONTROL = "all-MiniLM-L6-v2"
MULTILINGUAL = ("multilingual-e5-small", "usem3")
#: the measures that match words or sentences across two languages (STS 2017's ar-ar/en-en/es-es tracks do not;
#: the XNLI transfer rate is a ratio of two accuracies, see test_the_transfer_rate_does_not_separate_the_control)
CROSS_LINGUAL = ("tatoeba_nn_xx-en", "tatoeba_nn_en-xx", "tatoeba_csls_xx-en", "tatoeba_csls_en-xx",
                 "bli_nn", "bli_csls", "s_weak", "s_strong", "btsr_p1", "xnli_zero_shot")


def _committed(model: str) -> dict:
    from xalign.card.battery import slug

    return json.loads((COMMITTED / f"{slug(model)}.json").read_text())


@pytest.mark.parametrize("multilingual", MULTILINGUAL)
def test_the_monolingual_control_is_far_below_every_multilingual_model(multilingual):
    """"Far below": on every cross-lingual measure both cards have, the control minus the multilingual
    model has a 95% paired interval entirely below 0; a measure without per-item outcomes (BTSR) needs the
    control's whole interval below the other's."""
    control, other = _committed(CONTROL), _committed(multilingual)
    assert not sample_differences(control, other), "the committed cards must run the same battery"
    shared = [m for m in CROSS_LINGUAL if m in control["measures"] and m in other["measures"]]
    assert len(shared) >= 7  # Tatoeba (4), BLI (2), XNLI zero-shot at least; S_weak, S_strong, BTSR with words
    for mid in shared:
        r = measure_difference(control, other, mid)
        if np.isnan(r["hi"]):
            assert control["measures"][mid]["main_ci"][1] < other["measures"][mid]["main_ci"][0], (mid, r)
        else:
            assert r["hi"] < 0, (mid, r)


@pytest.mark.parametrize("multilingual", MULTILINGUAL)
def test_the_transfer_rate_does_not_separate_the_control(multilingual):
    """A finding, kept as a test: XNLI's transfer rate (zero-shot / translate-train-all accuracy) does not rate
    the English-only control below the multilingual models. Both of its accuracies are low for a model that
    cannot read the target languages, so their ratio is near 100 as for a well-aligned model: the paired
    interval of the difference includes 0. The rate measures transfer relative to in-language training, not
    alignment on its own."""
    control, other = _committed(CONTROL), _committed(multilingual)
    r = measure_difference(control, other, "xnli_transfer_rate")
    assert r["lo"] < 0 < r["hi"], r


def test_the_committed_cards_run_the_quick_battery_and_the_page_shows_them_paired():
    from dataclasses import asdict

    cards = [_committed(m) for m in (CONTROL, *MULTILINGUAL)]
    quick = json.loads(json.dumps(asdict(CardConfig())))
    for card in cards:
        assert {k: v for k, v in card["config"].items() if k != "n_boot"} == \
            {k: v for k, v in quick.items() if k != "n_boot"}, card["model"]
    page = paired_page_markdown(cards)
    assert page.count(" − ") >= 3 and "MiniLM (English)" in page and "paired" in page


def test_only_a_difference_whose_interval_excludes_zero_is_bold():
    from xalign.book.model_compare import _cell

    assert _cell({"difference": 2.0, "lo": 0.5, "hi": 3.0}) == "**+2.0** [+0.5, +3.0]"
    assert _cell({"difference": -2.0, "lo": -3.0, "hi": -0.5}) == "**-2.0** [-3.0, -0.5]"
    assert _cell({"difference": 1.0, "lo": -1.0, "hi": 3.0}) == "+1.0 [-1.0, +3.0]"
    assert _cell({"difference": 1.0, "lo": float("nan"), "hi": float("nan")}) == "+1.0 (no interval)"
    assert _cell({"difference": float("nan"), "lo": float("nan"), "hi": float("nan")}) == "–"


def test_the_precision_note_is_one_sentence_for_the_whole_table():
    from xalign.book.model_compare import cards_in, precision_note

    a, b, c = ({"model": m, "precision": p} for m, p in (("m1", "bfloat16"), ("m2", None), ("m3", None)))
    pairs = [(a, b), (a, c), (b, c)]
    assert [x["model"] for x in cards_in(pairs)] == ["m1", "m2", "m3"]
    note = precision_note(cards_in(pairs))
    assert note.count("Computed in different precisions") == 1 and all(m in note for m in ("m1", "m2", "m3"))
