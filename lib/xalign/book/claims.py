"""A verdict for every claim: each paper's main claims, judged on a chapter's results by one function.

Each paper package declares its main claims as data (``claims:`` in its ``paper.yaml``)::

    - id: weak-over-strong                 # unique in the paper
      claim: "Strong alignment is harder than weak alignment: S_strong lies below S_weak"
      expected: down                       # the paper's direction for the change "a vs b" (up | down)
      link: ch01-table4                    # a label the chapter defines (the section showing the evidence)
      see: Table IV                        # the link's text
      items: [Table IV, Fig. 7]            # the ledger items the claim rests on (their ids)
      needs: ...                           # optional: what a run needs when the evidence is absent
      evidence: {kind: ..., table: ..., ...}
      cases: [{pair: de-en}, ...]          # optional: one verdict per case (merged into every row filter)

:func:`judge_claims` computes each case's change and its interval from a chapter's saved results (the
``tables`` of ``reference/<chapter>.json`` or ``results/...json``, or a running :class:`ChapterRun`) and
gives it a verdict with :func:`xalign.measures.verdicts.claim_verdict`, the book's one rule (the *How to
read* page). Evidence kinds (every column named in the YAML; numbers in the table's own unit):

- ``paired``: a row's change ``value`` with its interval ``lo`` / ``hi`` (``interval_where`` takes the
  interval from another row or table); ``seed_min`` / ``seed_max`` (optional) give the per-seed range of
  the change, the seeds agree when it lies on one side of zero; ``name`` (optional) names the change.
  Judged with :func:`direction`.
- ``seeds``: two rows ``a`` and ``b`` with one column per seed (``seed <n>``): the change is the mean of
  the per-seed differences a - b, its interval the range of those differences over the seeds (a seed
  range, not a 95% interval: the table says so). Judged with :func:`direction`; such a range never rules an
  effect out (no ``far_bound``), so a claim it does not confirm is *not testable*.
- ``versus``: two rows ``a`` and ``b``, each with ``value`` and its own interval (``lo`` / ``hi``, or a
  half-width column ``half``). Judged with :func:`separated` (conservative: no paired interval).
- ``against``: a row's ``value`` with ``lo`` / ``hi`` against a fixed number (``ref_value``, or the column
  ``ref_column`` of the row ``ref``, e.g. a literature number). Judged with :func:`direction` on the
  interval minus that number.
- ``last_vs_best``: a layer curve (columns ``layer``, ``value``, ``half``): the last layer against the best
  earlier layer (the highest ``value`` among layers 1 .. last-1, an in-sample pick that favours the
  earlier layers). Judged with :func:`separated`.

The noise margin of a claim is the measured tolerance of its evidence table where
``reference/<chapter>.variation.yaml`` has one (:func:`margin`), else 0: a later step measures
tolerances for every chapter. A case whose rows are absent (the model lacks the layer, the variant was
not run) is *not testable*, with the claim's ``needs`` as the reason.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from xalign.book.variation import load_variation, variation_path
from xalign.core import markup
from xalign.core.paths import REFERENCE_DIR
from xalign.measures.interval_text import interval
from xalign.measures.verdicts import (
    DOWN,
    HELD,
    NOT_HELD,
    NOT_TESTABLE,
    UP,
    Verdict,
    claim_verdict,
    direction,
    separated,
)
from xalign.papers import meta

KINDS = ("paired", "seeds", "versus", "against", "last_vs_best")
REQUIRED = ("id", "claim", "expected", "link", "see", "evidence")
VERDICTS = (HELD, NOT_HELD, NOT_TESTABLE)
CAPTION = ("The paper's main claims, judged on this run (held / did not hold / not testable, by the rule on the "
           "How to read page)")


@dataclass(frozen=True)
class ClaimRow:
    """One case of one claim, judged on one run.

    Attributes:
        claim_id / claim: the claim's id and its words (the paper's, short).
        case: what the case is ("de-en"; empty for a claim with one case).
        shows: what our run shows, in words with its number and interval (the evidence table's unit).
        verdict: ``held`` / ``did not hold`` / ``not testable``; reason: why, in words.
        link / see: the label of the section that shows the evidence, and the link's text.
    """

    claim_id: str
    claim: str
    case: str
    shows: str
    verdict: str
    reason: str
    link: str
    see: str


def _paper_yaml(paper: str) -> Path:
    return meta.paper_dir(paper) / "paper.yaml"


def claims(paper: str) -> list[dict]:
    """The paper's declared claims (``claims:`` of its ``paper.yaml``), checked: a missing field, an unknown
    kind or direction, or an item the ledger does not list raises ValueError naming the file and claim."""
    raw = meta.metadata(paper).get("claims") or []
    item_ids = {it["id"] for it in meta.metadata(paper).get("items") or []}
    seen = set()
    for c in raw:
        where = f"{_paper_yaml(paper)}: claim {c.get('id', '?')!r}"
        missing = [k for k in REQUIRED if not c.get(k)]
        if missing:
            raise ValueError(f"{where} lacks {missing}")
        if c["id"] in seen:
            raise ValueError(f"{where}: the id is used twice")
        seen.add(c["id"])
        if c["expected"] not in (UP, DOWN):
            raise ValueError(f"{where}: expected = {c['expected']!r}; the paper's direction is 'up' or 'down'")
        kind = c["evidence"].get("kind")
        if kind not in KINDS:
            raise ValueError(f"{where}: evidence kind {kind!r}; kinds: {', '.join(KINDS)}")
        unknown = [i for i in c.get("items") or [] if i not in item_ids]
        if unknown:
            raise ValueError(f"{where}: items {unknown} are not in the paper's items")
    return raw


def margin(chapter: str, table: str, reference: Path | None = None, column: str | None = None) -> tuple[float, str]:
    """The noise margin of ``table`` (its unit) and where it comes from: the measured tolerance in
    ``reference/<chapter>.variation.yaml`` where the file lists the table (that of ``column`` where the
    file measures each column), else 0."""
    folder = Path(reference) if reference else REFERENCE_DIR
    tol = load_variation(variation_path(folder / f"{chapter}.json")).get(table)
    if not tol:
        return 0.0, ""
    if column is not None and tol.column_tolerances:
        return tol.for_column(column), f"the measured rerun tolerance of {column!r}"
    return tol.tolerance, "the table's measured rerun tolerance"


def _tables(results) -> dict[str, dict]:
    """``{table: {"rows": [...], ...}}`` from a saved result (dict) or a running ChapterRun."""
    tables = results.get("tables") if isinstance(results, dict) else getattr(results, "tables", None)
    if not isinstance(tables, dict):
        raise TypeError("judge_claims: results must be a chapter result with 'tables' (a saved result or a ChapterRun)")
    return {k: (v if isinstance(v, dict) else vars(v)) for k, v in tables.items()}


def _num(v) -> float | None:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def _row(rows: list[dict], where: dict) -> dict | None:
    """The one row whose columns equal ``where`` (compared as text); None when there is none."""
    hits = [r for r in rows if all(str(r.get(k)) == str(v) for k, v in where.items())]
    if len(hits) > 1:
        raise ValueError(f"claim evidence: {len(hits)} rows match {where}; name more columns")
    return hits[0] if hits else None


def _f(v: float) -> str:
    return f"{v:.1f}"


def _iv(lo: float, hi: float, signed: bool = False) -> str:
    return interval(lo, hi, signed=signed) or "no interval"


def _side(tables: dict, rows: list[dict], base: dict, selector: dict, ev: dict) -> dict | None:
    """One side of a comparison: the row of ``selector`` (its ``table`` key names another table); with
    ``pick: max`` in the evidence, the matching row with the highest value (e.g. a curve's best layer)."""
    selector = dict(selector)
    if "table" in selector:
        rows = (tables.get(selector.pop("table")) or {}).get("rows") or []
    where = {**base, **selector}
    if ev.get("pick") != "max":
        return _row(rows, where)
    hits = [r for r in rows if all(str(r.get(k)) == str(v) for k, v in where.items()) and _bounds(r, ev)[0] is not None]
    return max(hits, key=lambda r: _bounds(r, ev)[0]) if hits else None


def _bounds(row: dict, ev: dict) -> tuple[float | None, float | None, float | None]:
    value = _num(row.get(ev.get("value", "ours")))
    if ev.get("half"):
        half = _num(row.get(ev["half"]))
        return value, (None if value is None or half is None else value - half), (
            None if value is None or half is None else value + half)
    return value, _num(row.get(ev.get("lo", "lo"))), _num(row.get(ev.get("hi", "hi")))


def _absent(claim: dict, what: str) -> Verdict:
    return Verdict(NOT_TESTABLE, claim.get("needs") or f"our run has no {what}")


def _judge(claim: dict, tables: dict, where_case: dict, m: float) -> tuple[str, Verdict]:
    """(what our run shows, verdict) for one case."""
    ev, expected = claim["evidence"], claim["expected"]
    table = tables.get(ev["table"]) or {}
    rows = table.get("rows") or []
    base = {**(ev.get("where") or {}), **where_case}
    kind = ev["kind"]
    if kind in ("versus", "seeds"):
        a, b = (_side(tables, rows, base, ev[k], ev) for k in ("a", "b"))
        if a is None or b is None:
            lacking = {**base, **(ev["a"] if a is None else ev["b"])}
            return "–", _absent(claim, f"row for {', '.join(f'{k} {v}' for k, v in lacking.items())}")
        names = ev.get("names", ["a", "b"])
        if kind == "seeds":
            cols = sorted(c for c in a if c.startswith("seed ") and None not in (_num(a.get(c)), _num(b.get(c))))
            diffs = [_num(a[c]) - _num(b[c]) for c in cols]
            if not diffs:
                return "–", _absent(claim, "per-seed values")
            lo, hi, mean = min(diffs), max(diffs), sum(diffs) / len(diffs)
            agree = lo > 0 or hi < 0
            change = direction(lo, hi, m)
            shows = (f"{names[0]} − {names[1]}: {mean:+.1f} (range over {len(diffs)} seeds "
                     f"{lo:+.1f} to {hi:+.1f})")
            # a range over a few seeds is not a 95% interval: it may show a direction, never rule an effect out
            return shows, claim_verdict(expected, change, margin=m, seeds_agree=agree)
        (va, alo, ahi), (vb, blo, bhi) = _bounds(a, ev), _bounds(b, ev)
        if va is None or vb is None:
            return "–", _absent(claim, f"value for {names[0] if va is None else names[1]}")
        at = ev.get("show")

        def said(name, row, v, lo, hi):
            where = f" ({at} {row.get(at)})" if at else ""
            return f"{name}{where} {_f(v)} " + (_iv(lo, hi) if lo is not None and hi is not None else "(no interval)")

        shows = f"{said(names[0], a, va, alo, ahi)} vs {said(names[1], b, vb, blo, bhi)}"
        return shows, claim_verdict(expected, separated(alo, ahi, blo, bhi, m), margin=m)
    if kind == "last_vs_best":
        layer = ev.get("layer", "layer")
        curve = [r for r in rows if all(str(r.get(k)) == str(v) for k, v in base.items())
                 and _num(r.get(layer)) is not None and _bounds(r, ev)[0] is not None]
        if len(curve) < 3:
            return "–", _absent(claim, "layer curve with a last and an earlier layer")
        curve.sort(key=lambda r: _num(r[layer]))
        last = curve[-1]
        best = max(curve[1:-1], key=lambda r: _bounds(r, ev)[0])
        (vl, llo, lhi), (vb, blo, bhi) = _bounds(last, ev), _bounds(best, ev)
        shows = (f"last layer ({int(_num(last[layer]))}) {_f(vl)} {_iv(llo, lhi)} vs best earlier layer "
                 f"({int(_num(best[layer]))}) {_f(vb)} {_iv(blo, bhi)}")
        return shows, claim_verdict(expected, separated(llo, lhi, blo, bhi, m), margin=m)
    row = _row(rows, base)
    if row is None:
        return "–", _absent(claim, f"row for {', '.join(f'{k} {v}' for k, v in base.items())}")
    value, lo, hi = _bounds(row, ev)
    if kind == "paired" and ev.get("interval_where") is not None:
        other = _row((tables.get(ev.get("interval_table", ev["table"])) or {}).get("rows") or [],
                     {**ev["interval_where"], **where_case})
        lo, hi = ((_num(other.get(ev.get("lo", "lo"))), _num(other.get(ev.get("hi", "hi")))) if other else (None, None))
    if value is None:
        return "–", _absent(claim, "value for this case")
    if kind == "against":
        ref = ev.get("ref_value")
        if ref is None:
            ref_row = _row(rows, {**base, **ev["ref"]})
            ref = _num(ref_row.get(ev.get("ref_column", "paper"))) if ref_row else None
        if ref is None:
            return "–", _absent(claim, "reference value")
        name = ev.get("ref_name", "the reference")
        shows = f"{_f(value)} {_iv(lo, hi) if lo is not None else '(no interval)'} vs {name} {_f(ref)}"
        lo_d, hi_d = (None, None) if lo is None or hi is None else (lo - ref, hi - ref)
        return shows, claim_verdict(expected, direction(lo_d, hi_d, m), far_bound=hi_d if expected == UP else lo_d,
                                    margin=m)
    seeds = (_num(row.get(ev["seed_min"])), _num(row.get(ev["seed_max"]))) if ev.get("seed_min") else (None, None)
    agree = None if None in seeds else (seeds[0] > 0 or seeds[1] < 0)
    shows = (f"{ev['name']}: " if ev.get("name") else "") + \
        f"{value:+.1f} {_iv(lo, hi, signed=True) if lo is not None and hi is not None else '(no interval)'}"
    if agree is not None:
        shows += f", seeds {seeds[0]:+.1f} to {seeds[1]:+.1f}"
    return shows, claim_verdict(expected, direction(lo, hi, m), far_bound=hi if expected == UP else lo, margin=m,
                                seeds_agree=agree)


def judge_claims(paper: str, results, reference: Path | None = None) -> list[ClaimRow]:
    """Every declared claim of ``paper``, each case judged on ``results``.

    Args:
        paper: the paper package (``gaschi2022`` ...).
        results: the chapter's saved result (a dict with ``tables``, as in ``reference/<chapter>.json``) or
            the running :class:`~xalign.book.results.ChapterRun`; ``None``: the chapter has not run.
        reference: the folder of the variation files (default ``reference/``).

    Returns:
        One :class:`ClaimRow` per claim and case, in the declared order; every verdict is one of
        :data:`VERDICTS`, each with its reason (a margin above 0 is named in the reason).
    """
    chapter = meta.metadata(paper)["chapter"]
    tables = _tables(results) if results is not None else {}
    out = []
    for c in claims(paper):
        m, source = margin(chapter, c["evidence"]["table"], reference, c["evidence"].get("value", "ours"))
        for case in c.get("cases") or [{}]:
            if results is None:
                shows, v = "–", Verdict(NOT_TESTABLE, "the chapter has not run")
            else:
                shows, v = _judge(c, tables, case, m)
            measured = m > 0 and shows != "–"
            reason = v.reason + (f" (noise margin {m:.2g}: {source})" if measured else "")
            out.append(ClaimRow(c["id"], c["claim"], ", ".join(str(x) for x in case.values()), shows, v.verdict,
                                reason, c["link"], c["see"]))
    return out


def claims_markdown(rows: list[ClaimRow], caption: str, name: str = "", labels: set[str] | None = None,
                    chapter: str = "") -> str:
    """The verdict table as MyST (a ``{table}`` directive with its caption; rendered by :func:`display.prose`).

    ``labels``: the labels the chapter defines; a ``see`` cell links to its label with ``{ref}`` when the
    label is known (``labels=None``: trust the declared label, as on the chapter's own page), else to the
    chapter page (``chapter``) or plain text.
    """
    def see(r: ClaimRow) -> str:
        text = markup.text(r.see).replace(" ", "\u00a0")
        if labels is None or r.link in labels:
            return f"{{ref}}`{text} <{r.link}>`"
        return f"{{doc}}`{text} </book/chapters/{chapter}>`" if chapter else text

    out = [f"```{{table}} {caption}"] + ([f":name: {name}"] if name else []) + [
        "", "| The paper's claim | Case | What our run shows | Verdict | Why | See |", "|---|---|---|---|---|---|"]
    for i, r in enumerate(rows):
        claim = "" if i and rows[i - 1].claim_id == r.claim_id else markup.text(r.claim)  # a claim's later cases: blank
        out.append(f"| {claim} | {markup.text(r.case or '–')} | {markup.text(r.shows)} | **{r.verdict}** | "
                   f"{markup.text(r.reason)} | {see(r)} |")
    return "\n".join(out + ["```", ""])


def _paper_chapter(results) -> tuple[str, str]:
    get = results.get if isinstance(results, dict) else (lambda k: getattr(results, k, None))
    paper, chapter = get("paper"), get("chapter")
    if paper not in meta.PAPERS:
        raise ValueError(f"verdict_table: results name paper {paper!r}; papers: {', '.join(meta.PAPERS)}")
    return paper, chapter or meta.metadata(paper)["chapter"]


def verdict_table(results, labels: set[str] | None = None, reference: Path | None = None) -> str:
    """A chapter's verdict table (MyST for :func:`xalign.book.display.prose`) from its results: the claims of the
    paper the results name (``paper``), judged by :func:`judge_claims`, captioned, labelled ``chNN-claims``."""
    paper, chapter = _paper_chapter(results)
    return claims_markdown(judge_claims(paper, results, reference), CAPTION, f"ch{chapter[:2]}-claims", labels, chapter)


def verdict_summary(rows: list[ClaimRow]) -> str:
    """One claim's verdicts in words: "held for de-en, ru-en; did not hold for zh-en" (cases grouped by verdict;
    a claim with one case also gives what our run shows), the reasons of the not testable ones in brackets."""
    parts = []
    for v in VERDICTS:
        cases = [r for r in rows if r.verdict == v]
        if not cases:
            continue
        named = [r.case for r in cases if r.case]
        text = f"**{v}**" + (f" for {', '.join(named)}" if named else "")
        if len(rows) == 1 and rows[0].shows != "–":  # one case: its number and interval too
            text += f": {rows[0].shows}"
        if v == NOT_TESTABLE:
            text += f" ({'; '.join(dict.fromkeys(r.reason for r in cases))})"
        parts.append(text)
    return "; ".join(parts)


def by_claim(rows: list[ClaimRow]) -> dict[str, list[ClaimRow]]:
    """The rows grouped by claim id, in order."""
    out: dict[str, list[ClaimRow]] = {}
    for r in rows:
        out.setdefault(r.claim_id, []).append(r)
    return out
