"""The variation harness: how far each table of a chapter moves when only the arithmetic changes.

A reader's machine computes the same chapter with other kernels, thread counts and batch shapes. The
harness reproduces that on one machine: it reruns the chapter with the reference's parameters, its
cached embeddings perturbed at float32 rounding scale (:mod:`xalign.core.perturb`, a new noise seed per
rerun) and the other thread count (1 <-> 2: other summation orders in BLAS and torch), then compares
every table with the reference. Per table it records the largest move of any number (with the row and
column where it happened) and every text or flag that changed (a *flip*: a choice or a verdict that
rounding can change).

The largest move times :data:`MARGIN` becomes the table's tolerance in
``reference/<chapter>.variation.yaml`` (:func:`write_measured`), with how it was measured; ``xalign
check`` compares float32 cells of that table within it (:mod:`xalign.book.check`). A flip is never
tolerated: the check still fails on it, and the harness names it so that the choice can be made robust.

    xalign check 05 --measure-variation [--variants 2] [--ulps 4]
"""

from __future__ import annotations

import math
import os
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from xalign.book.check import ABS_TOL
from xalign.core.numbers import is_number

#: a table's tolerance is this many times the largest move the harness saw (the harness samples a few
#: arithmetics; a reader's machine is another one)
MARGIN = 2.0
#: the check's own absolute tolerance, what a table without an entry gets
FLOOR = ABS_TOL
#: moves at or below this are no move: the check's own tolerance covers them with the :data:`MARGIN`; a larger one
#: gets an entry, or a table that moved by 0.9e-6 would be allowed 1e-6, barely more than the move
NO_MOVE = FLOOR / MARGIN


@dataclass
class TableMove:
    """How far one table moved in one or more harness reruns (absolute, in the cells' own unit)."""

    table: str
    largest: float = 0.0
    where: str = ""  # "row 3, column 'acc'"
    n_cells: int = 0
    flips: list[str] = field(default_factory=list)  # "row 2 'collapsed': True -> False"
    by_column: dict[str, float] = field(default_factory=dict)  # the largest move of each column that moved

    def merge(self, other: TableMove) -> None:
        if other.largest > self.largest:
            self.largest, self.where = other.largest, other.where
        self.n_cells = max(self.n_cells, other.n_cells)
        self.flips += [f for f in other.flips if f not in self.flips]
        for col, d in other.by_column.items():
            self.by_column[col] = max(d, self.by_column.get(col, 0.0))


def table_moves(ref: dict, new: dict) -> dict[str, TableMove]:
    """Per table of ``ref`` (a saved result), the largest numeric move and the flips in ``new``.

    A table missing from ``new``, or with another number of rows or other columns, counts as one flip
    (its shape changed). NaN against NaN is no move; NaN against a number is a flip.
    """
    out = {}
    tables = new.get("tables", {})
    for name, t in ref.get("tables", {}).items():
        move = out[name] = TableMove(name)
        other = tables.get(name)
        a, b = t.get("rows", []), (other or {}).get("rows")
        if other is None or len(a) != len(b):
            move.flips.append(f"shape: {len(a)} rows -> {'missing' if other is None else len(b)} rows")
            continue
        for i, (ra, rb) in enumerate(zip(a, b)):
            if set(ra) != set(rb):
                move.flips.append(f"row {i}: columns {sorted(set(ra) ^ set(rb))}")
                continue
            for col, va in ra.items():
                vb = rb[col]
                if is_number(va) and is_number(vb):
                    move.n_cells += 1
                    fa, fb = math.isfinite(va), math.isfinite(vb)
                    if not (fa and fb):
                        if fa != fb or (va != vb and not (math.isnan(va) and math.isnan(vb))):
                            move.flips.append(f"row {i} {col!r}: {va!r} -> {vb!r}")
                        continue
                    d = abs(float(va) - float(vb))
                    if d > NO_MOVE:
                        move.by_column[col] = max(d, move.by_column.get(col, 0.0))
                    if d > move.largest:
                        move.largest, move.where = d, f"row {i}, column {col!r}"
                elif va != vb:
                    move.flips.append(f"row {i} {col!r}: {va!r} -> {vb!r}")
    return out


