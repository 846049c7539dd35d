"""How long `xalign card` takes, cold (an empty cache) and warm (every encoding cached), next to its targets.

Runs ``xalign card MODEL --profile P`` twice in fresh interpreters with the same new cache folder (the
first run fetches the data from the mirror, materialises the model and encodes everything; the second
finds every encoding cached), then prints both wall times beside the targets of issue 35: the quick card
cold in under 5 minutes on 2 CPU cores, the full card of multilingual-e5-small cold in under an hour,
any warm card in under 30 seconds (and the full card in under 2 minutes on a GPU).

    python bench/card_timings.py --model all-MiniLM-L6-v2              # the quick card
    python bench/card_timings.py --model multilingual-e5-small --profile full
    python bench/card_timings.py --model M --cache DIR --warm-only     # time a warm card of a cache you have
    python bench/card_timings.py ... --record reference/timings/cards.json --keep results/cards

``--record FILE`` adds the run (model, profile, the precision the card ran in, machine, cold and warm
seconds, each step's seconds) to a JSON list that the book's Performance page shows beside the targets;
``--keep DIR`` keeps the card the run wrote (its page, curves and result file) in ``DIR``.

The cache folder is new (a temporary one, removed afterwards) unless ``--cache`` names one; the data mirror
is the one of ``XALIGN_DATA_MIRROR``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from xalign.book.pages import append_timing
from xalign.book.pages import mmss as pages_mmss
from xalign.card.settings import GPU_TIME_TARGETS as GPU_TARGETS
from xalign.card.settings import TIME_TARGETS as TARGETS


def run_card(model: str, profile: str, cache: Path, out: Path, sets: list[list[str]]) -> float:
    """Wall seconds of one ``xalign card`` command in a fresh interpreter with ``cache`` as its cache."""
    cmd = [sys.executable, "-m", "xalign.book.cli", "--cache", str(cache), "card", model, "--profile", profile,
           "--out", str(out)]
    for name, value in sets:
        cmd += ["--set", name, value]
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def mmss(seconds: float | None) -> str:
    return pages_mmss(seconds) or "-"


def timing_table(profile: str, times: dict[str, float], gpu: bool = False, cores: int | None = None) -> str:
    """Markdown: each run's wall time beside its target and whether it is within it.

    Args:
        profile: ``"quick"`` or ``"full"``.
        times: run (``"cold"``, ``"warm"``) -> wall seconds.
        gpu: the runs had a GPU (the full card's cold target is then 2 minutes).
        cores: CPU cores the runs had (named in the table; the CPU targets are for 2).
    """
    where = "GPU" if gpu else f"{cores or '?'} CPU cores"
    lines = [f"| Card ({profile}) | Wall | Target | Within target |", "|---|---|---|---|"]
    for run, seconds in times.items():
        target = (GPU_TARGETS if gpu else {}).get((profile, run), TARGETS.get((profile, run)))
        verdict = "-" if target is None else ("yes" if seconds < target else "NO")
        lines.append(f"| {run}, {where} | {mmss(seconds)} | < {mmss(target)} | {verdict} |")
    return "\n".join(lines)


def machine() -> dict:
    """The CPU model, the cores this process may use, and the GPU if any."""
    import platform

    import torch

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {"cpu": cpu, "cores": len(os.sched_getaffinity(0)),
            "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None}


def written_card(out: Path) -> dict:
    """The card result file ``xalign card --out out`` wrote ({} if none)."""
    import json

    cards = sorted(Path(out).glob("*.json"))
    return json.loads(cards[0].read_text()) if cards else {}


def record_run(path: Path, model: str, profile: str, times: dict[str, float], card: dict,
               cold_steps: dict | None = None, note: str | None = None) -> dict:
    """Add one run to the JSON list at ``path`` (created if missing) and return the record: model, profile,
    the precision the card ran in, the machine, the cold / warm wall seconds of the two commands
    (interpreter start and model load included) and each step's seconds in both."""
    from datetime import datetime, timezone

    precision = card.get("precision")
    precision = precision.removeprefix("torch.") if isinstance(precision, str) else precision  # "float32", as the page says
    rec = {"model": model, "profile": profile, "precision": precision, **machine(),
           "seconds": {k: round(v, 1) for k, v in times.items()},
           "cold_step_seconds": cold_steps, "warm_step_seconds": card.get("step_seconds"),
           "date": datetime.now(timezone.utc).date().isoformat()}
    if note:
        rec["note"] = note  # what the machine was doing besides (a shared machine's times are upper bounds)
    return append_timing(path, rec)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="all-MiniLM-L6-v2", help="model name or folder (default all-MiniLM-L6-v2)")
    ap.add_argument("--profile", default="quick", choices=["quick", "full"])
    ap.add_argument("--cache", type=Path, help="cache folder to use (default: a new temporary one)")
    ap.add_argument("--warm-only", action="store_true", help="time the warm card only (a --cache that has it)")
    ap.add_argument("--set", nargs=2, action="append", default=[], metavar=("SIZE", "VALUE"),
                    help="passed on to xalign card (e.g. --set n_boot 200)")
    ap.add_argument("--record", type=Path, help="add this run to a JSON list of card timings (the Performance page's)")
    ap.add_argument("--keep", type=Path, help="keep the card this run wrote in this cards folder")
    ap.add_argument("--note", help="recorded with the run: what else the machine was doing")
    args = ap.parse_args(argv)
    if args.warm_only and args.cache is None:
        ap.error("--warm-only needs --cache (a cache that already holds the card's encodings)")
    cache = args.cache or Path(tempfile.mkdtemp(prefix="xalign-card-bench-"))
    out = Path(tempfile.mkdtemp(prefix="xalign-card-bench-out-"))
    times, cold_steps = {}, None
    try:
        if not args.warm_only:
            times["cold"] = run_card(args.model, args.profile, cache, out, args.set)
            print(f"cold: {times['cold']:.1f} s", flush=True)
            cold_steps = written_card(out).get("step_seconds")
        times["warm"] = run_card(args.model, args.profile, cache, out, args.set)
        print(f"warm: {times['warm']:.1f} s", flush=True)
        if args.keep is not None:
            shutil.copytree(out, args.keep, dirs_exist_ok=True)
        if args.record is not None:
            record_run(args.record, args.model, args.profile, times, written_card(out), cold_steps, args.note)
    finally:
        shutil.rmtree(out, ignore_errors=True)
        if args.cache is None:
            shutil.rmtree(cache, ignore_errors=True)
    import torch

    print(f"\n{args.model}, --profile {args.profile}:\n")
    print(timing_table(args.profile, times, gpu=torch.cuda.is_available(), cores=len(os.sched_getaffinity(0))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
