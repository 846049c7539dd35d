"""The variation harness: perturbed embeddings (xalign.core.perturb) and measured tolerances (xalign.book.harness)."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

from xalign.book import check as K
from xalign.book import harness as H
from xalign.book.cli import main
from xalign.book.results import ChapterRun
from xalign.book.variation import load_variation
from xalign.core import perturb

CHAPTER = "01_weak_strong_alignment"


# ------------------------------------------------------------------ perturbed embeddings
def test_the_variable_is_checked_and_named():
    assert perturb.spec("") is None
    assert perturb.spec("4:1") == (4.0, 1) and perturb.spec(" 0.5 : 7 ") == (0.5, 7)
    for bad in ("4", "x:1", "-1:2", "0:1", "4:1.5"):
        with pytest.raises(ValueError, match="XALIGN_PERTURB.*'<ulps>:<seed>'"):
            perturb.spec(bad)


def test_perturbation_is_at_rounding_scale_seeded_and_float32():
    x = np.random.default_rng(0).standard_normal((50, 3, 64)).astype(np.float32)
    a, b = perturb.perturbed(x, (4.0, 1)), perturb.perturbed(x, (4.0, 1))
    c = perturb.perturbed(x, (4.0, 2))
    assert a.dtype == np.float32 and np.array_equal(a, b) and not np.array_equal(a, c)
    rel = np.abs(a.astype(np.float64) - x) / np.abs(x).max(axis=-1, keepdims=True)
    assert 0 < rel.max() < 8 * 4 * 2.0**-23  # a few ulps of the vector's largest element, never more
    assert (a != x).mean() > 0.5  # most elements move


def test_equal_vectors_get_equal_noise_as_one_kernel_gives_one_result():
    """Chapter 5's first token at layer 0 is one vector for every sentence; independent noise per row made its
    constant columns noise columns, and a probe's macro-F1 on them moved by 18 points under the harness."""
    rng = np.random.default_rng(1)
    same = np.repeat(rng.standard_normal((1, 1, 48)).astype(np.float32), 200, axis=0)  # (200, 1, 48): one vector
    x = np.concatenate([same, rng.standard_normal((200, 1, 48)).astype(np.float32)])
    moved = perturb.perturbed(x, (4.0, 1))
    assert np.ptp(moved[:200], axis=0).max() == 0 and not np.array_equal(moved[0], x[0])  # moved, and alike
    assert len(np.unique(moved[200:] - x[200:], axis=0)) == 200  # distinct vectors: distinct noise
    # the same vector in another array (another cache entry) is moved the same way
    assert np.array_equal(perturb.perturbed(x[:3], (4.0, 1)), moved[:3])
    noise = perturb.vector_noise(rng.standard_normal((4000, 64)).astype(np.float32), 7).ravel()
    assert abs(noise.mean()) < 0.01 and abs(noise.std() - 1) < 0.01 and abs(np.corrcoef(noise[:-1], noise[1:])[0, 1]) < 0.01
    # weights keep their own noise per parameter (the salt), equal rows of one parameter alike
    w = np.ones((4, 8), np.float32)
    assert not np.array_equal(perturb.perturbed(w, (4.0, 1), "a"), perturb.perturbed(w, (4.0, 1), "b"))


def test_a_perturbed_key_names_the_noise_so_values_from_another_draw_are_not_reused():
    key = perturb.variant_key({"k": 1}, (4.0, 1))
    assert key["perturbed"] == "4:1" and key["noise"] == perturb.NOISE
    assert perturb.variant_key({"k": 1}, None) == {"k": 1}  # a plain run's keys are untouched


HARNESS_SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    import xalign  # installs the perturbation when XALIGN_PERTURB is set
    from xalign.core.cache import EmbeddingCache
    from xalign.core.memo import cached
    store = EmbeddingCache()
    emb = {"model": "m", "inputs": "abc", "pooling": "mean"}
    if sys.argv[1] == "plain":
        store.put(emb, x=np.ones((2, 1, 4), np.float32))
    got = store.get(emb)["x"]
    value = cached("test.derived", {"k": 1}, lambda: float(got.sum()))
    store.put_json({"kind": "derived"}, sys.argv[1])
    print(json.dumps({"emb": got.tolist(), "memo": value, "json": store.get_json({"kind": "derived"})}))
