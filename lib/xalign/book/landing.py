"""The book's front page: one block per chapter (the paper's question and claim, what our run shows,
the status of its items, a thumbnail of its key figure, a link), generated from the papers'
``paper.yaml``, the chapters' saved results and the executed notebooks.

The chapters' anchors (``(ch01-table1)=`` labels and ``:name:`` options of their figures) are read from
the executed notebooks too (:func:`chapter_labels`), so the ledger links an item to the section that
shows it only where that section exists: a link never points at nothing.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

from xalign.book import claims as CL
from xalign.book import ledger as L
from xalign.core.markup import code, inert, text
from xalign.papers import meta

#: a MyST target line ``(name)=`` or a directive's ``:name: name`` option
_LABEL = re.compile(r"^\((?P<a>[A-Za-z0-9_.:-]+)\)=\s*$|^:name:\s*(?P<b>[A-Za-z0-9_.:-]+)\s*$", re.MULTILINE)


def item_anchor(item: L.Item) -> str | None:
    """The anchor of the section that shows an item: ``chNN-KEY`` (KEY: the item's ``key``, lower case,
    ``_`` -> ``-``); None for an item without a key."""
    if not item.key:
        return None
    return f"ch{item.paper_chapter[:2]}-{item.key.lower().replace('_', '-')}"


def item_anchors(item: L.Item) -> list[str]:
    """Every label that may show an item, best first: its section (``chNN-KEY``), its figure
    (``fig-chNN-KEY``), and for a figure without a key ``chNN-fig-N`` / ``fig-chNN-fig-N``."""
    out = []
    main = item_anchor(item)
    if main:
        out += [main, f"fig-{main}"]
    slug = re.sub(r"[^a-z0-9]+", "-", item.id.lower()).strip("-")  # "Fig. 4" -> "fig-4"
    alt = f"ch{item.paper_chapter[:2]}-{slug}"
    out += [a for a in (alt, f"fig-{alt}") if a not in out]
    return out


def chapter_labels(notebook: Path) -> set[str]:
    """The MyST labels an executed chapter defines in its Markdown cells (empty when it is absent)."""
    if not Path(notebook).exists():
        return set()
    nb = json.loads(Path(notebook).read_text(encoding="utf-8"))
    found = set()
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "markdown":
            src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            found |= {m["a"] or m["b"] for m in _LABEL.finditer(src)}
    return found


def book_labels(chapters_dir: Path) -> set[str]:
    """Every label of every executed chapter under ``chapters_dir``."""
    return set().union(*(chapter_labels(Path(chapters_dir) / f"{meta.metadata(p)['chapter']}.ipynb")
                         for p in meta.PAPERS))


def item_link(item: L.Item, labels: set[str] | None, text: str) -> str:
    """MyST for a link to the section that shows ``item``: ``{ref}`` to its label where the chapter
    defines one, else ``{doc}`` to the chapter page (``labels=None``: plain text)."""
    if labels is None:
        return text
    safe = text.replace("<", "&lt;").replace("`", "'").replace(" ", "\u00a0")  # "Table IV" stays on one line
    for anchor in item_anchors(item):
        if anchor in labels:
            return f"{{ref}}`{safe} <{anchor}>`"
    return f"{{doc}}`{safe} </book/chapters/{item.paper_chapter}>`"


def figure_png(notebook: Path, glue_name: str = "") -> bytes | None:
    """The PNG of a chapter's key figure from its executed notebook: the output glued under
    ``glue_name`` (metadata ``scrapbook.name``), else the chapter's first figure; None without one."""
    if not Path(notebook).exists():
        return None
    nb = json.loads(Path(notebook).read_text(encoding="utf-8"))
    first = None
    for cell in nb.get("cells", []):
        for out in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            data = out.get("data") or {}
            # a glued figure is stored under myst-nb's prefix: application/papermill.record/image/png
            png = data.get("image/png") or next((v for k, v in data.items() if k.endswith("/image/png")), None)
            if not png:
                continue
            png = "".join(png) if isinstance(png, list) else png
            name = ((out.get("metadata") or {}).get("scrapbook") or {}).get("name")
            if glue_name and name == glue_name:
                return base64.b64decode(png)
            first = first or png
    return base64.b64decode(first) if first else None


def write_thumbnails(chapters_dir: Path, target: Path, results: dict[str, dict | None]) -> dict[str, str]:
    """Write each chapter's key figure as ``target/<chapter>.png``; returns chapter -> file name."""
    target.mkdir(parents=True, exist_ok=True)
    out = {}
    for chapter, result in results.items():
        png = figure_png(Path(chapters_dir) / f"{chapter}.ipynb", (result or {}).get("key_figure") or "")
        path = target / f"{chapter}.png"
        if png:
            path.write_bytes(png)
            out[chapter] = path.name
        elif path.exists():
            path.unlink()  # a thumbnail of an older build must not stand for this one
    return out


