"""``xalign card MODEL --mteb-out DIR``: a card's Tatoeba bitext scores as an MTEB results file.

MTEB keeps one file per model, revision and task: ``DIR/<org>__<model>/<revision>/Tatoeba.json`` (its
``TaskResult``: ``dataset_revision``, ``task_name``, ``mteb_version``, ``evaluation_time`` and, per split,
one entry per language pair with ``hf_subset``, ``languages``, ``main_score`` and the other metrics, in
[0, 1]), with ``model_meta.json`` beside it. :func:`write_mteb_results` writes the card's
``mteb_bitext_f1`` entry so: per language the weighted F1 of xx->en cosine top-1 (the main score),
precision, recall and accuracy, at the layer the card scored it. What MTEB's file has no field for is
kept under ``"xalign"``: the layer, pooling, prefix (or template), sample, data files and their sha256,
and the model's quantisation and license where it has them; MTEB's loader ignores that field.

The subsets and their languages are MTEB's own (its ``Tatoeba`` task's metadata), so the ``mteb``
package is needed (``pip install "xalign[mteb]"``); the file is checked with MTEB's ``TaskResult``
before it is written. ``dataset_revision`` is the revision of the data the card read (LASER's
Tatoeba v1 at a fixed commit), not MTEB's copy of it, and the sample is the card's (e.g. 100 pairs per
language), not MTEB's 1,000: the ``"xalign"`` field says so.
"""

from __future__ import annotations

import re
from pathlib import Path

#: the card measure written
MEASURE = "mteb_bitext_f1"
TASK = "Tatoeba"


def hub_name(model: str) -> str:
    """The hub id MTEB names a model by: xalign's offline names map to the models they hold."""
    from xalign.core.gemma_model import GEMMA_ALIASES
    from xalign.core.offline_model import _OFFLINE_ALIASES
    from xalign.core.packaged_model import MINILM, MINILM_ALIASES

    for aliases, hub in ((GEMMA_ALIASES, "google/gemma-3-270m"), (_OFFLINE_ALIASES, "intfloat/multilingual-e5-small"),
                         (MINILM_ALIASES, f"sentence-transformers/{MINILM}")):
        if model in aliases:
            return hub
    return model


def _safe(part: str) -> str:
    """One path part: characters other than letters, digits, ``.``, ``_``, ``-`` become ``_``."""
    out = re.sub(r"[^A-Za-z0-9._-]", "_", str(part)).strip(".")
    return out or "unknown"


def _data_revision() -> str:
    """The revision of xalign's Tatoeba source: the commit in its declared download address."""
    from xalign.data.datasets import get

    url = get("tatoeba").base_url or ""
    found = re.search(r"/([0-9a-f]{40})/", url)
    return f"facebookresearch/LASER@{found.group(1)}" if found else url or "unknown"


def require_mteb() -> None:
    """Raise an ImportError naming the install command when the ``mteb`` package is missing."""
    from importlib.util import find_spec

    if find_spec("mteb") is None:
        raise ImportError("--mteb-out needs the mteb package (its results format and Tatoeba's subsets): "
                          "pip install \"xalign[mteb]\"")


def mteb_task_result(card: dict) -> dict:
    """The MTEB ``TaskResult`` dictionary of a card's Tatoeba bitext scores (checked with MTEB's class).

    Raises:
        ImportError: ``mteb`` is not installed (the install command is named).
        ValueError: the card has no ``mteb_bitext_f1`` entry, or a language MTEB's Tatoeba does not have.
    """
    require_mteb()
    import mteb
    from mteb.results import TaskResult

    from xalign.core.gemma_model import model_terms
    from xalign.data.sentdata import tatoeba_iso3

    measure = (card.get("measures") or {}).get(MEASURE)
    if not measure:
        raise ValueError(f"the card of {card.get('model')!r} has no {MEASURE} measure: nothing to write")
    row = next(r for r in measure["layers"] if r["layer"] == measure["best_layer"])
    subsets = mteb.get_task(TASK).metadata.eval_langs
    scores = []
    for lang, s in row["per_language"].items():
        subset = f"{tatoeba_iso3(lang)}-eng"
        if subset not in subsets:
            raise ValueError(f"the card's Tatoeba language {lang!r} ({subset}) is not a subset of MTEB's Tatoeba")
        scores.append({"hf_subset": subset, "languages": list(subsets[subset]), "main_score": s["f1"] / 100,
                       "f1": s["f1"] / 100, "precision": s["precision"] / 100, "recall": s["recall"] / 100,
                       "accuracy": s["accuracy"] / 100, "n_pairs": int(s["n"])})
    receipt = measure.get("receipt") or {}
    data = {
        "dataset_revision": _data_revision(), "task_name": TASK, "mteb_version": mteb.__version__,
        "scores": {"test": scores}, "evaluation_time": (card.get("step_seconds") or {}).get("tatoeba"),
        "kg_co2_emissions": None,
        "xalign": {"model": card["model"], "revision": card.get("revision"), **model_terms(card.get("revision")),
                   "layer": row["layer"], "layers": len(card.get("layers") or []),
                   "pooling": "; ".join(g["pooling"] for g in receipt.get("pooling", []) if row["layer"] in g["layers"]),
                   "prefix": receipt.get("prefix"), "template": receipt.get("template"),
                   "direction": receipt.get("direction"), "scoring": receipt.get("scoring"),
                   "sample": receipt.get("sample"), "data": receipt.get("data", []),
                   "precision": card.get("precision"), "xalign_version": card.get("xalign_version"),
                   "finished": card.get("finished")},
    }
    TaskResult.from_dict(data)  # MTEB's own check of the fields it reads
    return data


def write_mteb_results(card: dict, out_dir: str | Path) -> Path:
    """Write ``<out_dir>/<org>__<model>/<revision>/Tatoeba.json`` and ``model_meta.json``; return the first.

    Args:
        card: a card (:func:`xalign.card.battery.run_card`'s dictionary, or a card result file read back).
        out_dir: MTEB's results folder (created).
    """
    from xalign.core.atomic import write_json
    from xalign.core.gemma_model import model_terms

    data = mteb_task_result(card)
    hub = hub_name(card["model"])
    folder = Path(out_dir) / _safe(hub.replace("/", "__")) / _safe(card.get("revision") or "unknown")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{TASK}.json"
    write_json(path, data)
    write_json(folder / "model_meta.json", {"name": hub, "revision": card.get("revision"),
                                            "xalign_model": card["model"], **model_terms(card.get("revision"))})
    return path
