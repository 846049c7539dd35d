"""S_weak / S_strong name their sample wherever a page shows them (xalign.book.word_sample, gaschi2022's
evidence): one model's S_strong read 97.0 (Compare models), 85.6 (chapter 1) and 83.0 (full card) with
nothing saying why."""

import pandas as pd

from xalign.book.word_sample import card_sample, chapter_strong, word_sample_note
from xalign.papers.gaschi2022 import report as RP


def _card(model, n, runs, sentences, value, precision="bfloat16"):
    cfg = {"word_n": n, "word_runs": runs, "word_sentences": sentences, "word_corpus": "wmt19", "word_pair": "de-en"}
    return {"model": model, "config": cfg, "precision": precision,
            "measures": {"s_strong": {"main_score": value, "best_layer": "8"}}}


def _chapter(model="m<x>"):
    return {"params": {"model": model, "runs": 10, "n_pairs": 5000, "corpora": "wmt19,wmt21"},
            "precision": "torch.float32",
            "tables": {"table4": {"rows": [{"layer": "last", "pair": "de-en", "ours": 80.0, "ours_std": 1.0, "our layer": 12.0},
                                           {"layer": "best", "pair": "de-en", "ours": 85.622, "ours_std": 0.51, "our layer": 12.0}]},
                       "pair_counts": {"rows": [{"pair": "de-en", "sentence pairs": 4002, "N used per run": 5000}]}}}


def test_a_cards_sample_is_named_with_n_draws_sentences_and_precision():
    assert card_sample(_card("m", 200, 1, 150, 97.0)) == \
        "N = 200 de-en word pairs, 1 draw, from the first 150 WMT19 sentences, bfloat16"
    assert "10 draws, from all WMT19 sentences, float32" in card_sample(_card("m", 5000, 10, None, 83.0, "torch.float32"))


def test_the_note_sets_chapter_1s_number_with_its_own_sample_beside_the_cards():
    note = word_sample_note([_card("m<x>", 200, 1, 150, 97.0)], _chapter())
    assert note.count("This card: N = 200") == 1
    assert "N = 200 de-en word pairs" in note and "N - 1" in note
    assert ("Chapter 1 draws N = 5,000 de-en word pairs per run from 4,002 WMT19 + WMT21 sentence pairs, 10 runs, "
            "in float32") in note
    assert "85.6 [85.3, 85.9] at layer 12 (this card: 97.0 at layer 8)" in note
    assert "m&lt;x&gt;" in note and "<x>" not in note and "None" not in note  # a name is page text
    # chapter 1 of another model says nothing about this card's model
    assert "Chapter 1" not in word_sample_note([_card("other", 200, 1, 150, 97.0)], _chapter())
    assert chapter_strong(None, "m") is None
    assert word_sample_note([{"model": "usem3", "measures": {}}], _chapter()) == ""


def test_chapter_1s_evidence_names_n_beside_s_weak_and_s_strong():
    counts = pd.DataFrame([{"pair": "de-en", "N used per run": 5000}, {"pair": "ru-en", "N used per run": 4597},
                           {"pair": "zh-en", "N used per run": 5000}])
    assert RP.word_sample(counts, 10) == "N = 5,000 word pairs per run (ru-en 4,597), 10 runs"
    assert RP.word_sample(counts.iloc[:1], 1) == "N = 5,000 word pairs per run, 1 run"
    assert RP.word_sample(pd.DataFrame(), 10) == ""