def combine(per_rerun: list[dict[str, TableMove]]) -> dict[str, TableMove]:
    """The largest move and every flip of each table over several reruns."""
    out: dict[str, TableMove] = {}
    for moves in per_rerun:
        for name, m in moves.items():
            if name not in out:
                out[name] = TableMove(name)
            out[name].merge(m)
    return out


def tolerance_of(move: TableMove | float) -> float | None:
    """The tolerance a measured move (a table's, or a number) gives: :data:`MARGIN` x the move, 3 significant
    digits rounded up; None when it did not move beyond :data:`NO_MOVE` (the check's own tolerance covers
    :data:`MARGIN` x such a move)."""
    largest = move.largest if isinstance(move, TableMove) else float(move)
    if largest <= NO_MOVE:
        return None
    t = MARGIN * largest
    digits = 2 - math.floor(math.log10(t))
    return math.ceil(round(t * 10**digits, 6)) / 10**digits  # round(): 2 x 0.030000000000001 is 0.06, not 0.0601


def measured_entries(moves: dict[str, TableMove], how: str, items: dict[str, dict[str, str]] | None = None
                     ) -> dict[str, dict]:
    """Variation-file entries (:func:`xalign.book.variation.load_variation`'s form) for every table that
    moved or counts items: ``{table: {tolerance, source[, column_tolerances][, item_columns]}}``; ``how`` says
    what was rerun, ``items`` the item columns of each table (:func:`xalign.book.item_steps.item_columns`)."""
    items = items or {}
    out = {}
    for name in sorted(set(moves) | {t for t, cols in items.items() if cols}):
        m = moves.get(name) or TableMove(name)
        tol = tolerance_of(m)
        if tol is None and not items.get(name):
            continue
        moved = (f"the largest move was {m.largest:.3g} ({m.where}), the tolerance is {MARGIN:g} x that, per column "
                 f"{MARGIN:g} x that column's largest move (a column that did not move has none)" if tol is not None
                 else "no cell moved")
        out[name] = {"tolerance": tol or 0.0, "source": f"measured: {how}; {moved}"}
        if m.by_column:
            out[name]["column_tolerances"] = {c: tolerance_of(d) for c, d in sorted(m.by_column.items())}
        if items.get(name):
            out[name]["item_columns"] = dict(sorted(items[name].items()))
            out[name]["source"] += ("; cells that count items may also move by the items the chapter's measured "
                                    "item flip rate allows (item_flips)")
    return out


def item_flips_entry(flipped: int, scored: int) -> dict:
    """The variation file's ``item_flips``: items flipped and scored over the reruns, and the rate's upper
    bound the check allows per cell (:mod:`xalign.book.item_steps`)."""
    from xalign.book.item_steps import CELL_LEVEL, RATE_LEVEL, rate_upper

    return {"flipped": int(flipped), "scored": int(scored), "rate_upper": float(f"{rate_upper(flipped, scored):.3g}"),
            "rate_level": RATE_LEVEL, "cell_level": CELL_LEVEL}


def write_measured(path: Path, moves: dict[str, TableMove], how: str, header: str,
                   items: dict[str, dict[str, str]] | None = None, item_flips: dict | None = None,
                   merge: bool = False) -> Path:
    """Write the measured variation file (every table that moved or counts items) with ``header`` as its
    comment lines, followed by a line saying what was measured (``how``); ``item_flips`` (:func:`item_flips_entry`)
    where tables count items. With ``merge``, a measured file already there is kept and combined with this
    measurement (:func:`merge_measured`), its header lines kept above the new ones."""
    import yaml

    from xalign.book.variation import is_measured
    from xalign.core.atomic import write_text

    header = f"{header}\nMeasured: {how}."  # each measurement says what it reran, merged ones too
    body = {"tables": measured_entries(moves, how, items)}
    if item_flips and any(items.values() if items else ()):
        body["item_flips"] = item_flips
    path = Path(path)
    if merge and is_measured(path):
        text = path.read_text(encoding="utf-8")
        body = merge_measured(yaml.safe_load(text) or {}, body)
        kept = [line.removeprefix("# ") for line in text.splitlines() if line.startswith("# ")]
        header = "\n".join(kept) + "\nMerged with a later measurement: " + header
    comment = "".join(f"# {line}\n" for line in header.splitlines())
    write_text(Path(path), comment + yaml.safe_dump(body, sort_keys=True, allow_unicode=True, width=100))
    return Path(path)


