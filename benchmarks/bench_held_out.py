"""Measure `attnlab check` and the hidden suite's diagnosis on bugs they were never tuned on.

``benchmarks/held_out_bugs/`` holds realistic student bugs, one function broken per file, in the
fixture format of ``tests/submissions`` (``file:`` and ``breaks:`` in the docstring). They were
written before the public tests, the probes and the catalogue were tuned, and are not read while
tuning: this script prints only totals unless asked for ``--details``. ``held_out_bugs_2/`` is a
second set (numpy and torch, every exercise file), written before the algorithm-points change
tuned anything; ``--bugs`` chooses the set.

For each bug, the reference files with the bug spliced in are

- checked as a student checks (``attnlab check FOLDER --only FILE``, in a process of its own, as
  the command runs): does the broken function show ✓?
- graded by the hidden tests in the sandbox (``grade(..., only=[FILE])``): is the bug caught (a
  test of the broken function fails), and which mistake is named?

A name is judged against ``held_out_bugs/names.toml`` (bug -> the catalogue ids that describe
it): named right, misnamed (a name not in the list), or not named.

    python benchmarks/bench_held_out.py [--bugs DIR] [--details] [--save results.json] [--only BUG ...]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BUGS = Path(__file__).with_name("held_out_bugs")
sys.path.insert(0, str(REPO / "tests"))

from conftest import COURSE, build_submission, read_fixture  # noqa: E402


def check_status(folder: Path, module: str) -> dict:
    """`attnlab check`'s verdict per function on ``folder``'s ``module``, run as the command runs it,
    with a test deadline of 60 s instead of 5: a busy machine (the grading beside it) must not turn
    a ✓ into a timeout."""
    code = (
        "import json, sys; from pathlib import Path; from attnlab.course import Course; from attnlab.check.run import run_check; "
        "r = run_check(Course.load(Path(sys.argv[1])), Path(sys.argv[2]), [sys.argv[3]], test_seconds=60); "
        "print(json.dumps({f.function: [f.status, f.message] for f in r.functions}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(REPO), str(folder), module], capture_output=True, text=True, timeout=300
    )
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1:] or ["?"]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure(bug: Path, server) -> dict:
    from attnlab.grading.suite import grade
    from attnlab.outcomes import Outcome

    fixture = read_fixture(bug)
    module = fixture.file.removesuffix(".py")
    with tempfile.TemporaryDirectory(prefix="attnlab-held-out-") as scratch:
        folder = build_submission(Path(scratch) / "submission", fixture)
        checked = check_status(folder, module)
        report = grade(COURSE, folder, only=[module], fork_server=server)
    failing = [t for t in report.tests if t.outcome is not Outcome.PASSED]
    own = [t for t in failing if t.function == fixture.breaks]
    named = sorted({t.misconception for t in own if t.misconception})
    status, message = checked.get(fixture.breaks, ["missing", str(checked.get("error", ""))])
    return {
        "bug": bug.stem,
        "function": fixture.breaks,
        "check": status,
        "check_message": message,
        "caught": bool(own),
        "named": named,
        "others_failing": sorted({t.function for t in failing} - {fixture.breaks}),
        "first_feedback": own[0].feedback[:300] if own else "",
    }


def judge(results: list[dict], accepted: dict[str, list[str]]) -> dict:
    total = len(results)
    ticked = sum(r["check"] == "passed" for r in results)
    caught = sum(r["caught"] for r in results)
    named = [r for r in results if r["named"]]
    right = [r for r in named if r["bug"] in accepted and set(r["named"]) <= set(accepted[r["bug"]])]
    unjudged = [r for r in named if r["bug"] not in accepted]
    misnamed = [r for r in named if r not in right and r not in unjudged]
    return {
        "bugs": total,
        "check_ticked": ticked,
        "caught": caught,
        "named": len(named),
        "named_right": len(right),
        "misnamed": len(misnamed),
        "named_unjudged": len(unjudged),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--details", action="store_true", help="print each bug's verdicts (after tuning only)")
    parser.add_argument("--save", type=Path, help="write every bug's verdicts as JSON here")
    parser.add_argument("--only", nargs="*", default=None, help="these bugs only (file stems)")
    parser.add_argument("--bugs", type=Path, default=BUGS, help="the folder of held-out bugs (default: held_out_bugs)")
    args = parser.parse_args()
    if not args.bugs.is_dir():
        parser.error(f"{args.bugs}: no such folder")

    from attnlab.sandbox.environment import SandboxEnvironment
    from attnlab.sandbox.host import ForkServer

    bugs = sorted(p for p in args.bugs.glob("*.py") if not args.only or p.stem in args.only)
    names = args.bugs / "names.toml"
    accepted = tomllib.loads(names.read_text()) if names.is_file() else {}
    started = time.perf_counter()
    server = ForkServer(SandboxEnvironment.for_course(COURSE))
    try:
        results = [measure(bug, server) for bug in bugs]
    finally:
        server.close()
    if args.save:
        args.save.write_text(json.dumps(results, indent=1, ensure_ascii=False))
    if args.details:
        for r in results:
            print(
                f"{r['bug']:40} check={r['check']:15} caught={r['caught']!s:5} named={','.join(r['named']) or '-'}  {r['check_message'][:90]!r}"
            )
    totals = judge(results, accepted)
    print(json.dumps(totals))
    share = totals["check_ticked"] / max(totals["bugs"], 1)
    print(
        f"{totals['bugs']} bugs in {time.perf_counter() - started:.0f} s: check shows ✓ for the broken function in {totals['check_ticked']} ({share:.0%}); "
        f"the hidden suite catches {totals['caught']}, names {totals['named']} ({totals['named_right']} right, {totals['misnamed']} misnamed, {totals['named_unjudged']} unjudged)"
    )


if __name__ == "__main__":
    main()
