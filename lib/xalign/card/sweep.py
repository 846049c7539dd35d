"""Sweeps past one machine: run (model, measure) tasks serially or on Dask distributed.

A sweep is a list of :class:`Task` s, each a picklable description of one
(model, measure) computation: the model (a name or a directory the workers can
read), the measure's id, keyword options, and the dotted name of a top-level
function ``fn(model, measure, **options) -> dict`` that computes it.
:func:`run_tasks` runs them

- serially in this process (``cluster=None``, the default; Dask is not imported);
- on a Dask ``LocalCluster`` on this machine (``cluster="local"``: ``n_workers``
  worker processes with one thread each, so each task owns one core);
- on a running Dask cluster (``cluster="tcp://scheduler:8786"``, or a
  ``distributed.Client`` / cluster object).

Results come back in task order and are the same as the serial run's: each
task runs the same function on the same arguments, in a worker process that
sees the submitter's ``XALIGN_*`` variables (:data:`PASSED_ENV`). Dask workers
run numpy/torch on one thread (``OMP_NUM_THREADS=1``); a model encoded afresh
with another thread count may differ in the last bits of a float, so results
are bit-identical when the embeddings come from the cache (or the serial run
also uses one thread), as every measure downstream of them is deterministic.

GPUs are Dask *resources*: start GPU workers with ``--resources GPU=1``
(``dask worker tcp://scheduler:8786 --resources GPU=1``); a task asks for one
(``resources={"GPU": 1}``) only when its options say so (``device="cuda..."``
or ``gpu=True``, see :func:`wants_gpu`). Every other task runs on any worker.

The embedding cache: each task sees the submitting process's ``XALIGN_CACHE``
(when it is set; unset, every process uses its user's ``~/.cache/xalign``), so
all workers read and write one cache when that path is on a file system they
all see -- always so for the ``LocalCluster``, and so on a cluster with a
shared (network) file system. The cache is safe for concurrent
writers (atomic writes, one file per key), so workers never corrupt it; at
worst two workers compute the same embedding once each. Where the workers
cannot see the path, pass ``env={"XALIGN_CACHE": None}`` and each worker keeps
its own cache in its user cache directory (``~/.cache/xalign`` on that machine).
"""

from __future__ import annotations

import hashlib
import importlib
import os
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from xalign.core.devices import is_gpu

#: environment variables a task sees as the submitting process had them (when set there)
PASSED_ENV = ("XALIGN_CACHE", "XALIGN_DATA_MIRROR", "XALIGN_RESULTS")
#: the stand-in measure function (used by the tests; the card passes its own)
TOY = "xalign.card.sweep:toy_measure"


@dataclass(frozen=True)
class Task:
    """One (model, measure) computation: ``fn(model, measure, **options)``; ``fn`` is ``"module:function"``."""

    model: str
    measure: str
    options: Mapping = field(default_factory=dict)
    fn: str = TOY

    def __post_init__(self):
        if not isinstance(self.model, str) or not self.model:
            raise TypeError(f"Task.model must be a model name or directory (a non-empty string), got {self.model!r}: "
                            "a Python model object cannot travel to other machines")
        if not isinstance(self.fn, str) or ":" not in self.fn:
            raise ValueError(f"Task.fn must name a top-level function as 'module:function', got {self.fn!r}")

    @property
    def label(self) -> str:
        return f"{self.model} / {self.measure}"


def wants_gpu(task: Task) -> bool:
    """Does the task ask for a GPU? ``options["device"]`` starting with ``cuda``, or ``options["gpu"]`` true."""
    return is_gpu(task.options.get("device") or None) or bool(task.options.get("gpu", False))


def resolve(fn: str) -> Callable:
    """The function named ``"package.module:function"``."""
    module, _, name = fn.partition(":")
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"task function {fn!r} cannot be imported: {exc}") from exc


