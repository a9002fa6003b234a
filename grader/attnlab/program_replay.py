"""Replay a recorded hidden suite on a whole submission in one sandboxed program.

The fast path of class grading (``replay``) for files of plain functions: one
program worker (``attnlab.sandbox.program``) imports the submission, runs the
recorded calls a segment at a time and answers each with its value and the
nested contract calls it made. A recorded test passes when every one of its
calls gave the recorded value *and* every nested result is the reference's on
the same arguments: then the live run, whose stand-ins answer nested calls
with the reference, would have walked through the same values, and passes.
Anything else (a difference, an exception, a timeout or a crash) leaves the
test to the live run.

A nested result the reference disagrees with (a bug in a sibling function) is
not the end: the live run would have given the caller the reference's answer
there. So the test's calls run again with those answers (``rerun``), and the
test is decided by that run, as the live one would decide it; a few rounds, as
answering one nested call can change the arguments of the next.

A timeout costs one deadline: the worker marks which function it is in, and a
top-level function that timed out is not run again live on the same arguments.
After a timeout or a crash the program starts again with that function
poisoned (never run again: its tests go live, its callers are answered in a
rerun), and goes on where it stopped; a file whose import hangs is stood in
for the same way. A few restarts at most: past that, the rest runs live.

A test whose results all came back clean (values, no nested result to answer
for) but not the reference's is not sent live either: its own checks run on
those results (``body_replay``). The recorded calls themselves live in the fork
server (``ForkServer.plans``): a program is sent only segment numbers.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass, field

import numpy as np

from attnlab import wire
from attnlab.body_replay import body_passes
from attnlab.outcomes import CallTimedOut, StudentError, SubmissionProblem
from attnlab.replay import RecordedCall, Script, ScriptedTest, has_float32, same_behaviour
from attnlab.results import TestResult
from attnlab.sandbox.program import known_key

# A segment is one message: small enough for the wire's limits, few enough for one round trip.
SEGMENT_BUFFERS = 1500
NESTED_ANSWERS = 50_000
# Rounds of reruns with the reference's answers: each round answers the nested calls the last one
# found wrong; more than a few means a chain of bugs, which the live run grades as well.
RERUN_ROUNDS = 3
# The most arrays a rerun's answers may take: a message holds wire.MAX_BUFFERS, and a program
# that is sent more refuses the message and stops. (A bug in a function every other one calls,
# softmax, answered for a whole suite run at hypothesis's 100 examples, came to 6,000.)
RERUN_BUFFERS = wire.MAX_BUFFERS // 2
# Starts of the program after a crash or a timeout, each with one more function poisoned.
MAX_RESTARTS = 3
# Bytes of a submission's results kept to run tests' own checks on (``body_replay``): a correct
# one keeps none, a float64 variant of the whole suite about 1 MiB. Past it, the rest of its
# differing results are not kept (those tests run live): a student returning 15 MB per call
# had one grading process hold 4 GB.
MAX_KEPT_BYTES = 64 << 20
# Bytes of the reference's answers to nested calls kept for the class (a hostile program's nested
# arguments can be as large as a message allows).
MAX_ANSWER_BYTES = 256 << 20


@dataclass
class Segment:
    """Calls sent in one message; a memory-measuring call goes alone."""

    number: int
    calls: list[tuple[int, RecordedCall]]
    """(index of the test in the plan, the call)."""
    requests: list[dict]
    buffers: list
    memory_budget: int | None = None
    sent: list = field(default_factory=list)
    """The segment's calls as the grader follows them (``_Call``), made once for the class."""
    framed: list = field(init=False)
    """The segment's calls as a message, framed once for the class: what the fork server is given
    (``ForkServer.plans``) and every program inherits decoded."""
    run_message: list = field(init=False)
    """The message that runs it in a program: its number alone."""
    expected: list = field(init=False)
    """Per call, the recorded answer as the program sends it (its tree as JSON text, buffer
    bytes): a result that is bit for bit the reference's is accepted without decoding it."""

    def __post_init__(self):
        self.framed = wire.frame({"op": "run", "segment": self.number, "calls": self.requests}, self.buffers)
        self.run_message = wire.frame({"op": "run", "segment": self.number})
        self.expected = [_encoded_answer(call) for _, call in self.calls]


