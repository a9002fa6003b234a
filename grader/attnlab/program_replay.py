"""Replay a recorded hidden suite on a whole submission in one sandboxed program.

The fast path of class grading (``replay``) for files of plain functions: one
program worker (``attnlab.sandbox.program``) imports the submission, runs the
recorded calls a segment at a time and answers each with its value and the
nested contract calls it made. A recorded test passes when every one of its
calls gave the recorded value *and* every nested result is the reference's on
the same arguments: then the live run, whose stand-ins answer nested calls
with the reference, would have walked through the same values, and passes.
Anything else (a difference, an exception, a nested result the reference
disagrees with, a timeout or a crash) leaves the test to the live run.

A timeout costs one deadline: the worker marks which function it is in, and a
top-level function that timed out is not run again live on the same arguments.
"""

from __future__ import annotations

from dataclasses import dataclass

from attnlab import wire
from attnlab.outcomes import CallTimedOut, SubmissionProblem
from attnlab.replay import RecordedCall, Script, ScriptedTest, has_float32, same_behaviour
from attnlab.results import TestResult
from attnlab.sandbox.program import known_key

# A segment is one message: small enough for the wire's limits, few enough for one round trip.
SEGMENT_BUFFERS = 1500
NESTED_ANSWERS = 50_000


@dataclass
class Segment:
    """Calls sent in one message; a memory-measuring call goes alone."""

    calls: list[tuple[int, RecordedCall]]
    """(index of the test in the plan, the call)."""
    framed: list
    memory_budget: int | None = None
    expected: list = None
    """Per call, the recorded answer as the worker encodes it (tree, buffer bytes): a result that
    is bit for bit the reference's is accepted without decoding it."""


@dataclass
class ProgramPlan:
    tests: list[ScriptedTest]
    segments: list[Segment]


def program_modules(course) -> list[str]:
    """The files a program worker can replay: plain functions, no heavy library."""
    return [m for m in course.modules if not course.needs_of(m) and not any(f.is_class for f in course.functions if f.module == m)]


def plan_program(tests: list[ScriptedTest]) -> ProgramPlan:
    segments: list[Segment] = []
    requests: list[dict] = []
    buffers: list = []
    calls: list[tuple[int, RecordedCall]] = []

    def flush(budget=None):
        if calls:
            expected = [_encoded_answer(call) for _, call in calls]
            segments.append(Segment(list(calls), wire.frame({"op": "run", "calls": list(requests)}, list(buffers)), budget, expected))
            calls.clear(), requests.clear(), buffers.clear()

    for index, test in enumerate(tests):
        for call in test.calls:
            if call.memory_budget is not None:
                flush()
            requests.append({"function": call.function, "args": wire.encode((call.args, call.kwargs), buffers), "return_inputs": call.return_inputs})
            calls.append((index, call))
            if call.memory_budget is not None:
                flush(call.memory_budget)
            elif len(buffers) > SEGMENT_BUFFERS:
                flush()
    flush()
    return ProgramPlan(tests, segments)


def _encoded_answer(call: RecordedCall) -> tuple[object, list[bytes]]:
    answer = (call.value, *call.inputs_after) if call.return_inputs else call.value
    buffers: list = []
    tree = wire.encode(answer, buffers)
    return tree, [bytes(wire.as_bytes(b)) for b in buffers]


class NestedChecks:
    """The reference's answers to nested calls, and the results already accepted (by digest),
    shared by the submissions one grading process grades."""

    def __init__(self, reference):
        self.reference = reference
        self.answers: dict[tuple[str, str], tuple[bool, object]] = {}
        self.known: set[str] = set()

    def accept(self, top: str, entry: dict, buffers: list, allowed: set[tuple[str, str]], module_of) -> bool:
        """Is this nested result what the reference answers on the same arguments?"""
        name = entry.get("function")
        if not isinstance(name, str) or (module_of(name), name) not in allowed:
            return False
        args, kwargs = wire.decode(entry.get("args"), buffers)
        value = wire.decode(entry.get("value"), buffers)
        if not (isinstance(args, tuple) and isinstance(kwargs, dict)):
            return False
        arguments = wire.fingerprint((args, kwargs))
        key = (name, arguments)
        if key not in self.answers:
            try:
                answer = (True, wire.copy_plain(getattr(self.reference, name)(*args, **kwargs)))
            except Exception:  # noqa: BLE001 - the reference refuses these arguments: the live run shows how
                answer = (False, None)
            if len(self.answers) < NESTED_ANSWERS:
                self.answers[key] = answer
        else:
            answer = self.answers[key]
        if not answer[0] or not same_behaviour(value, answer[1], has_float32((args, kwargs))):
            return False
        if len(self.known) < NESTED_ANSWERS:
            self.known.add(known_key(name, arguments, wire.fingerprint(value)))
        return True


