"""The reference run and ``xalign check``: does a rerun give the same numbers?

``reference/<chapter>.json`` holds one result per chapter (the default profile's,
copied by :func:`make_reference`). :func:`check` compares a fresh result of the
same chapter, profile and model with it, table by table (figure series included):
every numeric cell must be equal within a small tolerance, or, for a row that
carries an interval (``std``, ``ci95``, ...), within that interval; text cells and
the number of rows must be equal.

Numbers are only comparable cell by cell in the same precision: bfloat16 autocast (used where
the CPU computes bf16 natively, ``autocast: auto``) and float32 differ by up to half a point.
A chapter may therefore have one reference per precision, ``reference/<chapter>.json`` and
``reference/<chapter>.<precision>.json``; a fresh result is checked against the one in its
precision, and a reference in another precision is reported as such, not as a disagreement.

Float32 numbers still move across CPU kinds (kernels chosen at run time, summation order) and
with training seeds. Where that variation was measured, it is kept as data next to the
reference, ``reference/<chapter>.variation.yaml`` (:func:`load_variation`): per table, an
absolute tolerance, the columns it covers and the measurement it comes from. A float32 cell
of such a table is compared within that tolerance, and the check prints it with its source.
Every row is compared: no row is exempt (the word aligner is deterministic now).

The check prints the machine each side was made on (a result's ``machine`` record,
:mod:`xalign.core.machine`; "not recorded" for older files) and says when they differ in what
moves float32 numbers; a failing cell is named by chapter, table, row and column, with both
values and its tolerance (:func:`failure_lines`).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from xalign.book.results import load_results, read_result, safe_name
from xalign.book.variation import TableVariation, load_variation, variation_path
from xalign.core.jsonfile import JSONFileError
from xalign.core.numbers import is_finite_number, is_number
from xalign.core.paths import REFERENCE_DIR, results_dir
from xalign.core.precision import EXACT

#: columns that give a row's sampling interval (half-width around its value)
INTERVAL_COLUMNS = ("ci95", "ci", "std", "ours_std")
#: default tolerance for cells without an interval (absolute, plus relative)
ABS_TOL, REL_TOL = 1e-6, 1e-9


@dataclass
class TableCheck:
    table: str
    ok: bool
    n_cells: int = 0
    problems: list[str] = field(default_factory=list)
    tolerance: TableVariation | None = None  # the measured variation the float32 cells were compared within


def make_reference(profile: str = "default", results: Path | None = None, reference: Path | None = None,
                   chapters: list[str] | None = None) -> list[Path]:
    """Copy the result of every chapter (this profile; the profile's own model, else the newest)
    to ``reference/<chapter>.json``; for a float32 result, its tables' seed spreads become
    ``reference/<chapter>.variation.yaml`` (:func:`xalign.book.variation.write_variation`) unless the harness
    measured that file (:mod:`xalign.book.harness`): a measurement is kept until it is measured again."""
    from xalign.book.ledger import pick_result
    from xalign.papers import meta

    reference = Path(reference) if reference else REFERENCE_DIR
    reference.mkdir(parents=True, exist_ok=True)
    written = []
    for paper in meta.PAPERS:
        chapter = meta.metadata(paper)["chapter"]
        if chapters and chapter not in chapters:
            continue
        result, _ = pick_result(paper, profile, results)
        if result is None:
            continue
        if result.get("perturbation"):
            raise ValueError(f"{result['_path']} is a variation-harness rerun (embeddings perturbed, "
                             f"{result['perturbation']}); a reference is a plain run")
        target = reference / f"{chapter}.json"
        if target.exists():  # a reference in another precision stays; this one goes beside it
            existing = result_precision(read_result(target, "reference"))
            if existing != result_precision(result):
                target = reference / f"{chapter}.{precision_label(result_precision(result))}.json"
        shutil.copyfile(result["_path"], target)
        written.append(target)
        if result_precision(result) == "torch.float32":  # the variation a float32 rerun is checked within
            from xalign.book.variation import is_measured, write_variation

            vpath = variation_path(target)
            if is_measured(vpath):  # the harness's measurement stays; `xalign check NN --measure-variation` renews it
                continue
            if write_variation(result, vpath) is not None:
                written.append(vpath)
    return written


def result_precision(result: dict) -> str | None:
    """What a saved result's encoder computed in ("bfloat16", "torch.float32", ...); None if unknown.

    Results saved before the field existed are read from their ``autocast`` parameter.
    """
    if result.get("precision"):
        return result["precision"]
    autocast = (result.get("params") or {}).get("autocast", "absent")
    if autocast in ("bfloat16", "float16"):
        return autocast
    if autocast in EXACT:
        return "torch.float32"
    return None  # "auto" without a record, or a chapter without the parameter


def profile_precision(autocast) -> str | None:
    """The precision a profile's ``autocast`` value fixes ("torch.float32", "bfloat16", "float16"); None for
    ``"auto"`` (bfloat16 or float32, by the CPU)."""
    if autocast in EXACT:
        return "torch.float32"
    if autocast in ("bfloat16", "float16"):
        return autocast
    return None


def reference_profile_problems(ref: dict, profile: dict, profile_name: str = "default") -> list[str]:
    """Why a reference result is not its chapter's ``profile_name`` run as the profile file states it.

    Every parameter of ``profile`` (the chapter's profile from its ``profiles.yaml``) must be recorded
    with the same value; ``autocast`` is compared by the precision it fixes: the reference's recorded
    precision (:func:`result_precision`) must be the profile's (float32 for any spelling of "no
    autocast"; either for ``"auto"``, but then it must be recorded). Returns one line per problem.
    """
    problems = []
    if ref.get("profile") != profile_name:
        problems.append(f"profile {ref.get('profile')!r}, the book runs {profile_name!r}")
    params = ref.get("params") or {}
    for name, value in profile.items():
        if name == "autocast":
            continue
        if name not in params:
            problems.append(f"parameter {name} not recorded (profile: {value!r})")
        elif params[name] != value:
            problems.append(f"parameter {name} = {params[name]!r}, profile: {value!r}")
    if "autocast" in profile:
        want, got = profile_precision(profile["autocast"]), result_precision(ref)
        if got is None:
            problems.append(f"precision not recorded (profile autocast {profile['autocast']!r})")
        elif want is not None and got != want:
            problems.append(f"precision {precision_label(got)} (autocast {params.get('autocast')!r}), profile autocast "
                            f"{profile['autocast']!r} runs {precision_label(want)}")
    return problems


def precision_label(precision: str | None) -> str:
    """"torch.float32" -> "float32" (a file-name part)."""
    return (precision or "unknown").removeprefix("torch.")


def check_table(name: str, ref: dict, new: dict | None, abs_tol: float = ABS_TOL,
                variation: TableVariation | None = None) -> TableCheck:
    """Compare one table (or figure series) of a reference result with the fresh one.

    A numeric cell agrees within the largest of ``abs_tol`` (plus a relative 1e-9), the row's interval
    (``INTERVAL_COLUMNS``) and, for the columns it covers, the table's measured ``variation``.

    NaN and infinite values are never agreement: such a cell fails, named, even when both results hold
    the same one (results store a missing value as ``null``, which compares equal; a NaN there is a
    number that went wrong), and a NaN or infinite interval widens no tolerance (an interval of
    ``Infinity`` would accept any value).
    """
    check_tolerance(abs_tol)
    if new is None:
        return TableCheck(name, False, problems=["missing from the fresh result"])
    a, b = ref.get("rows", []), new.get("rows", [])
    out = TableCheck(name, True, tolerance=variation)
    if len(a) != len(b):
        out.ok = False
        out.problems.append(f"{len(b)} rows, reference has {len(a)}")
        return out
    for i, (ra, rb) in enumerate(zip(a, b)):
        if set(ra) != set(rb):
            out.ok = False
            out.problems.append(f"row {i}: columns {sorted(set(rb) ^ set(ra))} differ")
            continue
        spread = max((abs(float(ra[c])) for c in INTERVAL_COLUMNS if is_finite_number(ra.get(c))), default=0.0)
        for col, va in ra.items():
            vb = rb[col]
            if is_number(va) and is_number(vb):
                out.n_cells += 1
                if not (is_finite_number(va) and is_finite_number(vb)):
                    out.ok = False
                    out.problems.append(f"row {i} {col}: {vb!r}, reference {va!r}: not a finite number (NaN and "
                                        "infinity never agree; a missing value is stored as null)")
                    continue
                measured = variation.for_cell(col, ra) if variation is not None else 0.0
                tol = max(abs_tol + REL_TOL * abs(va), spread, measured)  # a sampled row: within its interval
                if not abs(va - vb) <= tol:
                    out.ok = False
                    out.problems.append(f"row {i} {col}: {vb!r}, reference {va!r} (tolerance {tol:g})")
            elif va != vb:
                out.ok = False
                out.problems.append(f"row {i} {col}: {vb!r}, reference {va!r}")
    return out


def check_tolerance(value, name: str = "--tolerance") -> float:
    """``value`` as a float when it is a finite number >= 0 (an absolute tolerance); else ValueError naming
    ``name`` and the valid range (NaN would accept nothing silently and compare False, a negative or
    infinite one is no tolerance)."""
    if not is_finite_number(value) or value < 0:
        raise ValueError(f"{name} must be a finite number >= 0 (an absolute tolerance, e.g. 1e-6), got {value!r}")
    return float(value)


def check_result(ref: dict, new: dict, abs_tol: float = ABS_TOL,
                 variation: dict[str, TableVariation] | None = None) -> list[TableCheck]:
    """Every table and figure of the reference result, checked against ``new``.

    ``variation`` (per table, :func:`load_variation`) applies only when both results are float32.
    """
    tables = new.get("tables", {})
    float32 = result_precision(ref) == result_precision(new) == "torch.float32"
    variation = (variation or {}) if float32 else {}
    return [check_table(name, t, tables.get(name), abs_tol, variation.get(name))
            for name, t in ref.get("tables", {}).items()]


def fresh_result(ref: dict, results: Path | None = None) -> dict | None:
    """The fresh result of the reference's chapter, profile and model: the newest with the reference's own
    parameter overrides (a ``-p`` rerun beside it is not the run to check), else the newest."""
    from xalign.book.results import profile_overrides

    found = load_results(ref["chapter"], ref["profile"], results)
    want = safe_name(ref.get("model") or "")
    same = [r for r in found if safe_name(r.get("model") or "") == want]
    overrides = profile_overrides(ref.get("paper", ""), ref["profile"], ref.get("params") or {})
    alike = [r for r in same if profile_overrides(r.get("paper", ""), r["profile"], r.get("params") or {}) == overrides]
    return (alike or same)[0] if same else None


def check(chapter: str | None = None, results: Path | None = None, reference: Path | None = None,
          abs_tol: float = ABS_TOL, echo=print) -> bool:
    """Check fresh results against the reference; prints one line per table, returns True when all agree.

    Raises:
        ValueError: ``abs_tol`` is not a finite number >= 0 (:func:`check_tolerance`).
    """
    check_tolerance(abs_tol)
    reference = Path(reference) if reference else REFERENCE_DIR
    refs = sorted(reference.glob("*.json"))
    if chapter:
        refs = [p for p in refs if p.stem == chapter or p.stem.startswith(chapter) or chapter in p.stem]
    if not refs:
        echo(f"no reference results{f' for {chapter!r}' if chapter else ''} in {reference}")
        return False
    all_ok = True
    loaded = []
    for path in refs:
        try:
            loaded.append((path, read_result(path, "reference")))
        except JSONFileError as exc:
            echo(f"FAIL {exc}")
            all_ok = False
    for path, ref in loaded:
        new = fresh_result(ref, results)
        where = results or results_dir()
        if new is None:
            echo(f"{ref['chapter']}: no fresh {ref['profile']} result for model {ref.get('model')} in {where}")
            all_ok = False
            continue
        mine, theirs = result_precision(new), result_precision(ref)
        if mine and theirs and mine != theirs:
            twin = any(r["chapter"] == ref["chapter"] and r["profile"] == ref["profile"]
                       and result_precision(r) == mine for _, r in loaded)
            echo(f"{ref['chapter']} ({ref['profile']}): {path.name} is in {precision_label(theirs)}, this run in "
                 f"{precision_label(mine)}: not comparable cell by cell"
                 + ("" if twin else f" and no reference in {precision_label(mine)}: run with "
                                     f"-p autocast {precision_label(theirs)}, or add one (xalign reference)"))
            all_ok &= twin
            continue
        vpath = variation_path(path)
        checks = check_result(ref, new, abs_tol, load_variation(vpath))
        if not checks:  # a reference without tables checks nothing: that is no agreement
            echo(f"{ref['chapter']} ({ref['profile']}, {ref.get('model')}): FAIL {path} holds no tables "
                 "(nothing to check); make it again with `xalign reference`")
            all_ok = False
            continue
        bad = [c for c in checks if not c.ok]
        echo(f"{ref['chapter']} ({ref['profile']}, {ref.get('model')}): "
             f"{len(checks) - len(bad)}/{len(checks)} tables agree; tolerance {abs_tol:g} (plus a row's own "
             f"interval)" + (f", float32 cells within the measured variation in {vpath.name}"
                             if any(c.tolerance for c in checks) else ""))
        for line in machines_report(ref, new):
            echo(f"  {line}")
        for c in checks:
            stated = (f"  [tolerance {c.tolerance.tolerance:g}"
                      + (f" on {', '.join(c.tolerance.columns)}" if c.tolerance.columns else "")
                      + (" at most, per column" if c.tolerance.column_tolerances else "")
                      + f": {c.tolerance.source}]") if c.tolerance else ""
            echo(f"  {'ok  ' if c.ok else 'FAIL'} {c.table:<34} {c.n_cells:6d} cells{stated}")
            for line in failure_lines(ref["chapter"], c):
                echo(f"       {line}")
        all_ok &= not bad
    return all_ok


#: the failing cells ``check`` prints per table (the rest are counted)
SHOWN_PROBLEMS = 5


def failure_lines(chapter: str, c: TableCheck, shown: int = SHOWN_PROBLEMS) -> list[str]:
    """One line per failing cell of a table, each naming the chapter, the table, the row, the column, this
    run's value, the reference's and the tolerance (as :func:`check_table` states them), at most ``shown``
    of them and a count of the rest."""
    lines = [f"{chapter} / {c.table} / {p}" for p in c.problems[:shown]]
    if len(c.problems) > shown:
        lines.append(f"{chapter} / {c.table}: and {len(c.problems) - shown} more")
    return lines


def machines_report(ref: dict, new: dict) -> list[str]:
    """Which machines the reference and this run were made on (:func:`xalign.core.machine.machine_line`;
    "not recorded" for results older than the record), and whether they differ in what moves float32
    numbers (CPU kind, instruction sets, BLAS, device, threads)."""
    from xalign.core.machine import machine_differences, machine_line

    a, b = ref.get("machine"), new.get("machine")
    lines = [f"reference machine: {machine_line(a)}", f"this run's machine: {machine_line(b)}"]
    if not a or not b:
        lines.append("machines: cannot tell whether they differ (not recorded in "
                     + " and ".join(w for w, r in (("the reference", a), ("this run", b)) if not r) + ")")
    elif diff := machine_differences(a, b):
        lines.append("machines DIFFER (float32 numbers may move by rounding): " + "; ".join(diff))
    else:
        lines.append("machines: the same kind (CPU, instruction sets, BLAS, device, threads)")
    return lines