@dataclass
class ProgramPlan:
    tests: list[ScriptedTest]
    segments: list[Segment]
    positions: list[list[tuple[int, int]]]
    """Per test, where its calls are: (segment, index in it)."""
    measures_memory: list[bool]
    """Per test: has a call measured alone for its memory (never rerun)."""
    numbers: dict = field(default_factory=dict)
    """(segment, index in it) -> the call's place among its test's calls."""
    key: str = ""
    """A digest of the segments' messages: the name the fork server keeps them under."""


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
            segments.append(Segment(len(segments), list(calls), list(requests), list(buffers), budget))
            calls.clear(), requests.clear(), buffers.clear()

    for index, test in enumerate(tests):
        for call in test.calls:
            if call.memory_budget is not None:
                flush()
            requests.append({"function": call.function, "args": wire.encode((call.args, call.kwargs), buffers), "return_inputs": call.return_inputs, "test": index})
            calls.append((index, call))
            if call.memory_budget is not None:
                flush(call.memory_budget)
            elif len(buffers) > SEGMENT_BUFFERS:
                flush()
    flush()
    positions: list[list[tuple[int, int]]] = [[] for _ in tests]
    for number, segment in enumerate(segments):
        for position, (index, _) in enumerate(segment.calls):
            positions[index].append((number, position))
    digest = hashlib.blake2b(digest_size=16)
    for segment in segments:
        for part in segment.framed:
            digest.update(part)
    numbers = {position: number for test_positions in positions for number, position in enumerate(test_positions)}
    return ProgramPlan(tests, segments, positions, [any(c.memory_budget is not None for c in t.calls) for t in tests], numbers, digest.hexdigest())


def _encoded_answer(call: RecordedCall) -> tuple[str, list[bytes]]:
    answer = (call.value, *call.inputs_after) if call.return_inputs else call.value
    buffers: list = []
    text = wire.dumps_text(wire.encode(answer, buffers))
    return text, [bytes(wire.as_bytes(b)) for b in buffers]


class NestedChecks:
    """The reference's answers to nested calls, and the results already accepted (by digest),
    shared by the submissions one grading process grades."""

    def __init__(self, reference):
        self.reference = reference
        self.answers: dict[tuple[str, str], tuple[bool, object]] = {}
        self.answer_bytes = 0
        self.known: set[str] = set()
        self.token = uuid.uuid4().hex
        """The name the fork server keeps ``known`` under (``ForkServer.share_known``)."""
        self.results: dict[tuple, tuple[bool, bool]] = {}
        """Verdicts on results that were not the reference's bit for bit but had no nested call to
        check, by (call, digest of the result): a variant many students share is judged once."""

    def judge(self, entry: dict, buffers: list, allowed: set[tuple[str, str]], module_of) -> tuple[bool, tuple | None]:
        """Is this nested result what the reference answers on the same arguments? When it is
        not, also ((function, arguments digest), the reference's answer), if there is one."""
        name = entry.get("function") if isinstance(entry, dict) else None
        if not isinstance(name, str) or (module_of(name), name) not in allowed:
            return False, None
        args, kwargs = wire.decode(entry.get("args"), buffers)
        failed = "failed" in entry  # it raised, or returned what cannot cross the wire
        value = None if failed else wire.decode(entry.get("value"), buffers)
        if not (isinstance(args, tuple) and isinstance(kwargs, dict)):
            return False, None
        arguments = wire.fingerprint((args, kwargs))
        key = (name, arguments)
        if key not in self.answers:
            try:
                answer = (True, wire.copy_plain(getattr(self.reference, name)(*args, **kwargs)))
            except Exception:  # noqa: BLE001 - the reference refuses these arguments: the live run shows how
                answer = (False, None)
            size = _nbytes(answer[1])
            if len(self.answers) < NESTED_ANSWERS and self.answer_bytes + size <= MAX_ANSWER_BYTES:
                self.answers[key] = answer
                self.answer_bytes += size
        else:
            answer = self.answers[key]
        if not answer[0]:
            return False, None  # the stand-in would have raised: only the live run shows what follows
        if failed or not same_behaviour(value, answer[1], has_float32((args, kwargs))):
            return False, ((name, arguments), answer[1])
        if len(self.known) < NESTED_ANSWERS:
            self.known.add(known_key(name, args, kwargs, value))
        return True, None


