"""``xalign compare --mteb``: a card beside an MTEB Tatoeba result file (the fixture's numbers are invented)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pandas as pd
import pytest

from toy_encoders import CharGrams
from xalign.book.mteb_compare import (
    MTEBFileError,
    compare_with_mteb,
    mteb_comparison_markdown,
    pick_card,
    read_mteb_bitext,
    setup_differences,
    subset_of,
)
from xalign.card import battery as C
from xalign.card.battery import CardConfig, with_sizes
from xalign.card.receipts import MEAN_POOLING

FIXTURE = Path(__file__).parent / "fixtures" / "mteb_tatoeba" / "Tatoeba.json"


@pytest.fixture(scope="module")
def card():
    """A card with the Tatoeba step only (de, sw), built as run_card builds it."""
    cfg = with_sizes(CardConfig.tiny(), tatoeba_langs="de,sw")
    m = C.wrap(CharGrams("toy-mteb-grams"))
    return C._card(m, cfg, {"tatoeba": C.run_recorded(C.tatoeba, m, cfg)}, time.time())


def test_reads_the_fixture():
    mteb = read_mteb_bitext(FIXTURE)
    assert set(mteb["subsets"]) == {"deu-eng", "fra-eng", "ara-eng"}
    assert mteb["subsets"]["deu-eng"]["main_score"] == 0.525 and mteb["subsets"]["deu-eng"]["recall"] == 0.6
    assert mteb["task_name"] == "Tatoeba" and mteb["split"] == "test"
    assert subset_of("de") == "deu-eng" and subset_of("zh") == "cmn-eng"


def test_languages_side_by_side(card):
    frame = compare_with_mteb(card, read_mteb_bitext(FIXTURE)).set_index("Language")
    de = card["measures"]["mteb_bitext_f1"]["layers"][0]["per_language"]["de"]
    assert frame.loc["de", "MTEB subset"] == "deu-eng"
    assert frame.loc["de", "Card F1"] == pytest.approx(de["f1"]) and frame.loc["de", "Card n"] == 12
    assert frame.loc["de", "MTEB F1 (main score)"] == pytest.approx(52.5)
    assert frame.loc["de", "MTEB accuracy"] == pytest.approx(60.0)
    assert frame.loc["de", "F1 difference (card - MTEB)"] == pytest.approx(de["f1"] - 52.5)
    assert frame.loc["sw", "MTEB subset"] == "swh-eng" and pd.isna(frame.loc["sw", "MTEB F1 (main score)"])
    assert frame.loc["mean (1 in both)", "MTEB F1 (main score)"] == pytest.approx(52.5)


def test_setup_differences_are_named(card):
    diffs = {d["aspect"]: d for d in setup_differences(card, read_mteb_bitext(FIXTURE))}
    assert diffs["sentences"]["verdict"] == "differs" and "12" in diffs["sentences"]["card"]
    assert "1,000" in diffs["sentences"]["mteb"]
    assert diffs["direction"]["verdict"] == "same" and diffs["scoring"]["verdict"] == "same"
    assert diffs["languages"]["verdict"] == "differs" and "swh-eng" in diffs["languages"]["card"]
    assert diffs["layer and pooling"]["card"].startswith("layer out")
    assert diffs["prefix or template"]["card"] == "none"
    assert "tatoeba.deu-eng.deu" in diffs["data"]["card"]
    # an e5 card with its default 'passage: ' prefix: MTEB's e5 set-up differs
    e5 = json.loads(json.dumps(card))
    e5["model"] = "intfloat/multilingual-e5-small"
    e5["measures"]["mteb_bitext_f1"]["receipt"]["prefix"] = "passage: "
    e5["measures"]["mteb_bitext_f1"]["layers"][0]["layer"] = "12"  # e5 is mean-pooled: its last layer's mean
    e5["measures"]["mteb_bitext_f1"]["receipt"]["pooling"] = [{"layers": ["12"], "pooling": MEAN_POOLING}]
    got = {x["aspect"]: x for x in setup_differences(e5, read_mteb_bitext(FIXTURE))}
    d = got["prefix or template"]
    assert d["verdict"] == "differs" and d["card"] == "'passage: '" and "query: " in d["mteb"]
    assert got["layer and pooling"]["verdict"] == "same" and got["layer and pooling"]["card"].startswith("layer 12")
    card_mbert = json.loads(json.dumps(e5))
    card_mbert["model"] = "bert-base-multilingual-cased"
    got = {x["aspect"]: x for x in setup_differences(card_mbert, read_mteb_bitext(FIXTURE))}
    assert got["layer and pooling"]["verdict"] == "unknown" and got["prefix or template"]["verdict"] == "unknown"


def test_main_score_not_f1_is_a_difference(tmp_path, card):
    data = json.loads(FIXTURE.read_text())
    data["scores"]["test"][0]["main_score"] = 0.6
    path = tmp_path / "Tatoeba.json"
    path.write_text(json.dumps(data))
    diffs = {d["aspect"]: d for d in setup_differences(card, read_mteb_bitext(path))}
    assert diffs["scoring"]["verdict"] == "differs"


@pytest.mark.parametrize("edit, match", [
    (lambda d: "{not json", "not a readable JSON"),
    (lambda d: [d], "expected a JSON object"),
    (lambda d: {**d, "task_name": "BUCC"}, "task 'BUCC'"),
    (lambda d: {k: v for k, v in d.items() if k != "scores"}, "no 'scores'"),
    (lambda d: {**d, "scores": {"dev": []}}, r"no scores\.'test' \(splits in the file: dev\)"),
    (lambda d: {**d, "scores": {"test": {"deu-eng": {"f1": 0.5}}}}, "is a dict, expected a list"),
    (lambda d: {**d, "scores": {"test": [{"f1": 0.5}]}}, r"scores\.test\[0\] has no 'hf_subset'"),
    (lambda d: {**d, "scores": {"test": [{"hf_subset": "deu-eng", "main_score": 0.5, "accuracy": 0.5}]}},
     r"\(deu-eng\) has no number 'f1'"),
    (lambda d: {**d, "scores": {"test": [{"hf_subset": "deu-eng", "main_score": 97.3, "f1": 0.9, "accuracy": 0.9}]}},
     "outside \\[0, 1\\]"),
    (lambda d: {**d, "scores": {"test": d["scores"]["test"][:1] * 2}}, "appears twice"),
    (lambda d: {**d, "scores": {"test": []}}, "is empty"),
])
def test_malformed_files_are_refused_by_name(tmp_path, edit, match):
    data = edit(json.loads(FIXTURE.read_text()))
    path = tmp_path / "Tatoeba.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    with pytest.raises(MTEBFileError, match=match) as exc:
        read_mteb_bitext(path)
    assert str(path) in str(exc.value)


def test_missing_file_and_card_without_the_score(tmp_path, card):
    with pytest.raises(MTEBFileError, match="no such MTEB result file"):
        read_mteb_bitext(tmp_path / "nope.json")
    old = {**card, "measures": {k: v for k, v in card["measures"].items() if k != "mteb_bitext_f1"}}
    with pytest.raises(MTEBFileError, match="run `xalign card`"):
        compare_with_mteb(old, read_mteb_bitext(FIXTURE))


def test_pick_card(tmp_path, card):
    other = {**card, "model": "someone/else"}
    with pytest.raises(MTEBFileError, match="name one with --model"):
        pick_card([card, other], FIXTURE)
    assert pick_card([card, other], FIXTURE, "else")["model"] == "someone/else"
    with pytest.raises(MTEBFileError, match="no card of 'x'"):
        pick_card([card], FIXTURE, "x")
    path = tmp_path / "Tatoeba.json"
    path.write_text(FIXTURE.read_text())
    (tmp_path / "model_meta.json").write_text(json.dumps({"name": "someone/else", "revision": "1"}))
    assert pick_card([card, other], path)["model"] == "someone/else"
    (tmp_path / "model_meta.json").write_text(json.dumps({"name": "org/someone/else", "revision": "1"}))
    with pytest.raises(MTEBFileError, match="no card has that full name"):  # the last name part is not the model
        pick_card([card, other], path)


def test_cli_compare_mteb(tmp_path, card, capsys):
    from xalign.book.card_page import save_card
    from xalign.book.cli import main

    save_card(card, tmp_path / "cards")
    assert main(["compare", "--out", str(tmp_path / "cards"), "--mteb", str(FIXTURE)]) == 0
    out = capsys.readouterr().out
    assert "deu-eng" in out and "52.5" in out and "## Set-up differences" in out and "**differs**" in out
    assert out == mteb_comparison_markdown(card, read_mteb_bitext(FIXTURE))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"task_name": "Tatoeba", "scores": {"test": [{"hf_subset": "deu-eng"}]}}))
    assert main(["compare", "--out", str(tmp_path / "cards"), "--mteb", str(bad)]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err and "main_score" in err
