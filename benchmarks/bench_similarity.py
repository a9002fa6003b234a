"""Compare a generated class through the command line and report its wall time.

The class is bench_class.py's (mostly correct submissions, each file the reference or a
correct-but-different variant and signed by its author, some buggy, a few hostile), plus two
planted pairs: a student who handed in another's files unchanged, and one who handed in
another's files with every name a function binds renamed and the comments gone. The report
says where the planted pairs rank, the wall time and CPU seconds of ``attnlab similarity CLASS
--html``, and the peak memory of its process.

    python benchmarks/bench_similarity.py [--students 200]
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
sys.path.insert(0, str(REPO / "tests"))

from bench_class import generate_class  # noqa: E402
from conftest import COURSE  # noqa: E402
from test_similarity import renamed_without_comments  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=200)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="attnlab-bench-similarity-"))
    try:
        classroom = work / "class"
        mix = generate_class(classroom, args.students - 2, 0.05, 0.15, COURSE.tracks["numpy"])
        # The planted copies' sources: the two students holding the rarest version of a file (a
        # bug few others have). Every other file of theirs is a version many students hand in,
        # and code handed in by more than 10 students is no evidence of copying (MOSS's rule).
        versions = Counter((path.name, path.read_text().split("\n", 1)[1]) for path in classroom.glob("*/*.py"))
        source, other = sorted(
            classroom.iterdir(),
            key=lambda student: min(versions[(p.name, p.read_text().split("\n", 1)[1])] for p in student.glob("*.py")),
        )[:2]
        shutil.copytree(source, classroom / "zz-identical")
        (classroom / "zz-disguised").mkdir()
        for path in other.glob("*.py"):
            (classroom / "zz-disguised" / path.name).write_text(renamed_without_comments(path.read_text()))
        print(
            f"class of {args.students}: {mix['correct']} correct, {mix['buggy']} buggy, {mix['hostile']} hostile, "
            f"zz-identical = {source.name}, zz-disguised = {other.name} renamed"
        )
        command = [
            sys.executable,
            "-m",
            "attnlab.cli",
            "similarity",
            str(classroom),
            "--html",
            str(work / "similarity.html"),
            "--top",
            "100000",
            "--course",
            str(REPO),
        ]
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu_before = usage.ru_utime + usage.ru_stime
        started = time.perf_counter()
        result = subprocess.run(command, capture_output=True, text=True)
        wall = time.perf_counter() - started
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = usage.ru_utime + usage.ru_stime - cpu_before
        if result.returncode != 0:
            sys.exit(f"similarity failed: {result.stderr.strip()[-1000:]}")
        peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        ranks = {}
        rows = [line for line in result.stdout.splitlines() if line.startswith("│")]
        for planted, with_ in (("zz-identical", source.name), ("zz-disguised", other.name)):
            for line in rows:
                if planted in line and with_ in line:
                    ranks[planted] = f"{line.strip()} (of {len(rows)} pairs shown)"
                    break
        print(f"wall time      {wall:8.1f} s   (reading the class, fingerprints, comparing, terminal table and HTML)")
        print(
            f"CPU            {cpu:8.1f} s   (the command and its tokenizing processes; the wall time moves with the host's load, this less)"
        )
        print(f"peak memory    {peak_mib:8.0f} MiB")
        print(f"HTML report    {(work / 'similarity.html').stat().st_size / 1024:8.0f} KiB")
        for planted in ("zz-identical", "zz-disguised"):
            print(f"{planted}: {ranks.get(planted, 'NOT FOUND in the table')}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
