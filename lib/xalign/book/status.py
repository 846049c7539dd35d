"""The reproduction status: ``xalign status`` (plain text) and the book's ledger page (Markdown).

Both show the ledger (:mod:`xalign.book.ledger`): one row per table and figure
of the five papers, with its status and the median and largest difference from
the paper in the item's own unit.
"""

from __future__ import annotations

from pathlib import Path

from xalign.book import ledger as L
from xalign.book.result_files import finished_text
from xalign.book.results import code_hash
from xalign.core.markup import code, text
from xalign.papers import meta

RED = "#b00020"
#: how a row made by older library code is marked in the terminal (explained under the counts)
STALE = "(stale)"


def status_text(profile: str = "default", root: Path | None = None) -> str:
    """Plain-text ledger for the terminal: counts, then one line per item."""
    rows = L.ledger(profile, root)
    out = [f"Reproduction ledger, profile {profile!r}: {len(rows)} items"]
    if L.shows_reference(profile, root):
        out.append("No results of this profile here yet: showing the committed reference run (reference/). "
                   "Run a chapter (xalign run 01) or the book (make book) to see your own; "
                   "xalign check --rerun says whether this checkout still reproduces the reference.")
    out += [f"  {n:3d}  {s}" for s, n in L.counts(rows).items() if n]
    if any(r["stale"] for r in rows):
        out.append(f"{STALE}: the result was made by older library code than this checkout's (its code hash "
                   "differs); rerun its chapter (xalign run NN) to refresh it.")
    out.append("")
    out.append(f"{'paper':<11}{'item':<10}{'status':<31}{'summary':<52}model")
    for r in rows:
        model = (r["model"] or "-") + (f" {STALE}" if r["stale"] else "")
        out.append(f"{r['paper']:<11}{r['item']:<10}{r['status']:<31}{r['summary']:<51} {model}")
    return "\n".join(out) + "\n"


def _cell(value) -> str:
    """A value as page text (:func:`xalign.core.markup.text`)."""
    return text(value)


def _status_cell(status: str) -> str:
    if status.endswith("differs"):
        return f'<span style="color:{RED};font-weight:bold">{_cell(status)}</span>'
    return _cell(status)


def status_markdown(profile: str = "default", root: Path | None = None, labels: set[str] | None = None) -> str:
    """The ledger page: counts and definitions, then one short table per paper (item, status, summary,
    where it is shown) and, below it, what we run instead of each item and why.

    Args:
        profile: the profile whose results the page shows.
        root: the results folder (default: ``results/``, or the committed reference run on a fresh clone).
        labels: the labels the executed chapters define (:func:`xalign.book.landing.book_labels`): each item
            links to its section where it has one, else to its chapter; None: no links (``xalign status``).
    """
    from xalign.book.landing import item_link

    rows = L.ledger(profile, root)
    current = code_hash()
    reference = L.shows_reference(profile, root)
    out = [f"**{len(rows)} items** (every table and figure of the five papers; profile {code(profile)}):", ""]
    if reference:
        out += [("*No results of this profile here yet: these rows come from the committed reference run "
                "(`reference/`).*"), ""]
    out += ["| Status | Items | Meaning |", "|---|---|---|"]
    for status, n in L.counts(rows).items():
        out.append(f"| {_status_cell(status)} | {n} | {_cell(L.STATUSES[status])} |")
    out.append("")
    out.append("Summary: the median and the largest absolute difference between our cells and the "
               "paper's, in the item's own unit, and how many of the paper's cells we have; for *other model* "
               "rows, which model stands beside which. *stale*: the result was made by older library code "
               "than this book's (never said of the committed reference run, a record of the commit that "
               "made it).")
    out.append("")
    items = {(L.tag(it.paper), it.id): it for it in L.all_items()}
    for paper in meta.PAPERS:
        md = meta.metadata(paper)
        result, results = L.pick_result(paper, profile, root, reference)
        mine = [r for r in rows if r["paper"] == L.tag(paper)]
        out.append(f"## {_cell(md['short'])}")
        out.append("")
        if result is None:
            command = f"xalign run {md['chapter'][:2]} --profile {profile}"
            out.append(f"No {code(profile)} results yet: run {code(command)}.")
        else:
            stale = result.get("code_hash") != current and not reference  # the reference is a record
            others = [r.get("model") for r in results if r is not result and not r.get("overrides")]
            line = f"Model: **{_cell(result.get('model') or '?')}**, finished {_cell(finished_text(result.get('finished')))}"
            if stale:
                line += ' <span style="color:#b00020">(stale: made by older library code)</span>'
            if others:
                line += f"; also run with: {_cell(', '.join(dict.fromkeys(m or '?' for m in others)))}"
            out.append(line + ".")
        out.append("")
        out += ["| Item | Status | Summary | Shown in |", "|---|---|---|---|"]
        for r in mine:
            item = items[(r["paper"], r["item"])]
            label = item_link(item, labels, r["item"]) if labels is not None else _cell(r["item"]).replace(" ", "&nbsp;")
            out.append(f"| {label} | {_status_cell(r['status'])} | {_cell(r['summary'])} | {_cell(r['section'])} |")
        out.append("")
        out.append("What we run instead, and why:")
        out.append("")
        for r in mine:
            needs = f" *Needs:* {_cell(r['needs'])}." if r["needs"] and r["status"] == "not run here" else ""
            out.append(f"- **{_cell(r['item'])}** ({_cell(r['title'])}). *Instead:* {_cell(r['instead'])}. "
                       f"*Why:* {_cell(r['why'])}.{needs}")
        out.append("")
    return "\n".join(out) + "\n"