def _counts_words(rows: list[dict]) -> str:
    counts = {s: n for s, n in L.counts(rows).items() if n}
    return "; ".join(f"{n} {s}" for s, n in counts.items())  # statuses may hold a comma


def chapter_results(profile: str, root: Path | None = None) -> dict[str, dict | None]:
    """chapter -> the result the ledger shows for it (None where the chapter has none)."""
    reference = L.shows_reference(profile, root)
    return {meta.metadata(p)["chapter"]: L.pick_result(p, profile, root, reference)[0] for p in meta.PAPERS}


def landing_markdown(profile: str = "default", root: Path | None = None, thumbnails: dict[str, str] | None = None,
                     thumb_dir: str = "/book/_generated/thumbs", public: bool = True) -> str:
    """The front page's chapter blocks and the status at a glance (Markdown, MyST).

    Args:
        profile: the profile whose results the page shows.
        root: the results folder (default: ``results/``, or the committed reference run on a fresh clone).
        thumbnails: chapter -> image file name under ``thumb_dir`` (:func:`write_thumbnails`).
        thumb_dir: where the thumbnails are, from the book's source root.
        public: whether the repository's public home exists (else the page says so, once).

    Returns:
        The Markdown the front page includes.
    """
    thumbnails = thumbnails or {}
    rows = L.ledger(profile, root)
    results = chapter_results(profile, root)
    out = []
    if not public:
        out += ["```{note}", ("The project has no public home yet: every command on these pages runs from a "
                "checkout of the project."), "```", ""]
    if L.shows_reference(profile, root):
        out += [(f"*These pages show the committed reference run of the {code(profile)} profile (`reference/`): "
                "no chapter has run here yet.*"), ""]
    out += ["## The five chapters", ""]
    for n, paper in enumerate(meta.PAPERS, 1):
        md = meta.metadata(paper)
        chapter = md["chapter"]
        mine = [r for r in rows if r["paper"] == L.tag(paper)]
        result = results[chapter]
        out += [f"### {n}. {md['short']}", ""]
        if chapter in thumbnails:
            out += [f"```{{image}} {thumb_dir}/{thumbnails[chapter]}", f":alt: key figure of chapter {n}",
                    ":width: 260px", ":align: right", ":class: xa-thumb", "```", ""]
        if md.get("question"):
            out += [f"**The question.** {md['question']}", ""]
        if md.get("claim"):
            out += [f"**The paper's claim.** {md['claim']} {{cite}}`{paper}`", ""]
        if result is None:
            shows = (f"not run yet with the {code(profile)} profile "
                     f"({code(f'xalign run {chapter[:2]} --profile {profile}')}).")
        elif result.get("headline"):
            shows = f"{inert(result['headline'])} (model: {text(L.short_model(result.get('model')))})"
        else:
            shows = (f"{text(L.short_model(result.get('model')))} in place of the paper's "
                     f"{L.paper_models_words(L.items(paper)[0])}; the chapter compares every table cell by cell.")
        out += [f"**What our run shows.** {shows}", ""]
        if result is not None and (verdicts := CL.by_claim(CL.judge_claims(paper, result))):
            main = next(iter(verdicts.values()))
            more = len(verdicts) - 1
            out += [(f"**The main claim, judged.** {main[0].claim}: {CL.verdict_summary(main)} "
                     f"({{doc}}`{'all ' + str(more + 1) + ' claims' if more else 'the evidence'} in chapter {n}"
                     f" </book/chapters/{chapter}>`)."), ""]
        out += [(f"**Its {len(mine)} tables and figures:** {_counts_words(mine)} "
                f"({{doc}}`the ledger </book/ledger>`)."), ""]
        out += [f"{{doc}}`Read chapter {n} </book/chapters/{chapter}>`", ""]
        if chapter in thumbnails:
            out += ['<div style="clear: both"></div>', ""]
    out += ["## Reproduction status at a glance", "",
            (f"**{len(rows)} items**: every table and figure of the five papers, each with one status "
            f"(profile {code(profile)}; the {{doc}}`ledger </book/ledger>` lists them all, each linked to the "
            "section that shows it)."), "",
            "| Status | Items | Meaning |", "|---|---|---|"]
    for status, k in L.counts(rows).items():
        if k:
            out.append(f"| {status} | {k} | {L.STATUSES[status]} |")
    return "\n".join(out) + "\n"
