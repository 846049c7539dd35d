"""The book's timing table, from the results of a cold and a warm `make book` (nothing typed by hand).

Every chapter's saved results record its kernel's wall time, CPU time (user + system), system time
and minor page faults, and peak memory. Run the book twice with the same cache (first empty, then warm), keeping each run's
results folder, then:

    python bench/book_timings.py --cold results-cold --warm results-warm [--profile default]

``--record reference/timings/book.json --cold-wall S --warm-wall S`` adds the run to the list the
Performance page shows: the machine, the commit the chapters ran (from their results), the two
`make book` wall times as measured outside (environment, model, data and the HTML build included),
the chapters' CPU time and the largest peak memory.
"""

from __future__ import annotations

import argparse
import json
from datetime import datetime, timezone
from pathlib import Path

from card_timings import machine, mmss

from xalign.book.pages import append_timing


def chapter_runs(root: Path, profile: str) -> dict[str, dict]:
    """chapter -> its newest saved result with ``profile`` under ``root``."""
    out = {}
    for chapter_dir in sorted(p for p in root.iterdir() if p.is_dir()):
        files = sorted((chapter_dir / profile).glob("*.json"), key=lambda f: f.stat().st_mtime)
        if files:
            out[chapter_dir.name] = json.loads(files[-1].read_text(encoding="utf-8"))
    return out


def table(cold: dict[str, dict], warm: dict[str, dict]) -> str:
    lines = [("| Chapter | Cold: wall | Cold: CPU | Cold: of it system (page faults) | Cold: peak memory | Warm: wall "
              "| Warm: CPU | Warm / cold (wall) |"),
             "|---|---|---|---|---|---|---|---|"]
    for ch, c in cold.items():
        w = warm.get(ch, {})
        ratio = f"{100 * w['wall_time_s'] / c['wall_time_s']:.0f}%" if w.get("wall_time_s") else "-"
        peak = f"{c['peak_rss_mib'] / 1024:.1f} GB" if c.get("peak_rss_mib") else "-"
        system = "-" if c.get("system_time_s") is None else \
            f"{mmss(c['system_time_s'])} ({c['page_faults'] / 1e6:.1f} M)"  # results saved before they were recorded
        lines.append(f"| {ch} | {mmss(c.get('wall_time_s'))} | {mmss(c.get('cpu_time_s'))} | {system} | {peak} | "
                     f"{mmss(w.get('wall_time_s'))} | {mmss(w.get('cpu_time_s'))} | {ratio} |")
    return "\n".join(lines)


def record_run(path: Path, cold: dict[str, dict], cold_wall: float, warm_wall: float | None = None) -> dict:
    """Add one whole-book run to the JSON list at ``path`` (created if missing) and return the record."""
    commits = sorted({(c.get("git_commit") or "?")[:7] for c in cold.values()})
    peak = max((c.get("peak_rss_mib") or 0) for c in cold.values())
    rec = {**{k: v for k, v in machine().items() if k != "gpu"}, "commit": ", ".join(commits),
           "date": datetime.now(timezone.utc).date().isoformat(), "profile": next(iter(cold.values()))["profile"],
           "seconds": {"cold": round(cold_wall, 1), **({"warm": round(warm_wall, 1)} if warm_wall else {})},
           "chapter_cpu_seconds": round(sum(c.get("cpu_time_s") or 0 for c in cold.values()), 1),
           "chapter_seconds": {ch: {"wall": c.get("wall_time_s"), "cpu": c.get("cpu_time_s")} for ch, c in cold.items()},
           "peak_gib": round(peak / 1024, 1) if peak else None}
    return append_timing(path, rec)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cold", type=Path, required=True, help="results folder of the cold run")
    ap.add_argument("--warm", type=Path, help="results folder of the warm rerun")
    ap.add_argument("--profile", default="default")
    ap.add_argument("--record", type=Path, help="add this run to a JSON list of book timings (the Performance page's)")
    ap.add_argument("--cold-wall", type=float, help="seconds the cold `make book` took (needed with --record)")
    ap.add_argument("--warm-wall", type=float, help="seconds the warm rerun took")
    args = ap.parse_args()
    if args.record is not None and not args.cold_wall:
        raise SystemExit("book_timings: --record needs --cold-wall SECONDS (the cold `make book`'s wall time)")
    for d in (args.cold, args.warm):
        if d is not None and not d.is_dir():
            raise SystemExit(f"book_timings: {d} is not a results folder")
    cold = chapter_runs(args.cold, args.profile)
    if not cold:
        raise SystemExit(f"book_timings: no {args.profile!r} results under {args.cold}")
    print(table(cold, chapter_runs(args.warm, args.profile) if args.warm else {}))
    if args.record is not None:
        rec = record_run(args.record, cold, args.cold_wall, args.warm_wall)
        print(f"recorded in {args.record}: cold {mmss(rec['seconds']['cold'])}, chapters' CPU "
              f"{mmss(rec['chapter_cpu_seconds'])} ({rec['cpu']}, {rec['cores']} cores, {rec['commit']})")


if __name__ == "__main__":
    main()
