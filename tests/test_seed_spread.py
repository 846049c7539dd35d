"""Chapter 3's fine-tuning seed spread: the data file, its loader's checks, and the claims made from it."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pandas as pd
import pytest

from xalign.papers.calibrated2023 import seed_spread as S


def _params(**changes):
    from xalign.papers.meta import checked_parameters

    return checked_parameters("calibrated2023", "default", changes)


def _encoder(prefix="query: ", revision="rev1"):
    return SimpleNamespace(revision=revision, prefix=prefix, autocast=None, device="cpu",
                           model=SimpleNamespace(dtype="torch.float32"))


def _result(seed, clsr, sts, langs=None, step=48):
    return {"seed": seed, "checkpoint": {"step": step, "fraction": 0.5, "validation": 90.0},
            "checkpoints": {"0.5000": 90.0}, "change": {"CLSR": clsr, "STS": sts},
            "languages": langs or {"de": clsr, "sw": -clsr}, "train_seconds": 1.0, "seconds": 2.0}


def _matched(P) -> dict:
    return S.matched_parameters(P.to_dict())


def _write(tmp_path, P, enc, results, model="multilingual-e5-small"):
    from xalign.papers.calibrated2023 import report

    config = report.ft_config(model, ft_by_model=P.ft_by_model, ft_lr=P.ft_lr, ft_batch_size=P.ft_batch_size,
                              ft_warmup=P.ft_warmup, ft_nli_epochs=P.ft_nli_epochs, ft_sts_epochs=P.ft_sts_epochs,
                              ft_checkpoints=P.ft_checkpoints, ft_freeze_embeddings=P.ft_freeze_embeddings,
                              seed=P.seed, ft_bf16=P.ft_bf16)
    record = S.spread_record(model, enc, [r["seed"] for r in results], results, config=config, matched=_matched(P),
                             sample_seed=P.seed)
    path = tmp_path / "spread.json"
    path.write_text(json.dumps(record))
    return path, record


def test_record_keeps_what_was_run_and_summarises_the_seeds(tmp_path):
    P = _params()
    path, record = _write(tmp_path, P, _encoder(), [_result(0, 1.0, 2.0), _result(1, 1.4, 3.0), _result(2, 1.2, 1.0)])
    assert record["model"] == "multilingual-e5-small" and record["prefix"] == "query: "
    assert record["revision"] == "rev1" and record["precision"] == "torch.float32"
    assert record["training_precision"] == "float32" and record["seeds"] == [0, 1, 2]
    assert record["parameters"]["nli_pairs"] == P.nli_pairs and record["parameters"]["ckpt_val_n"] == P.ckpt_val_n
    assert "seed" not in record["finetune_config"] and record["finetune_config"]["batch_size"] == P.ft_batch_size
    c = record["summary"]["change"]["CLSR"]
    assert c["mean"] == pytest.approx(1.2) and c["sd"] == pytest.approx(0.2)
    assert (c["min"], c["max"]) == (1.0, 1.4) and c["spread"] == pytest.approx(0.4)
    assert json.loads(path.read_text())["per_seed"][1]["change"]["STS"] == 3.0


def test_loader_accepts_the_same_configuration_whatever_the_seed(tmp_path):
    P = _params()
    path, _ = _write(tmp_path, P, _encoder(), [_result(0, 1.0, 2.0, step=24), _result(1, 1.4, 3.0, step=48)])
    for seed in (P.seed, P.seed + 7):
        sp = S.load_seed_spread(_matched(_params(seed=seed)), "multilingual-e5-small", _encoder(), path)
        assert sp.available and sp.reason is None
        assert sp.seeds == [0, 1] and sp.changes == {"CLSR": [1.0, 1.4], "STS": [2.0, 3.0]}
        assert sp.languages["sw"] == [-1.0, -1.4] and sp.chosen_steps == [24, 48]


@pytest.mark.parametrize("what, P, model, enc", [
    ("prefix", {}, "multilingual-e5-small", {"prefix": "passage: "}),
    ("revision", {}, "multilingual-e5-small", {"revision": "rev2"}),
    ("model", {}, "xlm-roberta-base", {}),
    ("ft_lr", {"ft_lr": 5e-6}, "multilingual-e5-small", {}),
    ("ckpt_val_n", {"ckpt_val_n": 500}, "multilingual-e5-small", {}),
    ("tatoeba_langs", {"tatoeba_langs": ["de"]}, "multilingual-e5-small", {}),
])
def test_loader_refuses_another_configuration_and_says_what_differs(tmp_path, what, P, model, enc):
    path, _ = _write(tmp_path, _params(), _encoder(), [_result(0, 1.0, 2.0), _result(1, 1.4, 3.0)])
    sp = S.load_seed_spread(_matched(_params(**P)), model, _encoder(**enc), path)
    assert not sp.available and sp.changes == {} and what in sp.reason
    assert "another configuration" in sp.reason
    assert "None" not in sp.reason and "[" not in sp.reason and "'" not in sp.reason  # names, not Python values
    missing = S.load_seed_spread(_matched(_params()), "multilingual-e5-small", _encoder(), tmp_path / "none.json")
    assert not missing.available and "not been measured" in missing.reason


def test_a_change_holds_across_seeds_only_if_every_seed_agrees_beyond_the_spread():
    assert S.seed_verdict([1.0, 1.2, 1.1]) == "up"
    assert S.seed_verdict([-2.0, -2.5, -2.2]) == "down"
    assert S.seed_verdict([1.0, -0.2, 1.1]) == "unstable"  # one seed disagrees
    assert S.seed_verdict([0.3, 0.5, 1.0]) == "unstable"   # same sign, but the spread (0.7) exceeds 0.3
    assert S.seed_verdict([1.0]) == "none"


def test_seed_change_phrase_claims_only_what_every_seed_shows():
    held = S.seed_change_phrase(1.1, 0.5, 1.7, [1.0, 1.2, 1.1])
    assert held.startswith("rose by 1.1 points (95% CI [+0.5, +1.7])") and "holds across 3 fine-tuning seeds" in held
    shaky = S.seed_change_phrase(1.1, 0.5, 1.7, [1.0, -0.2, 1.1])
    assert "unstable across fine-tuning seeds" in shaky and "rose" not in shaky and "-0.2 to +1.1" in shaky
    noise = S.seed_change_phrase(0.2, -0.5, 0.9, [0.2, 0.1, 0.3])
    assert noise.startswith("did not move beyond sampling noise") and "3 fine-tuning seeds" in noise
    assert S.seed_change_phrase(1.1, 0.5, 1.7, None) == "rose by 1.1 points (95% CI [+0.5, +1.7])"


def test_evidence_table_and_caption_show_the_seeds():
    from xalign.papers.calibrated2023 import evidence, views

    deltas = pd.DataFrame({"model": ["m"], "source": ["ours"], "change in CLSR": [1.1], "change in STS": [2.0]})
    ci = pd.DataFrame({"model": "m", "task": ["CLSR", "STS"], "ci_lo": [0.5, 1.0], "ci_hi": [1.7, 3.0]})
    per = pd.DataFrame({"model": "m", "lang": ["de", "sw"], "change": [2.0, -1.0], "ci_lo": [1.0, -2.0],
                        "ci_hi": [3.0, -0.5]})
    shaky = S.SeedSpread("m", seeds=[0, 1, 2], changes={"CLSR": [1.1, -0.2, 1.0], "STS": [2.0, 2.2, 2.1]},
                         languages={"de": [2.0, 2.1, 1.9], "sw": [-1.0, 0.5, -1.0]}, chosen_steps=[48, 72, 48])
    text = " ".join(evidence.calibration_effect(deltas, ci, per, {}, {"m": shaky}))
    assert "retrieval changed by +1.1 points (95% CI [+0.5, +1.7]) but is unstable across fine-tuning seeds" in text
    assert "STS 2017 (Spearman x 100) rose by 2.0 points" in text and "holds across 3 fine-tuning seeds" in text
    assert "1 of these 2 move the same way with every fine-tuning seed" in text
    assert "1 is unstable across fine-tuning seeds (sw)" in text  # the language named, the verb agreeing
    unmeasured = S.SeedSpread("m", reason="the seed spread was measured with another configuration: prefix")
    text = " ".join(evidence.calibration_effect(deltas, ci, per, {}, {"m": unmeasured}))
    assert "rose by 1.1 points (95% CI [+0.5, +1.7]); its STS" in text
    assert text.count("No seed spread is available for this configuration, so whether these changes hold") == 1
    table = views.changes_table(deltas, ci, {"m": shaky}).set_index("task")
    assert table.loc["CLSR", "over fine-tuning seeds"] == "-0.2 to +1.1 (SD 0.7)"
    assert table.loc["STS", "change (points)"] == 2.0 and len(table.columns) == 4  # + task: five narrow columns
    assert views.changes_table(deltas, ci, {"m": unmeasured}).set_index("task").loc[
        "STS", "over fine-tuning seeds"] == "not measured for this configuration"
    assert "No seed spread is available for `m`" in S.spread_note({"m": unmeasured})
    assert "`m`'s change over 3 fine-tuning seeds (0, 1, 2; measured once): CLSR -0.2 to +1.1" in S.spread_note(
        {"m": shaky})
    setup = SimpleNamespace(models=["m"], counterpart={})
    line = evidence.headline(setup, SimpleNamespace(deltas=deltas, change_ci=ci, seed_spread={"m": shaky}))
    assert "changes m's average Tatoeba retrieval by +1.1" in line and "unstable across 3 fine-tuning seeds" in line


def test_bench_writes_the_record_and_prints_a_table(tmp_path, monkeypatch):
    """The bench end to end on a tiny random model and a few sentences: two seeds, the data file's format."""
    import glob
    import importlib.util
    import os
    from pathlib import Path

    from conftest import mirror_available, mirror_root

    if not mirror_available():
        pytest.skip("needs the data mirror (XALIGN_DATA_MIRROR)")
    from xalign.testing.tiny import build_tiny_model

    monkeypatch.setenv("XALIGN_CACHE", str(tmp_path / "cache"))
    files = sorted(glob.glob(os.path.join(str(mirror_root()), "wmt19_newstest2019", "*", "*")))
    sentences = [s for f in files for s in Path(f).read_text(encoding="utf-8").split("\n")[:60]]
    model = str(build_tiny_model("mbert", tmp_path / "mbert", sentences, vocab_size=1000))
    spec = importlib.util.spec_from_file_location("bench_seeds", Path(__file__).parents[1] / "bench" /
                                                  "finetune_seed_spread.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    small = {"models": [model], "tatoeba_langs": ["de", "sw"], "tatoeba_n": 6, "val_pairs": ["en-de"], "val_n": 6,
             "ckpt_val_n": 6, "sts_n": 6, "nli_pairs": 4, "sts_pairs": 4, "ft_batch_size": 2, "ft_checkpoints": 2}
    out = tmp_path / "spread.json"
    record = bench.measure("smoke", seeds=[0, 1], overrides=small, out=out, log=lambda *a: None)
    assert json.loads(out.read_text()) == json.loads(json.dumps(record))
    assert record["seeds"] == [0, 1] and [r["seed"] for r in record["per_seed"]] == [0, 1]
    assert record["model"] == model and record["prefix"] == "" and record["parameters"]["tatoeba_n"] == 6
    for r in record["per_seed"]:
        assert set(r["change"]) == {"CLSR", "STS"} and set(r["languages"]) == {"de", "sw"}
        assert r["checkpoint"]["step"] in (1, 2) and len(r["checkpoints"]) == 2
    assert record["summary"]["change"]["CLSR"]["min"] <= record["summary"]["change"]["CLSR"]["max"]
    text = bench.table(record)
    assert text.splitlines()[0].split() == ["seed", "step", "val", "%", "CLSR", "STS", "wall", "s"]
    assert "mean" in text and "SD" in text and "wall time" in text
    P = _params(models=[model], **{k: v for k, v in small.items() if k != "models"})
    sp = S.load_seed_spread(_matched(P), model, SimpleNamespace(revision=record["revision"], prefix="", autocast=None,
                                                      device="cpu", model=SimpleNamespace(dtype="torch.float32")),
                            out)
    assert sp.available and sp.seeds == [0, 1]