""")


def _run(tmp_path, mode, perturbation=None):
    env = {**os.environ, "XALIGN_CACHE": str(tmp_path / "cache")}
    env.pop("XALIGN_PERTURB", None)
    if perturbation:
        env["XALIGN_PERTURB"] = perturbation
    out = subprocess.run([sys.executable, "-c", HARNESS_SCRIPT, mode], env=env, capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_perturbed_run_reads_embeddings_perturbed_and_keeps_derived_values_apart(tmp_path):
    plain = _run(tmp_path, "plain")
    assert plain["memo"] == 8.0 and plain["json"] == "plain"
    moved = _run(tmp_path, "perturbed", "4:1")
    emb = np.array(moved["emb"])
    assert not np.array_equal(emb, np.ones_like(emb)) and np.allclose(emb, 1, atol=1e-5)
    assert moved["memo"] != 8.0 and moved["json"] == "perturbed"  # computed afresh, not read from the plain run
    again = _run(tmp_path, "plain-again")  # the plain run still reads its own, untouched values
    assert again["emb"] == plain["emb"] and again["memo"] == 8.0 and again["json"] == "plain-again"


# ------------------------------------------------------------------ measured tolerances
def _result(value=93.0, label="dictionary", ok=True):
    return {"tables": {"table2": {"rows": [{"method": label, "value": value, "ok": ok}]},
                       "still": {"rows": [{"n": 5}]}}}


def test_table_moves_finds_the_largest_move_and_the_flips():
    moves = H.table_moves(_result(93.0), _result(93.004, ok=False))
    assert moves["table2"].largest == pytest.approx(0.004) and "column 'value'" in moves["table2"].where
    assert moves["table2"].flips == ["row 0 'ok': True -> False"]
    assert moves["still"].largest == 0 and not moves["still"].flips
    nan = H.table_moves(_result(float("nan")), _result(float("nan")))
    assert not nan["table2"].flips and nan["table2"].largest == 0
    assert H.table_moves(_result(float("nan")), _result(1.0))["table2"].flips


def test_tolerance_is_the_margin_times_the_move_rounded_up():
    assert H.tolerance_of(H.TableMove("t", 0.004)) == pytest.approx(0.008)
    assert H.tolerance_of(H.TableMove("t", 0.0123456)) == pytest.approx(0.0247)
    assert H.tolerance_of(H.TableMove("t", 1e-7)) is None  # within the check's own floor: no entry


def test_a_move_just_below_the_check_s_own_tolerance_still_gets_the_margin():
    """A table that moved by 0.9e-6 used to get no entry, so the check allowed it 1e-6: 1.1 x its move, not
    the 2 x every other table gets. Any move the check's own tolerance does not cover twice gets an entry."""
    from xalign.book.check import ABS_TOL

    assert H.FLOOR == ABS_TOL  # the harness reasons about the check's own tolerance
    moves = H.table_moves(_result(93.0), _result(93.0 + 0.9e-6))
    assert moves["table2"].by_column == {"value": pytest.approx(0.9e-6)}
    entry = H.measured_entries(moves, "test")["table2"]
    assert entry["tolerance"] >= H.MARGIN * 0.9e-6 and entry["column_tolerances"]["value"] >= H.MARGIN * 0.9e-6
    assert H.tolerance_of(H.TableMove("t", H.NO_MOVE)) is None  # covered twice by the check's own tolerance


def _save(results_root, value, monkeypatch):
    monkeypatch.setenv("XALIGN_RESULTS", str(results_root))
    run = ChapterRun(CHAPTER, "gaschi2022", "default", {"model": "multilingual-e5-small"})
    run.precision = "torch.float32"
    run.compare("table2", pd.DataFrame({"method": ["dictionary"], "pair": ["en-de"], "value": [value]}),
                keys=["method", "pair"])
    return run.save()


