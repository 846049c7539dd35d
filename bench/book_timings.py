"""The README's timing table, from the results of a cold and a warm `make book` (nothing typed by hand).

Every chapter's saved results record its kernel's wall time, CPU time (user + system), system time
and minor page faults, and peak memory. Run the book twice with the same cache (first empty, then warm), keeping each run's
results folder, then:

    python bench/book_timings.py --cold results-cold --warm results-warm [--profile default]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def chapter_runs(root: Path, profile: str) -> dict[str, dict]:
    """chapter -> its newest saved result with ``profile`` under ``root``."""
    out = {}
    for chapter_dir in sorted(p for p in root.iterdir() if p.is_dir()):
        files = sorted((chapter_dir / profile).glob("*.json"), key=lambda f: f.stat().st_mtime)
        if files:
            out[chapter_dir.name] = json.loads(files[-1].read_text(encoding="utf-8"))
    return out


def mmss(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    s = round(seconds)
    return f"{s // 60}:{s % 60:02d}"


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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cold", type=Path, required=True, help="results folder of the cold run")
    ap.add_argument("--warm", type=Path, help="results folder of the warm rerun")
    ap.add_argument("--profile", default="default")
    args = ap.parse_args()
    for d in (args.cold, args.warm):
        if d is not None and not d.is_dir():
            raise SystemExit(f"book_timings: {d} is not a results folder")
    cold = chapter_runs(args.cold, args.profile)
    if not cold:
        raise SystemExit(f"book_timings: no {args.profile!r} results under {args.cold}")
    print(table(cold, chapter_runs(args.warm, args.profile) if args.warm else {}))


if __name__ == "__main__":
    main()