def report_lines(moves: dict[str, TableMove], shown: int = 3) -> list[str]:
    """One line per table: largest move, tolerance, and the first flips (a flip fails the check)."""
    lines = []
    for name, m in moves.items():
        tol = tolerance_of(m)
        head = (f"{'FLIPS' if m.flips else 'moves' if tol else 'still'} {name:<34} {m.n_cells:6d} cells  "
                f"largest move {m.largest:.3g}" + (f" ({m.where})" if m.where else "")
                + (f" -> tolerance {tol:g}" if tol else ""))
        lines.append(head)
        lines += [f"      flip: {f}" for f in m.flips[:shown]]
        if len(m.flips) > shown:
            lines.append(f"      and {len(m.flips) - shown} more flips")
    return lines


@contextmanager
def harness_environment(ulps: float, seed: int, threads: int):
    """The environment a harness rerun's kernel inherits: perturbed embeddings and ``threads`` threads."""
    from xalign.book.parallel import THREAD_VARIABLES
    from xalign.core.perturb import ENV, spec

    value = f"{ulps:g}:{seed}"
    spec(value)  # a bad value fails here, before anything changes
    names = (ENV, *THREAD_VARIABLES)
    saved = {n: os.environ.get(n) for n in names}
    os.environ[ENV] = value
    for n in THREAD_VARIABLES:
        os.environ[n] = str(threads)
    try:
        yield
    finally:
        for n, v in saved.items():
            if v is None:
                os.environ.pop(n, None)
            else:
                os.environ[n] = v


def other_threads(ref: dict) -> int:
    """The thread count a rerun uses: 2 when the reference ran on 1 torch thread, else 1."""
    threads = ((ref.get("machine") or {}).get("threads") or {}).get("torch")
    return 2 if threads in (None, 1) else 1