@dataclass
class _Progress:
    calls_left: int
    ok: bool = True
    seconds: float = 0.0
    output: str = ""
    answers: dict | None = field(default_factory=dict)
    """The reference's answers to the nested calls found wrong, by (function, arguments digest);
    None once a difference that no answer explains was seen (the test runs live)."""
    clean: bool = True
    """Every result so far came back whole, with no nested result to answer for: if values
    differ, the test's own checks may still be run on them (``body_replay``)."""
    results: dict = field(default_factory=dict)
    """Per call of the test (its number): the call, its result (header, buffers: None when it was
    the reference's), and whether that was the reference's bit for bit."""

    def goes_live(self) -> None:
        self.ok, self.answers, self.clean = False, None, False

    @property
    def learning(self) -> bool:
        """Is there still something to learn from this test's results?"""
        return self.answers is not None or self.clean


@dataclass(frozen=True)
class _Call:
    """A call sent to the program: whose test it is, where it is in the plan, what it should give."""

    test: int
    position: tuple[int, int]
    recorded: RecordedCall
    expected: tuple
    number: int = 0
    """Its place among its test's calls."""


class _Stop(Exception):
    """The program timed out or crashed on the ``index``-th call of a message, in ``function``."""

    def __init__(self, function: str | None, index: int | None):
        super().__init__(function)
        self.function, self.index = function, index


