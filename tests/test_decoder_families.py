"""Decoder-only LLM families, proven offline: the card on tiny random Llama, Qwen2 and Gemma models,
and chapters 1 and 3's smoke profiles on one family each (the numbers mean nothing; the code paths
are the ones a hub LLM takes).

Chapter 1 runs on Qwen2 (byte-level BPE whose ``Ġword`` offsets keep the leading space: the word
spans; no BOS; a stand-in mask token), chapter 3 on Llama (SentencePiece with byte fallback, BOS,
no pad token of its own); both chapters on all three families would take minutes more on 2 cores."""


import pytest

from chapter_smoke import run_smoke
from conftest import mirror_available, mirror_root
from xalign.testing.tiny_decoders import DECODER_FAMILIES

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not mirror_available(), reason="needs the data mirror (XALIGN_DATA_MIRROR)")]


@pytest.fixture(scope="module")
def tiny_decoders(tmp_path_factory):
    """Tiny random Llama, Qwen2 and Gemma models, tokenizers trained on WMT19 (as the encoder families')."""
    import glob
    import os
    from pathlib import Path

    from xalign.testing.tiny import build_tiny_model

    files = sorted(glob.glob(os.path.join(str(mirror_root()), "wmt19_newstest2019", "*", "*")))
    sentences = [s for f in files for s in Path(f).read_text(encoding="utf-8").split("\n")[:150]]
    root = tmp_path_factory.mktemp("tiny_decoders")
    return {fam: build_tiny_model(fam, root / fam, sentences) for fam in DECODER_FAMILIES}


@pytest.mark.parametrize("family", DECODER_FAMILIES)
def test_the_card_runs_on_every_decoder_family(tiny_decoders, family, tmp_path, monkeypatch):
    from xalign.book.card_page import save_card
    from xalign.card.battery import MEASURES, CardConfig, run_card

    monkeypatch.setenv("XALIGN_RESULTS", str(tmp_path / "results"))
    card = run_card(str(tiny_decoders[family]), CardConfig.tiny(), log=lambda *a: None)
    assert card["layers"] == ["0", "1", "2"] and card["layered"]
    assert set(card["scores"]) == set(MEASURES) and not card["not_available"]
    for mid, r in card["measures"].items():  # MTEB's bitext score: the output layer only
        want = ["2"] if mid == "mteb_bitext_f1" else card["layers"]
        assert [x["layer"] for x in r["layers"]] == want and r["best_layer"] in card["layers"]
    pooling = card["measures"]["tatoeba_nn_xx-en"]["receipt"]["pooling"]
    assert pooling == [{"layers": ["0", "1", "2"], "pooling": pooling[0]["pooling"]}]
    assert "decoder-only" in pooling[0]["pooling"]
    page = save_card(card, tmp_path / "cards")
    assert "decoder-only" in page.with_suffix(".md").read_text()


@pytest.mark.parametrize(("chapter", "family"), [("01", "qwen2"), ("03", "llama")])
def test_chapters_1_and_3_run_on_a_decoder(tiny_decoders, chapter, family, tmp_path, monkeypatch):
    run_smoke(chapter, tiny_decoders[family], tmp_path, monkeypatch)
