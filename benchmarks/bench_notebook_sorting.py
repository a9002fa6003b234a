"""The grader's cost of sorting the worst notebooks into solution code and the rest.

``attnlab.intake.solution_code`` parses a notebook's code in the grader's own process (it never runs
it). This measures the largest it sorts (``MAX_SORTED_BYTES`` of code) in three shapes that cost
the most: one huge literal, thousands of statements, and a chain of names each statement reads
from the one before. Each shape runs in a fresh process, so its peak memory is its own.

    python benchmarks/bench_notebook_sorting.py
"""

from __future__ import annotations

import json
import subprocess
import sys

MEASURE = """
import json, resource, sys, time
from attnlab.intake.solution_code import MAX_SORTED_BYTES as n, CodeCell, solution_code
shapes = {
    "one literal of 1s": "x = [" + "1," * ((n - 10) // 2) + "]",
    "statements": "\\n".join(f"x{i} = {i}" for i in range(n // 12)),
    "a chain of names": "\\n".join(["x0 = 0", *(f"x{i} = x{i - 1}" for i in range(1, n // 14))]) + "\\ndef f():\\n    return x1",
}
source = shapes[sys.argv[1]][:n]
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
started = time.perf_counter()
solution_code([CodeCell(1, source, None)], "softmax.ipynb")
print(json.dumps({"bytes": len(source), "seconds": time.perf_counter() - started, "mib": (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024}))
"""


def main() -> None:
    for shape in ("one literal of 1s", "statements", "a chain of names"):
        result = json.loads(
            subprocess.run([sys.executable, "-c", MEASURE, shape], capture_output=True, text=True, check=True).stdout
        )
        print(
            f"{shape:>18}: {result['bytes']:,} bytes of code sorted in {result['seconds']:.2f} s, peak +{result['mib']:.0f} MiB"
        )


if __name__ == "__main__":
    main()