class _Program:
    """A submission's program worker, started again after a crash or a timeout with the function
    that crashed or hung poisoned (never run again: its own tests go live, and its callers get
    the reference's answers in a rerun), at most ``MAX_RESTARTS`` times."""

    def __init__(self, backend, start: dict, checks: NestedChecks):
        self.backend, self.start, self.checks = backend, start, checks
        self.poisoned: list[str] = []
        self.stubbed: list[str] = []  # files whose import hung: the program stands in for them
        self.restarts = 0
        self.process = self._start()

    def _start(self):
        while True:
            try:
                # With what the class has accepted so far, this submission's nested results too.
                return self.backend.start_program({**self.start, "poisoned": list(self.poisoned), "stubbed": list(self.stubbed)}, (self.checks.token, self.checks.known))
            except CallTimedOut as problem:
                # A file whose import hangs (its tests are told so, live): again, standing in for it.
                if problem.module is None or problem.module in self.stubbed or self.restarts >= MAX_RESTARTS:
                    raise
                self.restarts += 1
                self.stubbed.append(problem.module)
                self.poisoned.extend(self.start["contract"].get(problem.module, ()))

    def restart(self, function: str | None) -> bool:
        """Start again with ``function`` poisoned (the plan's calls come with the fork)."""
        self.process.close()
        if not function or function in self.poisoned or self.restarts >= MAX_RESTARTS:
            return False
        self.restarts += 1
        self.poisoned.append(function)
        try:
            self.process = self._start()
        except SubmissionProblem:
            return False
        return True

    def close(self) -> None:
        self.process.close()


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
    backend.server.plans.setdefault(plan.key, [segment.framed for segment in plan.segments])
    start = {
        "plan": plan.key,
        "modules": modules,
        "contract": contract,
        "allowed": {f: sorted(name for _, name in pairs) for f, pairs in allowed_pairs.items()},
        "known_token": checks.token,
    }
    try:
        program = _Program(backend, start, checks)
    except SubmissionProblem:
        return {}
    module_of = lambda name: course.function(name).module
    kept = [0]  # bytes of differing results kept for body_replay

    def judge(state: _Progress, call: _Call, header: dict, buffers: list) -> None:
        if not state.learning:
            return
        identical = _identical(header, buffers, call.expected)
        if identical:
            state.results[call.number] = (call, None, None, True)
            return
        if state.clean:
            size = sum(len(b) for b in buffers)
            if kept[0] + size <= MAX_KEPT_BYTES:
                kept[0] += size
                # Copies: a view would keep the whole message the result came in.
                state.results[call.number] = (call, header, [bytes(b) for b in buffers], False)
            else:
                state.clean = False
        key = _result_key(call, header, buffers)
        if key is not None and key in checks.results:
            matched, clean = checks.results[key]
            answers = {} if matched else None
        else:
            matched, answers, clean = _judge(header, buffers, call.recorded, checks, allowed_pairs.get(call.recorded.function, set()), module_of)
            if key is not None and len(checks.results) < NESTED_ANSWERS:
                checks.results[key] = (matched, clean)
        state.ok = state.ok and matched
        state.clean = state.clean and clean
        if answers is None:
            state.answers = None
        elif state.answers is not None:
            state.answers.update(answers)

    progress = [_Progress(len(t.calls)) for t in plan.tests]
    _leave_poisoned_live(plan, progress, program.poisoned)
    try:
        for segment in plan.segments:
            if not segment.sent:
                segment.sent = [_Call(index, (segment.number, n), call, expected, plan.numbers[segment.number, n]) for n, ((index, call), expected) in enumerate(zip(segment.calls, segment.expected))]
            if not _replay_segment(program, plan, segment, segment.sent, progress, judge):
                return _passed(plan.tests, progress)
        passed = _passed(plan.tests, progress)
        # Tests whose only fault was a nested result: again, with the reference's answers there.
        for _ in range(RERUN_ROUNDS):
            chosen = [i for i, state in enumerate(progress) if not state.ok and state.answers and state.calls_left == 0 and not plan.measures_memory[i]]
            if not chosen:
                break
            answers: dict = {}
            for i in chosen:
                answers.update(progress[i].answers)
            buffers: list = []
            listed = [{"function": name, "args": arguments, "value": wire.encode(value, buffers)} for (name, arguments), value in answers.items()]
            if len(buffers) > RERUN_BUFFERS:
                break  # more answers than a message carries (the program refuses it): those run live
            for i in chosen:
                progress[i] = _Progress(len(plan.tests[i].calls))
            calls = [_Call(i, (s, n), plan.segments[s].calls[n][1], plan.segments[s].expected[n], number) for i in chosen for number, (s, n) in enumerate(plan.positions[i])]
            framed = wire.frame({"op": "rerun", "calls": [c.position for c in calls], "answers": listed}, buffers)
            try:
                _run(program, framed, calls, progress, judge, set())
            except _Stop:
                break  # what is undecided runs live
            finally:
                passed.update(_passed([plan.tests[i] for i in chosen], [progress[i] for i in chosen]))
        # Tests whose results differ but came back clean: their own checks, run on those results.
        for test, state in zip(plan.tests, progress):
            if test.nodeid not in passed and state.clean and state.calls_left == 0 and len(state.results) == len(test.calls):
                values = _values(state)
                if values is not None and body_passes(test, values, backend.reference, course.hidden_tests_dir):
                    passed[test.nodeid] = _result(test, state)
        return passed
    finally:
        program.close()


def _over_budget(program: _Program, baseline: int, budget: int) -> bool:
    """Did the segment's memory exceed ``budget``? Yes too when it could not be measured (a
    process of the submission ended meanwhile): the live run names why."""
    try:
        return program.process.peak_memory() - baseline > budget
    except StudentError:
        return True


