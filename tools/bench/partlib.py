# SPDX-License-Identifier: GPL-2.0
"""What the report's part modules share beyond Markdown (mdtable.py): the
median of a part's samples, and gnuplot to draw a part's plot."""
import subprocess
import sys


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    if not n:
        return None
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def gnuplot(script, workdir):
    try:
        subprocess.run(["gnuplot"], input=script, text=True, cwd=workdir,
                       check=True, capture_output=True)
        return True
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"report: gnuplot failed: {getattr(e, 'stderr', e)}",
              file=sys.stderr)
        return False
