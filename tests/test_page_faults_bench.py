"""bench/page_faults.py runs both variants in fresh interpreters and checks they agree bit for bit."""

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).parents[1] / "bench" / "page_faults.py"


def test_page_faults_bench_prints_both_variants_and_their_agreement():
    out = subprocess.run([sys.executable, str(BENCH), "--n", "1500", "--dim", "32", "--anchors", "300",
                          "--negatives", "800"], capture_output=True, text=True, check=True).stdout
    assert "fresh blocks" in out and "blocks reused" in out
    assert "bit for bit: True" in out