def execute(task: Task, env: Mapping[str, str | None] | None = None):
    """Run one task here (serially, or inside a Dask worker) with ``env`` applied for its duration."""
    env = dict(env or {})
    saved = {k: os.environ.get(k) for k in env}
    _set_env(env)
    try:
        return resolve(task.fn)(task.model, task.measure, **dict(task.options))
    except Exception as exc:
        raise RuntimeError(f"task {task.label} failed: {type(exc).__name__}: {exc}") from exc
    finally:
        _set_env(saved)


def _set_env(env: Mapping[str, str | None]) -> None:
    for k, v in env.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


def task_env(env: Mapping[str, str | None] | None = None) -> dict[str, str | None]:
    """The ``XALIGN_*`` variables a task runs with: this process's values (when set), updated by ``env``.

    A value of ``None`` removes the variable on the worker (e.g. ``XALIGN_CACHE``: a cache per worker).
    """
    out: dict[str, str | None] = {k: os.environ[k] for k in PASSED_ENV if os.environ.get(k)}
    out.update(env or {})
    return out


def run_tasks(tasks: Iterable[Task], cluster=None, *, n_workers: int = 2, env=None, log=None) -> list:
    """Run every task; the results, in task order.

    ``cluster``: ``None`` (serial, here), ``"local"`` (a Dask ``LocalCluster`` of ``n_workers``
    single-thread worker processes, closed afterwards), a scheduler address (``"tcp://host:8786"``),
    or a ``distributed.Client`` / cluster object (left open). ``env`` overrides the passed
    ``XALIGN_*`` variables (:func:`task_env`). A failing task raises ``RuntimeError`` naming it.
    """
    tasks = list(tasks)
    for t in tasks:
        if not isinstance(t, Task):
            raise TypeError(f"tasks must be sweep.Task objects, got {type(t).__name__}")
    variables = task_env(env)
    if cluster is None:
        return [execute(t, variables) for t in tasks]
    client, close = _client(cluster, n_workers)
    try:
        if log:
            log(f"[sweep] {len(tasks)} task(s) on {client.scheduler.address} "
                f"({len(client.scheduler_info(n_workers=-1)['workers'])} worker(s))")
        gpu = [t for t in tasks if wants_gpu(t)]
        if gpu and not _gpu_workers(client):
            raise RuntimeError(f"{len(gpu)} task(s) ask for a GPU (e.g. {gpu[0].label}) but no worker declares "
                               "one: start GPU workers with `dask worker ADDRESS --resources GPU=1`")
        # a fresh key per run: a finished task of an earlier run (other env, other code) is never reused
        futures = [client.submit(execute, t, variables, key=f"xalign-{t.measure}-{uuid.uuid4().hex}",
                                 resources={"GPU": 1} if wants_gpu(t) else None)
                   for t in tasks]
        return client.gather(futures)
    finally:
        close()


#: seconds to wait for a scheduler at an address before saying so
CONNECT_TIMEOUT_S = 30


class ClusterConnectError(ConnectionError):
    """No Dask scheduler answers at the address given (nothing listens, or something else does)."""


def _connect(client_class, address: str, timeout: float = CONNECT_TIMEOUT_S):
    """A ``distributed.Client`` of the scheduler at ``address``, or :class:`ClusterConnectError` naming it.

    Whatever another server at that port sends (an HTTP reply read as a Dask message asks for exabytes),
    a refused or timed-out connection: all are one error naming the address and how to start a scheduler.
    """
    try:
        return client_class(address, timeout=timeout)
    except Exception as exc:  # any failure to connect is the same fault for the user
        raise ClusterConnectError(
            f"--cluster {address}: no Dask scheduler answered within {timeout:g} s ({type(exc).__name__}: "
            f"{str(exc)[:160]}); start one there (`dask scheduler --port PORT`, workers with `dask worker "
            f"{address}`) or use --cluster local") from exc


