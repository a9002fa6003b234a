"""How fast a practice copy can be brute-forced: guesses per second on one core, with the engine's own check.

Builds the practice copy of a quiz (default softmax) and times wrong guesses
against one of its checks, as an attacker with the bundle would run them. The
check is one scrypt per whole answer, so the rate does not depend on the
question; an exam copy has no check to time at all.

    python benchmarks/quiz_guess_rate.py [--quiz softmax] [--seconds 10]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quiz", default="softmax", help="a quiz with a number question (default softmax)")
    parser.add_argument("--seconds", type=float, default=10.0, help="how long to guess (default 10)")
    args = parser.parse_args()

    from attnlab.course import Course
    from attnlab.quiz import student_copy
    from attnlab.quiz.items import reference_factory_for
    from attnlab.quiz.schema import load_quiz

    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core, as the note says
    copy = student_copy.build(
        load_quiz(REPO / "quizzes" / f"{args.quiz}.yaml"), "practice", reference_factory_for(lambda: Course.load(REPO))
    )
    asked, check = next((a, c) for a, c in student_copy.questions_for(copy, "bench") if a.type == "number")
    guesses, started = 0, time.perf_counter()
    while time.perf_counter() - started < args.seconds:
        check.check(1000.0 + guesses)  # never right: every guess pays the full check
        guesses += 1
    elapsed = time.perf_counter() - started
    cost = copy["scrypt"]
    print(
        f"practice copy of {args.quiz}, question {asked.id}: {guesses / elapsed:.1f} guesses/s on one core "
        f"(scrypt n={cost['n']}, r={cost['r']}, p={cost['p']}; {guesses} guesses in {elapsed:.1f} s)"
    )


if __name__ == "__main__":
    main()