def measure(chapter: str | None = None, variants: int = 2, ulps: float | None = None, results: str | None = None,
            reference: str | None = None, variant_results: list[str] | None = None, echo=print,
            merge: bool = False) -> int:
    """Measure every float32 reference (or ``chapter``'s) under the harness and write its variation file.

    Args:
        chapter: a chapter id or part of it (None: every chapter).
        variants: harness reruns, noise seeds 1..variants.
        ulps: the perturbation's scale (None: :data:`xalign.core.perturb.DEFAULT_ULPS`).
        results: where the reruns go (default: a temporary folder).
        reference: the reference folder (default ``reference/``); the variation files are written there.
        variant_results: measure from reruns already made (folders of results) instead of running.
        merge: keep the measured variation file already there and combine it with this measurement
            (:func:`merge_measured`: per table and column the larger tolerance, both sources).

    Returns:
        0, or 1 when a rerun left no result. Raises ValueError on a bad ``variants`` or ``ulps``.
    """
    import tempfile
    from datetime import date

    from xalign.book.check import REFERENCE_DIR, fresh_result, result_precision
    from xalign.book.item_steps import RATE_LEVEL, count_steps, item_columns
    from xalign.book.results import read_result
    from xalign.book.runner import run_chapter
    from xalign.book.variation import MEASURED_MARK, variation_path
    from xalign.core.machine import machine_line
    from xalign.core.perturb import DEFAULT_ULPS

    ulps = DEFAULT_ULPS if ulps is None else ulps
    if not (isinstance(variants, int) and variants >= 1) or not (isinstance(ulps, (int, float)) and ulps > 0):
        raise ValueError(f"--variants must be an integer >= 1 and --ulps a number > 0, got {variants!r} and {ulps!r}")
    ref_dir = Path(reference) if reference else REFERENCE_DIR
    refs = [p for p in sorted(ref_dir.glob("*.json")) if "." not in p.stem and (not chapter or chapter in p.stem)]
    if not refs:
        raise ValueError(f"no reference for {chapter!r} in {ref_dir}")
    for path in refs:
        ref = read_result(path, "reference")
        if result_precision(ref) != "torch.float32":
            echo(f"{ref['chapter']}: the reference is not float32; the harness measures float32 rounding only")
            continue
        threads = other_threads(ref)
        if variant_results:
            folders = [Path(d) for d in variant_results]
            how = None  # said from the reruns' own records below
        else:
            base = Path(results or tempfile.mkdtemp(prefix="xalign-harness-"))
            folders = [base / f"{ref['chapter']}.perturbed-{seed}" for seed in range(1, variants + 1)]
            for seed, folder in enumerate(folders, 1):
                with harness_environment(ulps, seed, threads):
                    os.environ["XALIGN_RESULTS"] = str(folder.resolve())
                    try:
                        run_chapter(ref["chapter"], {**ref["params"], "profile": ref["profile"]},
                                    folder / f"{ref['chapter']}.ipynb")
                    finally:
                        os.environ.pop("XALIGN_RESULTS", None)
            how = (f"{variants} rerun(s) of the reference's parameters, its cached embeddings perturbed by N(0, 1) x "
                   f"{ulps:g} float32 ulps of each vector's largest element (noise seeds 1-{variants}), on {threads} "
                   f"thread(s) where the reference ran on {3 - threads}")
        runs, made, flipped, scored = [], [], 0, 0
        for folder in folders:
            new = fresh_result(ref, folder)
            if new is None:
                echo(f"no {ref['profile']} result of {ref['chapter']} in {folder}")
                return 1
            runs.append(table_moves(ref, new))
            made.append(new)
            f, n = count_steps(ref, new)
            flipped, scored = flipped + f, scored + n
        if how is None:
            how = f"{len(made)} rerun(s) read from results ({'; '.join(_made_how(r, ref) for r in made)})"
        moves = combine(runs)
        echo(f"{ref['chapter']} ({ref['profile']}): {how}")
        for line in report_lines(moves):
            echo(f"  {line}")
        header = (f"{MEASURED_MARK.removeprefix('# ')} {ref['chapter'][:2]} --measure-variation`, "
                  f"{date.today().isoformat()}),\nreference commit {ref.get('git_commit')}; "
                  f"machine: {machine_line(ref.get('machine'))}.\nTables absent here did not move (beyond "
                  f"{NO_MOVE:g}, half the check's own tolerance); flips (text or flags that changed, never tolerated): "
                  f"{sum(len(m.flips) for m in moves.values())}.")
        items = {name: item_columns(t.get("rows", [])) for name, t in ref.get("tables", {}).items()}
        flips = item_flips_entry(flipped, scored) if scored else None
        if flips:
            echo(f"  items: {flipped} flipped of {scored} scored; rate at most {flips['rate_upper']:.3g} "
                 f"({RATE_LEVEL:.0%} bound)")
        echo(f"  wrote {write_measured(variation_path(path), moves, how, header, items, flips, merge=merge)}")
    return 0