def _client(cluster, n_workers: int):
    """A ``distributed.Client`` for ``cluster`` and a function that closes what was opened here."""
    try:
        from distributed import Client, LocalCluster
    except ImportError as exc:  # pragma: no cover - dask is in requirements.txt
        raise ImportError("cluster runs need Dask: pip install 'dask[distributed]'") from exc
    if isinstance(cluster, Client):
        return cluster, lambda: None
    if isinstance(cluster, str) and cluster == "local":
        if n_workers < 1:
            raise ValueError(f"n_workers must be >= 1, got {n_workers}")
        local = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                             dashboard_address=":0", scheduler_port=0)  # free ports: many sweeps may share a host
        client = Client(local.scheduler_address)

        def close():
            client.close()
            local.close()

        return client, close
    if isinstance(cluster, str):
        if "://" not in cluster:
            raise ValueError(f"cluster must be 'local' or a scheduler address like 'tcp://host:8786', got {cluster!r}")
        client = _connect(Client, cluster)
        return client, client.close
    if hasattr(cluster, "scheduler_address"):  # a dask cluster object (LocalCluster, SLURMCluster, ...)
        client = Client(cluster)
        return client, client.close
    raise TypeError(f"cluster must be None, 'local', a scheduler address or a dask Client/cluster, got {cluster!r}")


def _gpu_workers(client) -> list[str]:
    workers = client.scheduler_info(n_workers=-1)["workers"]
    return [w for w, info in workers.items() if info.get("resources", {}).get("GPU", 0) >= 1]


# ------------------------------------------------------------------ a stand-in measure (tests, demos)
TOY_MEASURES = ("retrieval", "procrustes_retrieval", "sts")


def toy_measure(model: str, measure: str, n: int = 48, dim: int = 16, noise: float = 0.5, n_boot: int = 200,
                seed: int = 0, **_) -> dict:
    """A deterministic measure on generated "translations" of a model name (no model, no data, no torch).

    The model's sentence vectors X are drawn from a seed derived from its name; their
    "translations" are Y = X R + noise * E for a random rotation R. ``measure``:
    ``retrieval`` (NN accuracy X -> Y, percent), ``procrustes_retrieval`` (the same on the
    second half after a Procrustes map fitted on the first half) or ``sts`` (Spearman x 100
    of pair cosines against the true closeness of the pairs); with a bootstrap interval.
    Other options (``device``, ...) are accepted and ignored.
    """
    import numpy as np

    from xalign.measures.intervals import accuracy_ci, bootstrap_ci
    from xalign.measures.mapping import procrustes
    from xalign.measures.sts import sts_spearman

    if measure not in TOY_MEASURES:
        raise ValueError(f"measure must be one of {TOY_MEASURES}, got {measure!r}")
    digest = hashlib.sha256(f"{model}|{seed}".encode()).digest()
    rng = np.random.default_rng(int.from_bytes(digest[:8], "little"))
    X = rng.standard_normal((n, dim))
    R = np.linalg.qr(rng.standard_normal((dim, dim)))[0]
    Y = X @ R + noise * rng.standard_normal((n, dim))
    if measure == "sts":
        Z = X + rng.uniform(0, 3 * noise, (n, 1)) * rng.standard_normal((n, dim))
        gold = -np.linalg.norm(Z - X, axis=1)  # the closer the pair, the more similar

        def stat(rows):  # rows: resampled pair indices (as floats)
            i = rows.astype(np.int64)
            return sts_spearman(X[i], Z[i], gold[i])

        value = sts_spearman(X, Z, gold)
        lo, hi = bootstrap_ci(np.arange(n), stat, n_boot=n_boot, seed=seed)
        return {"model": model, "measure": measure, "value": value, "lo": lo, "hi": hi, "n": n}
    if measure == "procrustes_retrieval":
        half = n // 2
        X, Y = X[half:] @ procrustes(X[:half], Y[:half]), Y[half:]
    unit = [A / np.linalg.norm(A, axis=1, keepdims=True) for A in (X, Y)]
    hits = (unit[0] @ unit[1].T).argmax(1) == np.arange(len(X))
    lo, hi = accuracy_ci(hits, n_boot=n_boot, seed=seed)
    return {"model": model, "measure": measure, "value": 100 * float(hits.mean()), "lo": 100 * lo, "hi": 100 * hi,
            "n": len(X)}
