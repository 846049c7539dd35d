"""The papers' model families, proven offline: every chapter's smoke profile and the card run on tiny
random models of mBERT (WordPiece), XLM-R (SentencePiece unigram), mBART (encoder-decoder) and LaBSE
(sentence-transformers). The numbers mean nothing; the code paths (offsets, special tokens, the encoder
of an encoder-decoder, sentence-transformers modules) are the ones the `paper` profiles take."""

import json

import pytest

from conftest import mirror_available
from xalign.book.runner import chapter_ids, model_parameters, run_chapter
from xalign.core.tiny import FAMILIES

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not mirror_available(), reason="needs the data mirror (XALIGN_DATA_MIRROR)")]


@pytest.mark.parametrize("chapter", chapter_ids())
@pytest.mark.parametrize("family", FAMILIES)
def test_every_chapter_runs_on_every_family(tiny_models, family, chapter, tmp_path, monkeypatch):
    monkeypatch.setenv("XALIGN_RESULTS", str(tmp_path / "results"))
    params = {"profile": "smoke", **model_parameters(chapter, str(tiny_models[family]), "smoke")}
    if chapter.startswith("01"):  # Fig. 5's layer 8 is beyond a 2-layer model: an error, no longer the last layer
        params["dist_layer"] = 2
    out = run_chapter(chapter, params, tmp_path / f"{chapter}.ipynb", progress=False)
    nb = json.loads(out.read_text())
    errors = [o for c in nb["cells"] for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert errors == []
    saved = list((tmp_path / "results" / chapter / "smoke").glob("*.json"))
    assert len(saved) == 1 and json.loads(saved[0].read_text())["tables"]


@pytest.mark.parametrize("family", FAMILIES)
def test_the_card_runs_on_every_family(tiny_models, family, tmp_path, monkeypatch):
    from xalign.book.card import CardConfig, run_card

    monkeypatch.setenv("XALIGN_RESULTS", str(tmp_path / "results"))
    card = run_card(str(tiny_models[family]), CardConfig.tiny(), log=lambda *a: None)
    scores = json.dumps(card)
    assert "tatoeba" in scores.lower() and "sts" in scores.lower()
