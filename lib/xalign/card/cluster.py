"""Cards of many models at once: every (model, step) of the battery is one task on Dask distributed.

:func:`run_cards` without a cluster is :func:`xalign.card.battery.run_card` per model; with ``cluster``
(``"local"`` or a scheduler address) the tasks run on :mod:`xalign.card.sweep`'s workers, each of
which loads a model once and runs its steps (:func:`run_step`).
"""

from __future__ import annotations

import time
from dataclasses import asdict

from xalign.card.battery import SENTENCE_STEPS, WORD_STEPS, CardConfig, CardModel, _card, _steps, run_card, wrap
from xalign.card.battery import run_step as run_card_step


def run_cards(models, config: CardConfig | None = None, log=print, cluster=None, n_workers: int = 2,
              gpu: bool = False) -> list[dict]:
    """Cards of several models; with ``cluster`` (``"local"`` or a scheduler address) every (model, step)
    is one task on Dask distributed (:mod:`xalign.card.sweep`), ``gpu``: each task asks for a GPU worker."""
    if cluster is None:
        return [run_card(x, config, log) for x in models]
    from xalign.card.sweep import Task, run_tasks

    if any(not isinstance(x, str) for x in models):
        raise TypeError("with a cluster, models must be names or directories the workers can load")
    cfg = config or CardConfig()
    started = time.time()
    ms = [wrap(x, cfg.precision) for x in models]  # here too: which layers and steps each model has
    tasks = [Task(x, step.__name__, {**asdict(cfg), "gpu": gpu}, fn="xalign.card.cluster:run_step")
             for x, m in zip(models, ms) for step in _steps(m)]
    done = iter(run_tasks(tasks, cluster, n_workers=n_workers, log=log))
    return [_card(m, cfg, {step.__name__: next(done) for step in _steps(m)}, started) for m in ms]


_STEPS = {step.__name__: step for step in SENTENCE_STEPS + WORD_STEPS}
_LOADED: dict[tuple[str, str], CardModel] = {}  # (model, precision) -> the model a worker loaded


def run_step(model: str, step: str, gpu: bool = False, **config) -> dict:
    """One step of the battery (a sweep task): ``{"per_layer": {measure: {layer: ...}}, "seconds": ...}``."""
    key = (model, config.get("precision", "auto"))
    if key not in _LOADED:  # a worker runs several steps of a model: load it once per worker
        _LOADED.clear()
        _LOADED[key] = wrap(model, config.get("precision", "auto"))
    return run_card_step(_STEPS[step], _LOADED[key], CardConfig(**config))
