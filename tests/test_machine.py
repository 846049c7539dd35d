"""Results and cards name their machine (xalign.core.machine); ``xalign check`` prints both and flags a difference."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from xalign.book import check as K
from xalign.book.results import ChapterRun
from xalign.core.machine import cpu_info, isa_names, machine_differences, machine_line, machine_record
from xalign.core.provenance import result_identity

CHAPTER = "01_weak_strong_alignment"
XEON = {"cpu": {"model": "Intel(R) Xeon(R) Platinum 8480+", "vendor": "GenuineIntel", "logical_cpus": 2,
                "isa": ["AVX2", "FMA", "AVX-512F", "AVX-512 BF16", "AMX"], "torch_capability": "AVX512"},
        "blas": {"numpy": "openblas 0.3.31 (SapphireRapids)", "torch": "mkl", "pools": []},
        "threads": {"torch": 2, "torch_interop": 2, "blas": 2}, "device": {"kind": "cpu", "name": "Xeon"}}
EPYC = {"cpu": {"model": "AMD EPYC", "vendor": "AuthenticAMD", "logical_cpus": 2, "isa": ["AVX2", "FMA"],
                "torch_capability": "AVX2"},
        "blas": {"numpy": "openblas 0.3.31 (Haswell)", "torch": "mkl", "pools": []},
        "threads": {"torch": 2, "torch_interop": 2, "blas": 2}, "device": {"kind": "cpu", "name": "AMD EPYC"}}


def test_cpu_info_reads_model_vendor_and_the_kernels_instruction_sets(tmp_path):
    path = tmp_path / "cpuinfo"
    path.write_text("processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Platinum 8480+\n"
                    "flags\t\t: fpu sse2 avx2 fma avx512f avx512_bf16 amx_tile amx_bf16\n\n"
                    "processor\t: 1\nvendor_id\t: Other\nmodel name\t: not the first\n")
    got = cpu_info(str(path))
    assert (got["model"], got["vendor"]) == ("Intel(R) Xeon(R) Platinum 8480+", "GenuineIntel")
    assert isa_names(got["flags"]) == ["AVX2", "FMA", "AVX-512F", "AVX-512 BF16", "AMX", "AMX BF16"]
    assert cpu_info(str(tmp_path / "absent"))["model"]  # no cpuinfo: platform's name, never an error


def test_this_machines_record_names_cpu_isa_blas_threads_and_device():
    rec = machine_record("cpu")
    assert rec["cpu"]["model"] and rec["cpu"]["vendor"] and isinstance(rec["cpu"]["isa"], list)
    assert rec["cpu"]["torch_capability"]  # the kernels torch dispatches to ("AVX2", "AVX512", ...)
    assert rec["blas"]["numpy"] != "unknown" and rec["blas"]["torch"]
    assert rec["threads"]["torch"] >= 1 and rec["threads"]["blas"] >= 1
    assert rec["device"]["kind"] == "cpu"
    json.dumps(rec)  # it goes into a JSON file as it is
    assert not any("/" in str(p.get("prefix", "")) for p in rec["blas"]["pools"])  # no file paths of the user's


def test_the_results_writer_records_the_machine_outside_every_table(tmp_path, monkeypatch):
    monkeypatch.setenv("XALIGN_RESULTS", str(tmp_path))
    run = ChapterRun(CHAPTER, "gaschi2022", "smoke", {"model": "m"})
    run.record("table2", pd.DataFrame({"pair": ["de-en"], "value": [93.0]}))
    saved = json.loads(run.save().read_text())
    assert saved["machine"]["cpu"]["model"] == machine_record()["cpu"]["model"]
    assert saved["machine"]["threads"]["torch"] >= 1 and saved["machine"]["blas"]["numpy"]
    assert saved["tables"]["table2"]["rows"] == [{"pair": "de-en", "value": 93.0}]  # the tables are untouched
    assert "machine" not in result_identity(saved)  # provenance, not identity


def test_a_card_records_the_machine():
    from toy_encoders import CharGrams
    from xalign.card.battery import CardConfig, run_card

    card = run_card(CharGrams(), CardConfig.tiny(), log=lambda *_: None)
    assert card["machine"]["cpu"]["model"] == machine_record()["cpu"]["model"]
    assert card["machine"]["cpu"]["isa"] == machine_record()["cpu"]["isa"] and card["machine"]["device"]["kind"]


def test_differences_are_named_field_by_field():
    diff = machine_differences(EPYC, XEON)
    assert any(d.startswith("cpu model: AMD EPYC vs Intel") for d in diff)
    assert any(d.startswith("cpu isa: AVX2, FMA vs AVX2, FMA, AVX-512F") for d in diff)
    assert any(d.startswith("blas numpy:") for d in diff) and not any(d.startswith("blas torch") for d in diff)
    assert not any(d.startswith("device") for d in diff)  # a CPU device's name is its CPU model: said once
    gpu = {**XEON, "device": {"kind": "cuda", "name": "NVIDIA H100"}}
    assert "device kind: cpu vs cuda" in machine_differences(XEON, gpu)
    assert machine_differences(EPYC, dict(EPYC)) == [] and machine_differences(None, EPYC) == []
    assert machine_line(None) == "not recorded" and "AMD EPYC" in machine_line(EPYC)


def _result(tmp_path, folder, value, machine):
    path = tmp_path / folder / f"{CHAPTER}.json"
    path.parent.mkdir(parents=True)
    result = {"chapter": CHAPTER, "paper": "gaschi2022", "profile": "default", "model": "multilingual-e5-small",
              "params": {"model": "multilingual-e5-small"}, "finished": "2026-11-27T10:00:00",
              "tables": {"table2": {"rows": [{"pair": "de-en", "value": value}]}}}
    if machine is not None:
        result["machine"] = machine
    path.write_text(json.dumps(result))
    return path


@pytest.mark.parametrize("same_value", [True, False])
def test_check_prints_both_machines_and_flags_the_difference(tmp_path, monkeypatch, capsys, same_value):
    ref = _result(tmp_path, "reference", 93.0, EPYC).parent
    fresh = _result(tmp_path, "results", 93.0 if same_value else 93.25, XEON)
    monkeypatch.setattr(K, "fresh_result", lambda r, results=None: json.loads(fresh.read_text()))
    assert K.check(CHAPTER, tmp_path / "results", ref) is same_value
    out = capsys.readouterr().out
    assert "reference machine: AMD EPYC (AuthenticAMD; AVX2, FMA; torch AVX2)" in out
    assert "this run's machine: Intel(R) Xeon(R) Platinum 8480+" in out and "AVX-512 BF16, AMX" in out
    assert "machines DIFFER" in out and "cpu model: AMD EPYC vs Intel(R) Xeon(R) Platinum 8480+" in out
    if not same_value:  # a failing cell names chapter, table, row, column, both values and the tolerance
        assert f"{CHAPTER} / table2 / row 0 value: 93.25, reference 93.0 (tolerance 1.093e-06)" in out


def test_check_says_not_recorded_for_older_results_and_same_kind_for_one_machine(tmp_path, monkeypatch, capsys):
    ref = _result(tmp_path, "reference", 93.0, None).parent
    fresh = _result(tmp_path, "results", 93.0, EPYC)
    monkeypatch.setattr(K, "fresh_result", lambda r, results=None: json.loads(fresh.read_text()))
    assert K.check(CHAPTER, tmp_path / "results", ref)
    out = capsys.readouterr().out
    assert "reference machine: not recorded" in out and "not recorded in the reference)" in out
    assert "DIFFER" not in out
    assert K.machines_report({"machine": EPYC}, {"machine": dict(EPYC)})[-1].startswith("machines: the same kind")


def test_failing_cells_beyond_the_shown_ones_are_counted():
    c = K.TableCheck("t", False, problems=[f"row {i} v: 1, reference 0 (tolerance 1e-06)" for i in range(7)])
    lines = K.failure_lines("01_x", c, shown=5)
    assert lines[0] == "01_x / t / row 0 v: 1, reference 0 (tolerance 1e-06)" and lines[-1] == "01_x / t: and 2 more"


def test_the_batch_size_is_an_environment_knob_recorded_and_compared(monkeypatch):
    from xalign.core.devices import BATCH_TOKENS_ENV, default_batch_tokens
    from xalign.core.machine import machine_differences, machine_line, machine_record

    monkeypatch.delenv(BATCH_TOKENS_ENV, raising=False)
    assert default_batch_tokens("cpu") == 1024
    one = machine_record("cpu")
    monkeypatch.setenv(BATCH_TOKENS_ENV, "384")
    assert default_batch_tokens("cpu") == default_batch_tokens("cuda") == 384
    other = machine_record("cpu")
    assert other["encoding"] == {"batch_tokens": 384} and "batches of 384 tokens" in machine_line(other)
    assert machine_differences(one, other) == ["encoding batch_tokens: 1024 vs 384"]
    old = {k: v for k, v in one.items() if k != "encoding"}  # a record made before the field existed
    assert machine_differences(old, other) == []
    for bad in ("0", "-3", "12k", str(2**20 + 1)):
        monkeypatch.setenv(BATCH_TOKENS_ENV, bad)
        with pytest.raises(ValueError, match="XALIGN_BATCH_TOKENS"):
            default_batch_tokens("cpu")
