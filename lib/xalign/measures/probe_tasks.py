"""Probe evaluation on tasks (SentEval's engine): embed a task's texts once, fit, score, transfer.

:func:`evaluate` runs the classifiers of :mod:`xalign.measures.probe` on a
:class:`~xalign.data.tasks.Task`; :func:`learning_curve`, :func:`run_grid`, :func:`sweep` and
:func:`evaluate_transfer` are the loops around it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from xalign.data.tasks import Split, Task
from xalign.measures.folds import cv_splits, first_text_groups
from xalign.measures.probe import Batcher, ProbeSpec, evaluate_features, fit_predict, pair_features, score_predictions
from xalign.measures.probe_seeds import seed_scores


def features(split: Split, vectors: dict[str, np.ndarray]) -> np.ndarray:
    """Feature rows of a split: the sentence vector, or pair features for two slots.

    Args:
        split: the split's texts (one or two slots) and labels.
        vectors: text -> (d,) vector.

    Returns:
        (n, d) or, for two slots, (n, 4d) float32 (:func:`xalign.measures.probe.pair_features`).
    """
    vec = [np.stack([vectors[t] for t in slot]) for slot in split.texts]
    if len(vec) == 1:
        return vec[0].astype(np.float32)
    if len(vec) == 2:
        return pair_features(*vec)
    raise ValueError(f"splits with {len(vec)} sentence slots are not supported")


def embed(batcher: Batcher, texts: Sequence[str]) -> dict[str, np.ndarray]:
    """Call ``batcher`` once on the distinct texts (sorted).

    Args:
        batcher: texts -> (n, d) vectors.
        texts: the texts (repeats allowed).

    Returns:
        text -> (d,) vector.
    """
    uniq = sorted(set(texts))
    out = np.asarray(batcher(uniq))
    if out.ndim != 2 or len(out) != len(uniq):
        raise ValueError(f"batcher returned shape {out.shape} for {len(uniq)} texts (expected (n, dim))")
    return dict(zip(uniq, out))


@dataclass(frozen=True)
class TaskArrays:
    """What a probe of one task is fitted and tested on (:func:`task_arrays`).

    ``train`` (n_train, d) and ``test`` (n_test, d) float32 feature rows (:func:`features`); ``dev`` the dev
    split's (features, labels) or None; ``groups`` (n_train,) int ids: training rows that share their first
    sentence (:func:`xalign.measures.folds.first_text_groups`), kept together in every fold and hold-out.
    """

    train: np.ndarray
    test: np.ndarray
    dev: tuple | None
    groups: np.ndarray | None


def task_arrays(task: Task, batcher: Batcher, use_dev: bool = True) -> TaskArrays:
    """Encode the task's texts with ``batcher`` (once each) and build its probe inputs; ``use_dev``: keep the
    dev split when the task has one (else the probes select by k-fold on train)."""
    vectors = embed(batcher, task.all_texts())
    dev = (features(task.dev, vectors), task.dev.labels) if (task.dev is not None and use_dev) else None
    return TaskArrays(features(task.train, vectors), features(task.test, vectors), dev,
                      first_text_groups(task.train.texts))


def evaluate(task: Task, batcher: Batcher, probes: Sequence[ProbeSpec], seed: int = 1111,
             use_dev: bool = True, seeds: Sequence[int] | None = None) -> list[dict]:
    """Encode the task's texts with ``batcher`` and score every probe.

    Args:
        task: the task (train, optional dev, test splits).
        batcher: texts -> (n, d) vectors.
        probes: the probe set-ups.
        seed: the probes' seed (when ``seeds`` is None).
        use_dev: select on the task's dev split when it has one (else k-fold on train).
        seeds: train every probe once per seed and report the mean with the seed spread
            (:func:`xalign.measures.probe_seeds.seed_scores`); None: one fit with ``seed``.

    Returns:
        One result dict per probe (accuracy and macro-F1 in percent, with the selection).
    """
    A = task_arrays(task, batcher, use_dev)
    if seeds is not None:
        return [{"task": task.name, **task.meta, **r} for r in _evaluate_seeds(
            A.train, task.train.labels, [A.test], [task.test.labels], probes, task.n_classes, A.dev, seeds,
            A.groups)]
    rows = []
    for spec in probes:
        r = evaluate_features(A.train, task.train.labels, A.test, task.test.labels, spec,
                              dev=A.dev, n_classes=task.n_classes, seed=seed, groups=A.groups)
        rows.append({"task": task.name, **task.meta, **r})
    return rows


def _evaluate_seeds(Xtr, ytr, tests: list, test_labels: list, probes: Sequence[ProbeSpec], n_classes: int,
                    dev: tuple | None, seeds: Sequence[int], groups=None) -> list[dict]:
    """Every probe fitted once per seed (cached fits) and scored on every test set: one dict per probe
    and test set (probe-major), the selection info of the first seed's fit (a full-batch probe's regulariser
    is chosen once, with the first seed: :func:`xalign.measures.probe.fit_predict`)."""
    rows = []
    for spec in probes:
        t0 = time.time()
        fits = [fit_predict(Xtr, ytr, spec, n_classes, dev, int(s), tests, groups=groups, select_seed=int(seeds[0]))
                for s in seeds]
        info = fits[0][1]
        for i, y in enumerate(test_labels):
            rows.append({"probe": spec.name, **seed_scores(y, [f[0][i] for f in fits], n_classes, seeds),
                         "reg": info["reg"], "reg_by_seed": [f[1]["reg"] for f in fits],
                         "selection": info["selection"], "early_stopping": info.get("early_stopping"),
                         "cv_acc": info["cv_best"], "dev_acc": info.get("dev_acc"), "n_train": len(ytr),
                         "n_test": len(y), "seconds": round(time.time() - t0, 2)})
    return rows


def learning_curve(task: Task, batcher: Batcher, spec: ProbeSpec, sizes: Sequence[int],
                   seed: int = 1111, use_dev: bool = True) -> list[dict]:
    """Test scores after training on stratified random subsets of the training items.

    Args:
        task: the task.
        batcher: texts -> (n, d) vectors.
        spec: the probe.
        sizes: training items per point.
        seed: the subsets' and the probe's seed.
        use_dev: select on the dev split when there is one.

    Returns:
        One result dict per size.
    """
    from sklearn.model_selection import train_test_split

    A = task_arrays(task, batcher, use_dev)
    Xtr, Xte, dev, groups, y = A.train, A.test, A.dev, A.groups, task.train.labels
    rows = []
    for n in sorted(sizes):
        if n >= len(y):
            idx = np.arange(len(y))
        else:
            idx, _ = train_test_split(np.arange(len(y)), train_size=n, stratify=y, random_state=seed)
        r = evaluate_features(Xtr[idx], y[idx], Xte, task.test.labels, spec, dev=dev,
                              n_classes=task.n_classes, seed=seed, groups=None if groups is None else groups[idx])
        rows.append({"task": task.name, **task.meta, **r})
    return rows


def run_grid(tasks: Sequence[Task], batchers: dict[str, Batcher], probes: Sequence[ProbeSpec],
             seed: int = 1111, progress: bool = True, use_dev: bool = True, seeds: Sequence[int] | None = None):
    """Every task x feature set x probe.

    Args:
        tasks: the tasks.
        batchers: feature set name -> texts -> (n, d) vectors.
        probes: the probe set-ups.
        seed: the probes' seed (when ``seeds`` is None).
        progress: show a progress bar.
        use_dev: select and early-stop on each task's dev split where it has one.
        seeds: one fit per seed, mean and seed spread per row (:func:`evaluate`).

    Returns:
        A long DataFrame, one row per run (scores in percent).
    """
    import pandas as pd

    from xalign.core.progress import bar

    rows = []
    jobs = [(t, name, b) for t in tasks for name, b in batchers.items()]
    for task, name, batcher in bar(jobs, desc="probes", disable=not progress or len(jobs) < 2):
        for r in evaluate(task, batcher, probes, seed=seed, use_dev=use_dev, seeds=seeds):
            rows.append({"features": name, **r})
    return pd.DataFrame(rows)


def sweep(task: Task, batcher_for: Callable[..., Batcher], grid: Sequence[dict], spec: ProbeSpec,
          seed: int = 1111, progress: bool = True):
    """One probe over a grid of feature settings (e.g. pooling x layer).

    Args:
        task: the task.
        batcher_for: ``batcher_for(**point)`` gives the batcher of one grid point.
        grid: the points (dicts; their keys become columns).
        spec: the probe.
        seed: the probe's seed.
        progress: show a progress bar.

    Returns:
        A DataFrame, one row per point (scores in percent).
    """
    import pandas as pd

    from xalign.core.progress import bar

    rows = []
    for point in bar(list(grid), desc=f"sweep {task.name}", disable=not progress):
        for r in evaluate(task, batcher_for(**point), [spec], seed=seed):
            rows.append({**point, **r})
    return pd.DataFrame(rows)


def with_holdout(task: Task, frac: float = 0.2, seed: int = 1111) -> Task:
    """The task with a stratified share of its training rows moved to a dev split (for selection).

    Rows that share their first sentence (an XNLI premise's hypotheses) move together
    (:func:`xalign.measures.folds.first_text_groups`): the first of ``round(1 / frac)`` grouped stratified folds.

    Args:
        task: the task.
        frac: share of the training rows moved, in (0, 1).
        seed: the split's seed.

    Returns:
        A new task.
    """
    from sklearn.model_selection import train_test_split

    idx = np.arange(len(task.train.labels))
    groups = first_text_groups(task.train.texts)
    if groups is None:
        tr, dv = train_test_split(idx, test_size=frac, stratify=task.train.labels, random_state=seed)
    else:
        tr, dv = cv_splits(task.train.labels, max(2, round(1 / frac)), seed, groups)[0]
    take = lambda ii: Split(tuple([slot[i] for i in ii] for slot in task.train.texts), task.train.labels[ii])
    return Task(task.name, take(np.sort(tr)), task.test, task.n_classes, dev=take(np.sort(dv)),
                meta={**task.meta, "holdout": frac})


def run_steps(task: Task, steps: Sequence[tuple], seed: int = 1111, meta: dict | None = None,
              seeds: Sequence[int] | None = None) -> list[dict]:
    """Evaluate a sequence of steps on one task.

    A step's optional fourth element replaces ``task`` for that step (e.g. the same data with a dev
    split for a configuration that early-stops on one).

    Args:
        task: the task.
        steps: (step name, batcher, probes[, task]) tuples.
        seed: the probes' seed (when ``seeds`` is None).
        meta: columns added to every row.
        seeds: one fit per seed, mean and seed spread per row (:func:`evaluate`).

    Returns:
        Result dicts carrying ``step`` and ``meta``.
    """
    return [{**r, "step": step[0], **(meta or {})} for step in steps
            for r in evaluate(step[3] if len(step) > 3 else task, step[1], step[2], seed=seed, seeds=seeds)]


def evaluate_transfer(source: Task, targets: Sequence[Task], batcher: Batcher, probes: Sequence[ProbeSpec],
                      seed: int = 1111, use_dev: bool = True, seeds: Sequence[int] | None = None) -> list[dict]:
    """Zero-shot transfer: select and fit each probe once on ``source``, test on every target's test split.

    Args:
        source: the training task.
        targets: tasks whose test splits are scored.
        batcher: texts -> (n, d) vectors.
        probes: the probe set-ups.
        seed: the probes' seed (when ``seeds`` is None).
        use_dev: select on the source's dev split when it has one.
        seeds: one fit per seed, mean and seed spread per row (:func:`evaluate`).

    Returns:
        One result dict per probe and target (accuracy in percent).
    """
    vectors = embed(batcher, sorted({t for s in [source.train, source.dev] if s is not None
                                     for slot in s.texts for t in slot}
                                    | {t for tg in targets for slot in tg.test.texts for t in slot}))
    Xtr = features(source.train, vectors)
    dev = (features(source.dev, vectors), source.dev.labels) if (source.dev is not None and use_dev) else None
    tests = [features(tg.test, vectors) for tg in targets]
    groups = first_text_groups(source.train.texts)
    if seeds is not None:
        rows = _evaluate_seeds(Xtr, source.train.labels, tests, [tg.test.labels for tg in targets], probes,
                               source.n_classes, dev, seeds, groups)
        order = [tg for _ in probes for tg in targets]  # the rows are probe-major
        return [{"task": f"{source.name} => {tg.name}", **tg.meta, **r} for tg, r in zip(order, rows)]
    rows = []
    for spec in probes:
        t0 = time.time()
        preds, info = fit_predict(Xtr, source.train.labels, spec, source.n_classes, dev, seed, tests, groups=groups)
        for tg, pred in zip(targets, preds):
            rows.append({"task": f"{source.name} => {tg.name}", **tg.meta, "probe": spec.name,
                         **score_predictions(tg.test.labels, pred, source.n_classes), "reg": info["reg"],
                         "selection": info["selection"], "early_stopping": info.get("early_stopping"),
                         "cv_acc": info["cv_best"], "n_train": len(source.train.labels),
                         "n_test": len(tg.test.labels), "seconds": round(time.time() - t0, 2)})
    return rows
