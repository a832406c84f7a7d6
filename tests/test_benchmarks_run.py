"""The benchmarks stay runnable: speed is shown in benchmarks/, so a change
that breaks one would hide a figure the README reports."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent


def test_the_benchmarks_run():
    """Every benchmark once, on a handful of inputs (--benchmark-disable),
    in a few seconds."""
    out = subprocess.run([sys.executable, "-m", "pytest", "benchmarks", "--benchmark-disable", "-q",
                          "-p", "no:cacheprovider"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0 and " passed" in out.stdout, out.stdout[-3000:] + out.stderr[-2000:]