def test_measured_variation_is_written_and_read_by_check(tmp_path, monkeypatch, capsys):
    ref_dir = tmp_path / "reference"
    _save(tmp_path / "ref-results", 93.0, monkeypatch)
    K.make_reference("default", tmp_path / "ref-results", ref_dir)
    _save(tmp_path / "v1", 93.01, monkeypatch)
    _save(tmp_path / "v2", 92.97, monkeypatch)
    assert main(["check", "01", "--measure-variation", "--reference", str(ref_dir),
                 "--variant-results", str(tmp_path / "v1"), "--variant-results", str(tmp_path / "v2")]) == 0
    out = capsys.readouterr().out
    assert "moves table2" in out and "largest move 0.03" in out
    tol = load_variation(ref_dir / f"{CHAPTER}.variation.yaml")["table2"]
    assert tol.tolerance == pytest.approx(0.06) and tol.source.startswith("measured: 2 rerun(s)")
    # a rerun inside the measured tolerance passes; one beyond it fails, naming the tolerance
    _save(tmp_path / "inside", 93.05, monkeypatch)
    assert K.check("01", tmp_path / "inside", ref_dir)
    _save(tmp_path / "beyond", 93.07, monkeypatch)
    assert not K.check("01", tmp_path / "beyond", ref_dir, echo=lambda line: capsys.readouterr())


def test_bad_harness_arguments_fail_before_any_run(tmp_path, capsys):
    assert main(["check", "01", "--measure-variation", "--variants", "0", "--reference", str(tmp_path)]) == 2
    assert "--variants must be an integer >= 1" in capsys.readouterr().err
    with pytest.raises(ValueError, match="XALIGN_PERTURB"), H.harness_environment(-1, 1, 2):
        pass
    assert "XALIGN_PERTURB" not in os.environ  # restored even when it fails


def test_a_measured_variation_survives_a_new_reference(tmp_path, monkeypatch):
    ref_dir = tmp_path / "reference"
    _save(tmp_path / "ref-results", 93.0, monkeypatch)
    K.make_reference("default", tmp_path / "ref-results", ref_dir)
    _save(tmp_path / "v1", 93.01, monkeypatch)
    assert H.measure("01", reference=str(ref_dir), variant_results=[str(tmp_path / "v1")], echo=lambda _: None) == 0
    vpath = ref_dir / f"{CHAPTER}.variation.yaml"
    measured = vpath.read_text()
    K.make_reference("default", tmp_path / "ref-results", ref_dir)  # `xalign reference` again
    assert vpath.read_text() == measured


def test_each_column_gets_its_own_measured_tolerance(tmp_path):
    # chapter 5: a count column moved by 26 items while the accuracies moved by 0.4; one table-wide
    # tolerance of 2 x 26 would have let any accuracy move by 52 points
    ref = {"tables": {"gap": {"rows": [{"acc": 50.0, "count": 10.0, "n": 450}]}}}
    new = {"tables": {"gap": {"rows": [{"acc": 50.4, "count": 36.0, "n": 450}]}}}
    moves = H.table_moves(ref, new)
    assert moves["gap"].by_column == {"acc": pytest.approx(0.4), "count": 26.0}
    path = H.write_measured(tmp_path / "x.variation.yaml", moves, "a test", "Measured variation (a test)")
    tol = load_variation(path)["gap"]
    assert tol.for_column("acc") == pytest.approx(0.8) and tol.for_column("count") == 52.0
    assert tol.for_column("n") == 0.0  # did not move: no tolerance beyond the check's own
    assert not K.check_table("gap", ref["tables"]["gap"], {"rows": [{"acc": 52.0, "count": 10.0, "n": 450}]},
                             variation=tol).ok
    assert K.check_table("gap", ref["tables"]["gap"], {"rows": [{"acc": 50.7, "count": 40.0, "n": 450}]},
                         variation=tol).ok


def test_a_perturbed_rerun_records_it_and_never_becomes_the_reference(tmp_path, monkeypatch):
    monkeypatch.setenv("XALIGN_PERTURB", "4:1")
    path = _save(tmp_path / "perturbed", 93.0, monkeypatch)
    assert json.loads(path.read_text())["perturbation"] == "4:1"
    with pytest.raises(ValueError, match="variation-harness rerun"):
        K.make_reference("default", tmp_path / "perturbed", tmp_path / "reference")


