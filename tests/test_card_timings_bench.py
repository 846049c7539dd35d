"""bench/card_timings.py: cold and warm card times next to their targets."""

import importlib.util
from pathlib import Path

import pytest

BENCH = Path(__file__).parents[1] / "bench" / "card_timings.py"


def _bench():
    spec = importlib.util.spec_from_file_location("card_timings", BENCH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_table_sets_each_time_beside_its_target():
    bench = _bench()
    quick = bench.timing_table("quick", {"cold": 290.0, "warm": 45.0}, cores=2)
    assert "| cold, 2 CPU cores | 4:50 | < 5:00 | yes |" in quick
    assert "| warm, 2 CPU cores | 0:45 | < 0:30 | NO |" in quick
    full = bench.timing_table("full", {"cold": 3000.0})
    assert "| 50:00 | < 60:00 | yes |" in full
    assert "| cold, GPU | 3:00 | < 2:00 | NO |" in bench.timing_table("full", {"cold": 180.0}, gpu=True)


def test_a_warm_only_run_needs_a_cache(capsys):
    with pytest.raises(SystemExit):
        _bench().main(["--warm-only"])
    assert "--warm-only needs --cache" in capsys.readouterr().err


def test_the_bench_runs_the_card_command_with_a_profile_and_its_own_cache(monkeypatch, tmp_path):
    bench = _bench()
    calls = []
    monkeypatch.setattr(bench.subprocess, "run", lambda cmd, **kw: calls.append(cmd))
    assert bench.main(["--model", "m", "--profile", "full", "--cache", str(tmp_path), "--set", "n_boot", "9"]) == 0
    assert len(calls) == 2  # cold, then warm with the same cache
    for cmd in calls:
        assert cmd[cmd.index("--cache") + 1] == str(tmp_path) and cmd[cmd.index("--profile") + 1] == "full"
        assert cmd[cmd.index("card") + 1] == "m" and cmd[-3:] == ["--set", "n_boot", "9"]


def test_a_recorded_run_is_added_to_the_list_with_its_precision_and_machine(tmp_path):
    import json

    bench = _bench()
    card = {"precision": "bfloat16", "step_seconds": {"tatoeba": 3.0}}
    path = tmp_path / "timings.json"
    bench.record_run(path, "m", "quick", {"cold": 200.04, "warm": 20.0}, card, {"tatoeba": 90.0})
    rec = bench.record_run(path, "m", "full", {"cold": 3000.0}, card)
    runs = json.loads(path.read_text())
    assert [r["profile"] for r in runs] == ["quick", "full"] and runs[0]["seconds"] == {"cold": 200.0, "warm": 20.0}
    assert runs[0]["cold_step_seconds"] == {"tatoeba": 90.0} and rec["precision"] == "bfloat16"
    assert rec["cores"] >= 1 and rec["cpu"]