@dataclass
class _Progress:
    calls_left: int
    ok: bool = True
    seconds: float = 0.0
    output_until: list | None = None


def replay_program(script: Script, backend, tests: list[ScriptedTest]) -> dict[str, TestResult]:
    """Replay ``tests`` (all of program files) on ``backend``'s submission; return the passed ones."""
    if not tests:
        return {}
    course = backend.course
    key = tuple(t.nodeid for t in tests)
    if key not in script.program_plans:
        script.program_plans[key] = plan_program(tests)
    plan = script.program_plans[key]
    if script.nested_checks is None:
        script.nested_checks = NestedChecks(backend.reference)
    checks = script.nested_checks
    modules = program_modules(course)
    contract = {m: course.functions_in(m) for m in modules}
    allowed_pairs = {f: backend.reference.allowed_for(f) for m in modules for f in contract[m]}
    start = {
        "modules": modules,
        "contract": contract,
        "allowed": {f: sorted(name for _, name in pairs) for f, pairs in allowed_pairs.items()},
        "known": sorted(checks.known),
    }
    try:
        program = backend.start_program(start)
    except SubmissionProblem:
        return {}
    progress = [_Progress(len(t.calls)) for t in plan.tests]
    module_of = lambda name: course.function(name).module
    try:
        for segment in plan.segments:
            if all(not progress[i].ok for i, _ in segment.calls):
                continue  # every test in it has failed already: nothing to learn
            try:
                baseline = program.reset_peak_memory() if segment.memory_budget is not None else 0
                with backend.charging():
                    for (index, call), expected, (header, buffers, seconds) in zip(segment.calls, segment.expected, program.run(segment.framed, len(segment.calls))):
                        state = progress[index]
                        state.calls_left -= 1
                        state.seconds += seconds
                        state.output_until = _positions(header.get("out"))
                        if state.ok and not _identical(header, buffers, expected):
                            state.ok = _matches(header, buffers, call, checks, allowed_pairs.get(call.function, set()), module_of)
                        if segment.memory_budget is not None and state.ok:
                            state.ok = program.peak_memory() - baseline <= segment.memory_budget
            except CallTimedOut as problem:
                if problem.index is not None and 0 <= problem.index < len(segment.calls):
                    _seed_timeout(backend, problem, segment.calls[problem.index][1])
                break
            except SubmissionProblem:
                break  # a crash: what is undecided runs live, and crashes there with its own message
        return _passed(plan, progress, program)
    finally:
        program.close()


def _identical(header: dict, buffers: list, expected: tuple[object, list[bytes]]) -> bool:
    """The reference's answer bit for bit, with no nested call left to check?"""
    tree, data = expected
    if header.get("op") != "result" or header.get("unverified") is not None or header.get("nested") != []:
        return False
    return header.get("value") == tree and len(buffers) == len(data) and all(b == d for b, d in zip(buffers, data))


def _matches(header: dict, buffers: list, call: RecordedCall, checks: NestedChecks, allowed, module_of) -> bool:
    if header.get("op") != "result" or header.get("unverified") is not None:
        return False
    try:
        value = wire.decode(header.get("value"), buffers)
        if call.return_inputs:
            if not (isinstance(value, tuple) and len(value) == 3):
                return False
            value, *inputs_after = value
            if not same_behaviour(tuple(inputs_after), call.inputs_after, call.float32_inputs):
                return False
        if not same_behaviour(value, call.value, call.float32_inputs):
            return False
        nested = header.get("nested")
        if not isinstance(nested, list):
            return False
        return all(isinstance(entry, dict) and checks.accept(call.function, entry, buffers, allowed, module_of) for entry in nested)
    except wire.WireError:
        return False


def _seed_timeout(backend, problem: CallTimedOut, call: RecordedCall) -> None:
    """A top-level call that timed out on its own (not inside a nested call) would time out
    live too, on the same arguments: the live run is told, instead of waiting again."""
    if problem.function == call.function:
        backend.seed_timeout(call.function, call.args, call.kwargs, f"{call.function} did not return within {backend.limits.call_seconds:g} s")


def _passed(plan: ProgramPlan, progress: list[_Progress], program) -> dict[str, TestResult]:
    """The tests whose every call matched, each with what it printed (read in order, so that
    what a failed test printed is not given to the next)."""
    passed: dict[str, TestResult] = {}
    for test, state in zip(plan.tests, progress):
        if state.output_until is None:
            continue
        output = program.take_output(state.output_until)
        if state.ok and state.calls_left == 0:
            passed[test.nodeid] = TestResult(**{**vars(test.result), "output": output, "duration": round(state.seconds, 4)})
    return passed


def _positions(out) -> list[int] | None:
    if isinstance(out, list) and len(out) == 2 and all(isinstance(n, int) for n in out):
        return out
    return None