def _replay_segment(program: _Program, plan: ProgramPlan, segment: Segment, calls: list[_Call], progress: list[_Progress], judge) -> bool:
    """Run a segment's ``calls``, restarting the program after a crash or a timeout to run what
    is left of it; False when the program cannot go on."""
    if not any(progress[c.test].learning for c in calls):
        return True  # every test in it runs live already: nothing to learn
    framed, sent = segment.run_message, calls
    judged: set = set()  # positions of the calls whose results came
    while True:
        try:
            baseline = program.process.reset_peak_memory() if segment.memory_budget is not None else 0
            _run(program, framed, sent, progress, judge, judged)
            if segment.memory_budget is not None and _over_budget(program, baseline, segment.memory_budget):
                for call in sent:
                    progress[call.test].goes_live()
            return True
        except _Stop as stop:
            culprit = sent[stop.index] if stop.index is not None and 0 <= stop.index < len(sent) else None
            if culprit is not None and culprit.recorded.function == stop.function:
                progress[culprit.test].goes_live()  # its own fault: the live run shows it
            if not program.restart(stop.function):
                return False
        _leave_poisoned_live(plan, progress, program.poisoned)
        sent = [c for c in calls if c.position not in judged and progress[c.test].learning]
        if not sent:
            return True
        framed = wire.frame({"op": "rerun", "calls": [c.position for c in sent], "answers": []})


def _leave_poisoned_live(plan: ProgramPlan, progress: list[_Progress], poisoned: list[str]) -> None:
    """The tests of a poisoned function run live (where its crash, hang or import shows)."""
    for test, state in zip(plan.tests, progress):
        if any(c.function in poisoned for c in test.calls):
            state.goes_live()


def _run(program: _Program, framed: list, calls: list[_Call], progress: list[_Progress], judge, judged: set) -> None:
    """Send one message of ``calls`` and judge each result as it comes, with what it printed
    (adding each call's position to ``judged``). Raises ``_Stop`` on a timeout or a crash
    (after telling the live run of a timeout)."""
    process, backend = program.process, program.backend
    try:
        with backend.charging():
            out = None
            for call, (header, buffers, seconds) in zip(calls, process.run(framed, len(calls))):
                judged.add(call.position)
                state = progress[call.test]
                state.calls_left -= 1
                state.seconds += seconds
                # "out" comes when the output moved since the message's last result.
                positions = _positions(header["out"]) if "out" in header else out
                if positions is None:
                    state.goes_live()  # what it printed cannot be told apart
                    # Where the output is known again ("skip"), if it is: what no call can be
                    # told to have printed is read past, not given to the next call's test.
                    out = _positions(header.get("skip"))
                    if out is not None:
                        process.take_output(out)
                elif positions != out:
                    state.output += process.take_output(positions)
                    out = positions
                judge(state, call, header, buffers)
    except CallTimedOut as problem:
        if problem.index is not None and 0 <= problem.index < len(calls):
            _seed_timeout(backend, problem, calls[problem.index].recorded)
        raise _Stop(problem.function, problem.index) from None
    except SubmissionProblem as problem:
        # A crash: what is undecided runs live, and crashes there with its own message.
        raise _Stop(problem.function, problem.index) from None


def _result_key(call: _Call, header: dict, buffers: list) -> tuple | None:
    """The call's position and a digest of its result, when the verdict on it depends on nothing
    else (a result with no nested call to check); else None."""
    if not _plain(header):
        return None
    try:
        return call.position, wire.digest_text(header["value_json"], buffers)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def _plain(header: dict) -> bool:
    """A value, with no nested call to check and nothing left unverified? (The program leaves
    out the keys that hold their defaults.)"""
    return header.get("op") == "result" and header.get("unverified") is None and header.get("nested", []) == []