def test_a_claims_margin_is_its_columns_measured_tolerance(tmp_path):
    from xalign.book.claims import margin

    moves = H.table_moves({"tables": {"t": {"rows": [{"ours": 50.0, "count": 10.0}]}}},
                          {"tables": {"t": {"rows": [{"ours": 50.5, "count": 30.0}]}}})
    H.write_measured(tmp_path / f"{CHAPTER}.variation.yaml", moves, "a test", "Measured variation (a test)")
    assert margin(CHAPTER, "t", tmp_path, "ours") == (1.0, "the measured rerun tolerance of 'ours'")
    assert margin(CHAPTER, "t", tmp_path)[0] == 40.0  # no column named: the table's largest


def test_a_second_measurement_merges_with_the_first_and_never_loses_it(tmp_path):
    # issue 46: the harness's reruns and a run on a real second machine are two measurements of one
    # variation; measuring again with --merge-variation keeps the larger of both, per column, both sources named
    from xalign.book.variation import MEASURED_MARK

    ref = {"tables": {"t": {"rows": [{"acc": 50.0, "sd": 1.0}]}, "u": {"rows": [{"x": 1.0}]}}}
    first = H.table_moves(ref, {"tables": {"t": {"rows": [{"acc": 50.4, "sd": 1.0}]}, "u": {"rows": [{"x": 1.0}]}}})
    second = H.table_moves(ref, {"tables": {"t": {"rows": [{"acc": 50.1, "sd": 1.3}]}, "u": {"rows": [{"x": 1.5}]}}})
    path = tmp_path / "x.variation.yaml"
    H.write_measured(path, first, "the harness", MEASURED_MARK.removeprefix("# ") + " a test)", item_flips=None)
    H.write_measured(path, second, "a second machine", "a later one", merge=True)
    v = load_variation(path)
    assert v["t"].for_column("acc") == pytest.approx(0.8) and v["t"].for_column("sd") == pytest.approx(0.6)
    assert v["u"].for_column("x") == pytest.approx(1.0)  # measured by the second run only
    assert "the harness" in v["t"].source and "a second machine" in v["t"].source
    text = path.read_text()
    assert text.startswith(MEASURED_MARK) and "a later one" in text
    # the header says what each measurement reran, not only the reference's machine once per merge
    comments = [line for line in text.splitlines() if line.startswith("# ")]
    assert "# Measured: the harness." in comments and "# Measured: a second machine." in comments
    # without merge the second measurement replaces the first (the old behaviour stays the default)
    H.write_measured(path, second, "a second machine", MEASURED_MARK.removeprefix("# ") + " b)")
    assert load_variation(path)["t"].for_column("acc") == pytest.approx(0.2)


def test_merged_item_flips_add_up():
    a = {"tables": {}, "item_flips": H.item_flips_entry(3, 1000)}
    b = {"tables": {}, "item_flips": H.item_flips_entry(1, 3000)}
    merged = H.merge_measured(a, b)["item_flips"]
    assert merged["flipped"] == 4 and merged["scored"] == 4000
    assert merged["rate_upper"] == H.item_flips_entry(4, 4000)["rate_upper"]


def test_a_rerun_made_on_another_machine_says_so():
    amd = {"cpu": {"vendor": "AuthenticAMD", "model": "AMD EPYC", "isa": ["AVX2"], "torch_capability": "AVX2"},
           "threads": {"torch": 1, "blas": 1}}
    xeon = {"cpu": {"vendor": "GenuineIntel", "model": "Xeon", "isa": ["AVX2", "AMX"], "torch_capability": "AVX512"},
            "threads": {"torch": 1, "blas": 1}}
    assert "another machine" in H._made_how({"machine": xeon}, {"machine": amd})
    assert "another machine" not in H._made_how({"machine": {**amd, "threads": {"torch": 2, "blas": 2}}},
                                                 {"machine": amd})


def test_a_rerun_with_another_batch_size_names_it():
    """A rerun read from results that encoded with other batches says so in the variation file's source."""
    amd = {"cpu": {"vendor": "AuthenticAMD", "model": "AMD EPYC", "isa": ["AVX2"], "torch_capability": "AVX2"},
           "threads": {"torch": 1, "blas": 1}, "encoding": {"batch_tokens": 1024}}
    other = {**amd, "threads": {"torch": 2, "blas": 2}, "encoding": {"batch_tokens": 512}}
    assert "batches of 512 tokens" in H._made_how({"machine": other}, {"machine": amd})
    assert "batches of" not in H._made_how({"machine": {**amd, "threads": {"torch": 2, "blas": 2}}},
                                           {"machine": amd})
