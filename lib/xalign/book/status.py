"""The reproduction status table on the book's front page, built from chapter results."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from xalign.core.paths import results_dir

CHAPTERS = {
    "01_weak_strong_alignment": "Gaschi et al. 2022: word-level weak and strong alignment",
    "02_btsr_contextual_alignment": "Liu et al. 2020: aligning contextual embeddings, BTSR",
    "03_calibrated_retrieval_transfer_rate": "Calibrated retrieval and transfer rate",
    "04_bli_pruning_stemming": "Wickramasinghe et al.: BLI, pruning and stem-based BLI",
    "05_feature_based_transfer": "Nyholm 2020: feature-based transfer (MultiSent)",
}


def status_table(profile: str = "default", root: Path | None = None) -> pd.DataFrame:
    """One row per paper table: chapter, table, status, largest |ours - paper|, model."""
    root = Path(root) if root else results_dir()
    rows = []
    for chapter, title in CHAPTERS.items():
        path = root / chapter / f"{profile}.json"
        if not path.exists():
            rows.append({"chapter": title, "table": "(all)", "status": "not run here",
                         "largest difference": "", "model": "", "note": f"no results for profile {profile!r}"})
            continue
        res = json.loads(path.read_text())
        for t in res["tables"].values():
            if t.get("n_paper", 0) == 0 and t["status"] != "not run here":
                continue  # our own extra tables and figure data
            diff = t.get("max_abs_diff")
            rows.append({"chapter": title, "table": t["title"], "status": t["status"],
                         "largest difference": "" if diff is None else f"{diff:.1f}",
                         "model": res.get("model") or "", "note": t.get("note", "")})
    return pd.DataFrame(rows)


def status_markdown(profile: str = "default", root: Path | None = None) -> str:
    """The status table as a Markdown table."""
    df = status_table(profile, root)
    header = "| Paper | Table | Status | Largest difference | Our model | Note |\n|---|---|---|---|---|---|\n"
    lines = [f"| {r.chapter} | {r.table} | {r.status} | {r['largest difference']} | {r.model} | "
             f"{str(r.note).replace('|', '/').replace(chr(10), ' ')} |" for _, r in df.iterrows()]
    return header + "\n".join(lines) + "\n"