def _identical(header: dict, buffers: list, expected: tuple[str, list[bytes]]) -> bool:
    """The reference's answer bit for bit, with no nested call left to check?"""
    text, data = expected
    if not _plain(header):
        return False
    # As bytes: comparing a memoryview goes byte by byte (25 us for 8 KiB), bytes use memcmp.
    return header.get("value_json") == text and len(buffers) == len(data) and all(bytes(b) == d for b, d in zip(buffers, data))


def _judge(header: dict, buffers: list, call: RecordedCall, checks: NestedChecks, allowed, module_of) -> tuple[bool, dict | None, bool]:
    """Did the call give the recorded answer with every nested result the reference's? And if
    not, the reference's answers to the nested calls that were wrong, when those may be why
    (None when something else is: the test runs live). And was the result clean: a value, with
    every nested result accepted (then the live run would have seen that very value)?"""
    if header.get("op") not in ("result", "raised", "bad_return") or header.get("unverified") is not None:
        return False, None, False
    nested = header.get("nested", [])
    if not isinstance(nested, list):
        return False, None, False
    try:
        wrong: dict = {}
        for entry in nested:
            accepted, answer = checks.judge(entry, buffers, allowed, module_of)
            if answer is not None:
                wrong[answer[0]] = answer[1]
            elif not accepted:
                return False, None, False
        if header["op"] != "result":
            return False, (wrong or None), False
        value = _result_value(header, buffers)
        matched = True
        if call.return_inputs:
            if not (isinstance(value, tuple) and len(value) == 3):
                return False, (wrong or None), False
            value, *inputs_after = value
            matched = same_behaviour(tuple(inputs_after), call.inputs_after, call.float32_inputs)
        matched = matched and same_behaviour(value, call.value, call.float32_inputs)
        if wrong:
            return False, wrong, False
        return matched, ({} if matched else None), True
    except wire.WireError:
        return False, None, False


def _result_value(header: dict, buffers: list) -> object:
    """A program's result as a value: its tree, sent as JSON text, over its arrays (``WireError``
    when it cannot be read)."""
    return wire.decode(wire.loads_text(header.get("value_json")), buffers)


def _nbytes(value) -> int:
    """Bytes of the arrays in a plain value (``wire.copy_plain``'s kinds)."""
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, (tuple, list)):
        return sum(_nbytes(v) for v in value)
    if isinstance(value, dict):
        return sum(_nbytes(v) for v in value.values())
    return 0


def _values(state: _Progress) -> list | None:
    """The test's results as values, in call order (the recorded value where it was bit for bit
    the reference's); None when one cannot be read."""
    values = []
    for number in range(len(state.results)):
        call, header, buffers, identical = state.results[number]
        if identical:
            values.append(call.recorded.value)
            continue
        if header.get("op") != "result":
            return None
        try:
            values.append(_result_value(header, buffers))
        except wire.WireError:
            return None
    return values


def _seed_timeout(backend, problem: CallTimedOut, call: RecordedCall) -> None:
    """A top-level call that timed out on its own (not inside a nested call) would time out
    live too, on the same arguments: the live run is told, instead of waiting again."""
    if problem.function == call.function:
        backend.seed_timeout(call.function, call.args, call.kwargs, f"{call.function} did not return within {backend.limits.call_seconds:g} s")


def _passed(tests: list[ScriptedTest], progress: list[_Progress]) -> dict[str, TestResult]:
    """The tests whose every call matched, each with what it printed."""
    return {test.nodeid: _result(test, state) for test, state in zip(tests, progress) if state.ok and state.calls_left == 0}


def _result(test: ScriptedTest, state: _Progress) -> TestResult:
    """The test's result when it passed: the reference's, with what the submission printed."""
    return TestResult(**{**vars(test.result), "output": state.output, "duration": round(state.seconds, 4)})


def _positions(out) -> list[int] | None:
    if isinstance(out, list) and len(out) == 2 and all(isinstance(n, int) for n in out):
        return out
    return None
