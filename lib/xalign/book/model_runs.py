"""Chapters run on other models, shown beside those models' cards.

``xalign run NN --model MODEL`` writes ``results/<chapter>/<profile>/<model>.json``; the book shows every such
run of a model other than the chapter's default beside the cards on Compare models, with its headline (the
chapter's one number and interval), its profile and what the model is (quantisation and license where the
model has them). Runs committed with the project live in ``reference/model_runs/`` in the same layout (the
book builds from them without the model installed); a run on disk replaces the committed one of the same
chapter, profile and model.

    xalign run 01 --model gemma-3-270m --profile smoke
    cp results/01_weak_strong_alignment/smoke/gemma-3-270m.json reference/model_runs/01_weak_strong_alignment/smoke/
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from xalign.core.markup import code, text

COMMITTED = Path(__file__).resolve().parents[3] / "reference" / "model_runs"


@cache
def _default_model(chapter: str) -> str | None:
    """The model of the chapter's committed reference run (the model the chapter itself shows)."""
    path = COMMITTED.parent / f"{chapter}.json"
    try:
        return json.loads(path.read_text(encoding="utf-8")).get("model")
    except (OSError, ValueError):
        return None


def _model(r: dict) -> str | None:
    return r.get("model") or (r.get("params") or {}).get("model")


def find_runs(*folders: Path) -> list[dict]:
    """Every chapter result under ``folders`` (``<chapter>/<profile>/<model>.json``) of a model other than
    its chapter's default, newest folder last wins per (chapter, profile, model); each with ``_path``.

    A file that is not a finished chapter result is skipped (a reader's folder may hold anything)."""
    found: dict[tuple, dict] = {}
    for folder in folders:
        if not folder or not Path(folder).is_dir():
            continue
        for path in sorted(Path(folder).glob("*/*/*.json")):
            try:
                r = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if not isinstance(r, dict) or not r.get("finished") or not isinstance(r.get("tables"), dict):
                continue
            chapter, model = r.get("chapter"), _model(r)
            if not chapter or not model or model == _default_model(chapter) or r.get("perturbation"):
                continue
            found[(chapter, r.get("profile"), model)] = {**r, "_path": str(path)}
    return sorted(found.values(), key=lambda r: (_model(r), r["chapter"], str(r.get("profile"))))


def model_runs_markdown(runs: list[dict]) -> str:
    """The "Chapters on other models" section (Markdown): per model, a table of chapter, profile and
    headline, then what the model is. "" without runs. Every value read from a result is page text."""
    if not runs:
        return ""
    from xalign.papers import meta

    titles = {meta.metadata(p)["chapter"]: meta.metadata(p)["topic"] for p in meta.PAPERS}
    out = ["## Chapters on other models", "",
           ("A chapter reruns with any model (`xalign run NN --model MODEL`); these runs are the chapter's own "
            "method on another model, each with the chapter's headline number and its 95% interval. A smoke "
            "profile samples a few hundred items: its intervals are wide, and its numbers are not the default "
            "profile's."), ""]
    by_model: dict[str, list[dict]] = {}
    for r in runs:
        by_model.setdefault(_model(r), []).append(r)
    for model, rs in by_model.items():
        out += [f"**{text(model)}**", "", "| Chapter | Profile | What the run shows |", "|---|---|---|"]
        for r in rs:
            chapter = r["chapter"]
            n = chapter[:2].lstrip("0")
            link = f"{{doc}}`{n}: {titles.get(chapter, chapter)} </book/chapters/{chapter}>`"
            out.append(f"| {link} | {text(r.get('profile'))} | {text(r.get('headline') or 'no headline recorded')} |")
        terms = rs[0].get("model_terms") or {}
        about = [f"revision {code(rs[0]['model_revision'])}" if rs[0].get("model_revision") else "",
                 text(terms.get("quantisation", "")), text(terms.get("license", "")),
                 f"computed in {text(str(rs[0].get('precision') or 'float32').removeprefix('torch.'))}"]
        out += ["", "The model: " + "; ".join(a for a in about if a) + ".", ""]
    return "\n".join(out) + "\n"
