"""Sweeps: (model, measure) tasks give the same results serially and on a 2-worker Dask LocalCluster."""

from __future__ import annotations

import json

import pytest

from xalign.card import sweep
from xalign.card.sweep import TOY_MEASURES, Task, run_tasks, toy_measure, wants_gpu

MODELS = ("model-a", "model-b", "model-c")


def battery(**options) -> list[Task]:
    return [Task(m, x, options) for m in MODELS for x in TOY_MEASURES]


# ------------------------------------------------------------------ serial (no Dask)
def test_toy_measure_known_answers():
    # noise 0: a "translation" is its sentence rotated; Procrustes undoes the rotation exactly -> perfect
    # retrieval on the held-out half, while the unmapped spaces retrieve at about chance (1/48)
    r = toy_measure("m", "procrustes_retrieval", noise=0.0)
    assert (r["value"], r["lo"], r["hi"], r["n"]) == (100.0, 100.0, 100.0, 24)
    assert toy_measure("m", "retrieval", noise=0.0)["value"] < 20
    # far more noise than signal: even the mapped retrieval falls towards chance (1/50)
    assert toy_measure("m", "procrustes_retrieval", noise=20.0, n=100)["value"] < 20
    # STS gold = -distance of the pair; the cosine falls with it -> a strong positive rank correlation
    r = toy_measure("m", "sts", n=200)
    assert 50 < r["value"] <= 100 and r["lo"] <= r["value"] <= r["hi"]
    with pytest.raises(ValueError, match="measure must be one of"):
        toy_measure("m", "bleu")


def test_serial_results_in_task_order_and_deterministic():
    tasks = battery()
    out = run_tasks(tasks)
    assert [(r["model"], r["measure"]) for r in out] == [(t.model, t.measure) for t in tasks]
    assert out == run_tasks(tasks)
    assert out[0] != out[len(TOY_MEASURES)]  # another model: other vectors, other numbers


def test_task_errors_name_the_problem():
    with pytest.raises(TypeError, match="Task.model"):
        Task(object(), "sts")
    with pytest.raises(ValueError, match="module:function"):
        Task("m", "sts", fn="toy_measure")
    with pytest.raises(RuntimeError, match="task m / bleu failed: ValueError: measure must be one of"):
        run_tasks([Task("m", "bleu")])
    with pytest.raises(RuntimeError, match="cannot be imported"):
        run_tasks([Task("m", "sts", fn="xalign.card.sweep:nothing_here")])
    with pytest.raises(TypeError, match="sweep.Task"):
        run_tasks([("m", "sts")])
    with pytest.raises(ValueError, match="scheduler address"):
        run_tasks(battery(), cluster="my-cluster")


def test_gpu_is_asked_only_when_the_options_say_so():
    assert not wants_gpu(Task("m", "sts"))
    assert not wants_gpu(Task("m", "sts", {"device": "cpu"}))
    assert wants_gpu(Task("m", "sts", {"device": "cuda:1"}))
    assert wants_gpu(Task("m", "sts", {"gpu": True}))


def test_env_passed_and_restored(monkeypatch, tmp_path):
    monkeypatch.setenv("XALIGN_CACHE", str(tmp_path / "c"))
    monkeypatch.delenv("XALIGN_DATA_MIRROR", raising=False)
    assert sweep.task_env() == {"XALIGN_CACHE": str(tmp_path / "c"), "XALIGN_RESULTS": str(tmp_path / "results")}
    # os:getenv(name, default) is a task function too: it shows the variable as the task sees it
    probe = Task("XALIGN_CACHE", "unset", fn="os:getenv")
    assert run_tasks([probe], env={"XALIGN_CACHE": "/elsewhere"}) == ["/elsewhere"]
    assert run_tasks([probe], env={"XALIGN_CACHE": None}) == ["unset"]
    assert sweep.os.environ["XALIGN_CACHE"] == str(tmp_path / "c")  # restored after the task


# ------------------------------------------------------------------ Dask distributed
distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def cluster():
    """A 2-worker LocalCluster (one thread each) whose workers declare one (pretend) GPU each, as
    ``dask worker ADDRESS --resources GPU=1`` would; one for the whole module (workers take seconds to start)."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0",
                                  resources={"GPU": 1}) as local:
        yield local


@pytest.fixture(scope="module")
def client(cluster):
    with distributed.Client(cluster) as c:
        yield c


def test_two_worker_local_cluster_identical_to_serial(client):
    tasks = battery(n_boot=100)
    serial = run_tasks(tasks)
    logs = []
    parallel = run_tasks(tasks, cluster=client, log=logs.append)
    assert json.dumps(parallel) == json.dumps(serial)  # same numbers to the last bit, same order
    assert "(2 worker(s))" in logs[0]
    ran_on = client.run(lambda: sorted(__import__("sys").modules).count("xalign.measures.sts"))
    assert sorted(ran_on.values()) == [1, 1]  # both workers computed measures


def test_cluster_local_starts_single_thread_workers_and_closes_them(cluster, monkeypatch):
    made = {}

    class Recording:  # stands in for distributed.LocalCluster: records its arguments, points at the fixture's
        scheduler_address = cluster.scheduler_address

        def __init__(self, **kwargs):
            made.update(kwargs)

        def close(self):
            made["closed"] = True

    monkeypatch.setattr(distributed, "LocalCluster", Recording)
    tasks = battery()[:2]
    assert run_tasks(tasks, cluster="local", n_workers=3) == run_tasks(tasks)
    assert made["n_workers"] == 3 and made["threads_per_worker"] == 1 and made["processes"] and made["closed"]
    with pytest.raises(ValueError, match="n_workers must be >= 1"):
        run_tasks(tasks, cluster="local", n_workers=0)


def test_workers_see_the_submitters_cache_and_mirror(client, monkeypatch, tmp_path):
    # set after the workers started: the task carries the values, the workers' own environment is not used
    monkeypatch.setenv("XALIGN_CACHE", str(tmp_path / "shared-cache"))
    monkeypatch.setenv("XALIGN_DATA_MIRROR", str(tmp_path / "mirror"))
    probes = [Task(v, "unset", fn="os:getenv") for v in ("XALIGN_CACHE", "XALIGN_DATA_MIRROR")] * 2
    assert run_tasks(probes, cluster=client) == [str(tmp_path / "shared-cache"), str(tmp_path / "mirror")] * 2
    assert run_tasks(probes[:1], cluster=client, env={"XALIGN_CACHE": None}) == ["unset"]


def test_gpu_tasks_go_to_gpu_workers(client, monkeypatch):
    tasks = battery(device="cuda")[:3]  # toy_measure ignores the device; the scheduler must place it
    assert run_tasks(tasks, cluster=client) == run_tasks(tasks)
    monkeypatch.setattr(sweep, "_gpu_workers", lambda c: [])
    with pytest.raises(RuntimeError, match="--resources GPU=1"):
        run_tasks(tasks, cluster=client)
    assert run_tasks(battery()[:1], cluster=client) == run_tasks(battery()[:1])  # CPU tasks need no GPU worker


def test_a_failing_task_on_a_worker_names_the_task(client):
    with pytest.raises(RuntimeError, match="task m / bleu failed"):
        run_tasks([Task("m", "sts"), Task("m", "bleu")], cluster=client)