def _made_how(result: dict, ref: dict | None = None) -> str:
    """How one rerun was made, from its own record: its perturbation, its thread count, its encoding batch where
    that differs from the reference's, and the machine it ran on where that is of another kind than the
    reference's (a real second machine, not the harness)."""
    from xalign.core.machine import KIND_FIELDS, machine_differences, machine_line

    threads = ((result.get("machine") or {}).get("threads") or {}).get("torch", "?")
    p = result.get("perturbation")
    how = (f"embeddings perturbed {p} (ulps:seed)" if p else "embeddings not perturbed") + f", {threads} torch thread(s)"
    tokens = ((result.get("machine") or {}).get("encoding") or {}).get("batch_tokens")
    if tokens and tokens != (((ref or {}).get("machine") or {}).get("encoding") or {}).get("batch_tokens"):
        how += f", batches of {tokens:,} tokens"
    kinds = {f"{group} {name}" for group, name in KIND_FIELDS}
    other = [d for d in machine_differences((ref or {}).get("machine"), result.get("machine"))
             if d.split(":")[0] in kinds]
    if other:
        how += f", made on another machine: {machine_line(result.get('machine'))}"
    return how


def merge_measured(old: dict, new: dict) -> dict:
    """Two variation files' bodies (``{"tables": ..., "item_flips": ...}``) as one: per table the larger
    tolerance, per column the larger column tolerance, both sources, every item column; the item flips of
    both measurements added up (their rate's bound recomputed). A measurement is never lost by measuring
    again with other reruns (the harness's own reruns and a run made on a real second machine, say)."""
    tables: dict[str, dict] = {}
    for name in sorted(set(old.get("tables", {})) | set(new.get("tables", {}))):
        a, b = old.get("tables", {}).get(name), new.get("tables", {}).get(name)
        if a is None or b is None:
            tables[name] = dict(a or b)
            continue
        entry = {"tolerance": max(float(a["tolerance"]), float(b["tolerance"])),
                 "source": a["source"] if a["source"] == b["source"] else f"{a['source']}; and {b['source']}"}
        if "column_tolerances" in a or "column_tolerances" in b:
            ca, cb = a.get("column_tolerances") or {}, b.get("column_tolerances") or {}
            entry["column_tolerances"] = {c: max(float(ca.get(c) or 0.0), float(cb.get(c) or 0.0))
                                          for c in sorted(set(ca) | set(cb))}
        if "item_columns" in a or "item_columns" in b:
            entry["item_columns"] = dict(sorted({**(a.get("item_columns") or {}), **(b.get("item_columns") or {})}.items()))
        tables[name] = entry
    out = {"tables": tables}
    fa, fb = old.get("item_flips"), new.get("item_flips")
    if fa or fb:
        flipped = int((fa or {}).get("flipped", 0)) + int((fb or {}).get("flipped", 0))
        scored = int((fa or {}).get("scored", 0)) + int((fb or {}).get("scored", 0))
        out["item_flips"] = item_flips_entry(flipped, scored)
    return out


def add_arguments(parser) -> None:
    """The harness's options of ``xalign check``."""
    parser.add_argument("--measure-variation", action="store_true",
                        help="rerun the chapter with its cached embeddings perturbed at float32 rounding scale and the "
                             "other thread count, and write each table's measured tolerance to "
                             "reference/<chapter>.variation.yaml")
    parser.add_argument("--variants", type=int, default=2, help="harness reruns (noise seeds 1..N; default 2)")
    parser.add_argument("--ulps", type=float, default=None,
                        help="perturbation scale in float32 ulps of each vector's largest element (default: "
                             "xalign.core.perturb.DEFAULT_ULPS)")
    parser.add_argument("--variant-results", metavar="DIR", action="append", default=None,
                        help="with --measure-variation: measure from reruns already in DIR (repeatable) instead of "
                             "running")
    parser.add_argument("--merge-variation", action="store_true",
                        help="with --measure-variation: keep the measured variation file and combine it with this "
                             "measurement (per table and column the larger tolerance, both sources named)")


def run_from_args(args) -> int:
    """``xalign check --measure-variation``: :func:`measure` on the parsed options; 2 on a bad value."""
    import sys

    try:
        return measure(args.chapter, args.variants, args.ulps, args.results, args.reference, args.variant_results,
                       merge=args.merge_variation)
    except ValueError as exc:
        print(f"xalign: {exc}", file=sys.stderr)
        return 2
