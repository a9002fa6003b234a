"""The untrusted side of a class's fast path: a submission run as the program it is.

A live worker serves one file and answers a function's calls of its siblings
and of earlier files with the reference (stand-ins that cross back to the
grader, one round trip each). For replaying a recorded hidden suite that is
most of the cost. A program worker instead imports all of the submission's
files, as plain imports, and runs every recorded call in one process, the
student's functions calling each other.

To keep the live verdict, every call a contract function makes of another
contract function it may use (CONTRACT.md: earlier files and its siblings) is
written down with its arguments and result. The grader accepts a replayed
call only when each of those nested results is what the reference gives for
the same arguments, i.e. when the stand-ins would have answered the same. A
nested result the grader has already accepted (by digest) is not sent again.

When a nested result is not the reference's (a bug in a sibling), the grader
sends the reference's answers back and asks for those calls again: a nested
call on arguments it has an answer for then returns that answer, as a stand-in
would, instead of running the student's function. That is the live run's
verdict on the caller alone, without running it live.

After a crash or a timeout the grader starts the program again with that
function "poisoned": it is not run again, at the top or nested (a nested call
of it is written down as failed, for the grader to answer in a rerun).

The recorded calls are the same for every submission of a class, so the fork
server receives them once, decoded (``PLANS``, ``decode_segment``), and every
program it forks inherits them: a submission's program is told only which
segment to run, and decodes nothing.

Nothing here is trusted by the grader: the student's code can patch any of it,
and at worst fools its own fast path into being graded live.
"""

from __future__ import annotations

import importlib
import mmap
import os
import sys
import time
import types

from attnlab import wire
from attnlab.sandbox.worker import BoundedText, _describe_exception, end_if_threads_left

# A call whose nested results cannot all be sent (too many to check) is simply graded live.
MAX_NESTED_SENT = 256
MAX_NESTED_BUFFERS = 2000
# The state file the grader reads after a timeout: two native int32, the index of the call
# running in its segment and what its time goes to (``mark_codes``). Written thousands of times
# per submission: two integers, not text.
STATE_BYTES = 8
# A function whose nested calls took this long in all (seconds) is no longer run nested: its
# callers are answered in a rerun (correct code spends about 0.05 s in them per submission).
NESTED_SECONDS = 1.0
# Results go back a few at a time: at most this many, this many arrays, this old (seconds), or
# this many bytes of arrays (the grader holds a message whole, and refuses one past
# wire.MAX_MESSAGE_BYTES: 64 results of 15 MB each would have been one).
FLUSH_RESULTS, FLUSH_BUFFERS, FLUSH_SECONDS, FLUSH_BYTES = 64, 1500, 0.01, 16 << 20


def mark_codes(modules: list[str], contract: dict[str, list[str]]) -> tuple[dict[str, int], dict[str, int]]:
    """The codes the state file gives what runs: ``function -> n > 0`` (the contract's functions
    in course order) and ``module -> n < 0`` (importing it); 0 is nothing yet."""
    functions = [name for module in modules for name in contract.get(module, ())]
    return {name: n + 1 for n, name in enumerate(functions)}, {module: -(n + 1) for n, module in enumerate(modules)}


def known_key(function: str, args: tuple, kwargs: dict, value) -> str:
    """The key of "``function`` on these arguments gave this value, and the grader accepted it":
    one ``wire.fingerprint`` of all of it, the same on either side of the wire."""
    return wire.fingerprint((function, args, kwargs, value))


_NO_ANSWER = object()

# A recorded call as a program runs it: (function, args, kwargs, return_inputs, test index).
Call = tuple
# The class's recorded calls, decoded once in the fork server before it forks a program:
# plan key -> segment number -> its calls.
PLANS: dict[str, dict[int, list[Call]]] = {}
# The nested results the grader has accepted (``known_key``), per grading process's checks (their
# token): sent to the fork server as they grow, a few new ones per submission, and inherited by
# every program forked after. (In each program's start message they were some 3,000 keys, 100 KB
# of JSON to write and read per submission.)
KNOWN: dict[str, set[str]] = {}


def decode_segment(requests: list[dict], buffers: list) -> list[Call]:
    """A segment's requests as calls; their arrays are writable views of ``buffers``."""
    calls = []
    for request in requests:
        args, kwargs = wire.decode(request["args"], buffers, copy=False)
        calls.append((request["function"], args, kwargs, bool(request.get("return_inputs")), request.get("test")))
    return calls


class Program:
    """Runs recorded calls against a whole submission, watching its nested contract calls."""

    def __init__(self, channel, submission_dir: str, state_path: str):
        self.channel = channel
        self.submission_dir = submission_dir
        self.functions: dict[str, object] = {}  # the student's contract functions, by name
        self.allowed: dict[str, set[str]] = {}
        self.known: set[str] = set()
        self.depth = 0
        self.top: str | None = None
        self.nested: list = []
        self.nested_buffers: list = []
        self.unverified: str | None = None
        self.index = 0  # of the call running, in its segment
        self.function_codes: dict[str, int] = {}  # what _mark writes for a function (mark_codes)
        self.segments: dict[int, list[Call]] = {}  # segment number -> its calls (a rerun names them)
        self.poisoned: set[str] = set()  # functions that crashed or hung: never run again
        self.not_nested: set[str] = set()  # functions not run nested again: they raised, or are slow
        self.nested_seconds: dict[str, float] = {}
        self.answers: dict[tuple[str, str], object] = {}  # (function, arguments digest) -> the reference's answer
        self._output = _Output()
        # What runs now, for the grader to read after a timeout: the function the time went to.
        with open(state_path, "r+b") as state:
            self.state = mmap.mmap(state.fileno(), STATE_BYTES)
        self.marks = memoryview(self.state).cast("i")  # [call index, what runs]

    def _mark(self, function: str) -> None:
        """Write the function the time goes to now (after the call's index, ``_mark_index``)."""
        self.marks[1] = self.function_codes.get(function, 0)

    def _mark_index(self, index: int) -> None:
        """Write the index of the call running, in its segment."""
        self.index = self.marks[0] = index

    def _send(self, header: dict, buffers: list = ()) -> None:
        wire.send(self.channel, header, list(buffers))

    # ------------------------------------------------------------ start

    def start(self, header: dict) -> None:
        """Import the submission's files in course order, each reported in a message of its own."""
        self.allowed = {name: set(names) for name, names in header["allowed"].items()}
        self.known = KNOWN.get(header.get("known_token"), set())  # only read: inherited as it is
        self.poisoned = set(header.get("poisoned", ()))
        self.segments = PLANS.get(header.get("plan"), {})
        contract = header["contract"]
        self.function_codes, module_codes = mark_codes(header["modules"], contract)
        sys.path.insert(0, self.submission_dir)
        stubbed = set(header.get("stubbed", ()))
        for module in header["modules"]:
            self.marks[1] = module_codes[module]
            path = os.path.join(self.submission_dir, f"{module}.py")
            failed = None
            if module in stubbed:
                failed = f"{module}.py was not imported again: its import hung"
            elif not os.path.isfile(path):
                failed = f"the submission has no {module}.py"
            else:
                try:
                    loaded = importlib.import_module(module)
                except BaseException as error:  # noqa: BLE001 - the student's import problem: that file's tests run live
                    failed = _describe_exception(error, self.submission_dir)["message"]
                end_if_threads_left()
            if failed is not None:
                self._stub(module, contract.get(module, ()))
                self._send({"op": "imported", "module": module, "failed": failed})
                continue
            for name in contract.get(module, ()):
                if callable(getattr(loaded, name, None)):
                    self.functions[name] = getattr(loaded, name)
            self._send({"op": "imported", "module": module})
        self._watch()

    def _stub(self, module: str, names: list[str]) -> None:
        """Stand in for a file that could not be imported, as the live run's stand-ins do: the
        later files import its functions, poisoned (a nested call of one is for the grader to
        answer in a rerun; its own tests run live)."""
        stub = types.ModuleType(module)
        stub.__file__ = os.path.join(self.submission_dir, f"{module}.py")  # watched like the others
        for name in names:

            def not_imported(*args, **kwargs):
                raise ImportError(f"{module}.py could not be imported")

            not_imported.__name__ = not_imported.__qualname__ = name
            setattr(stub, name, not_imported)
            self.functions[name] = not_imported
            self.poisoned.add(name)
        sys.modules[module] = stub

    def _watch(self) -> None:
        """Point every name of the submission's modules that holds a contract function at a
        watcher of it, so that its nested calls are seen however it was imported."""
        watchers = {id(function): self._watcher(name, function) for name, function in self.functions.items()}
        for module in list(sys.modules.values()):
            source = getattr(module, "__file__", None) or ""
            if not source.startswith(self.submission_dir):
                continue
            namespace = vars(module)
            for key, value in list(namespace.items()):
                if id(value) in watchers:
                    namespace[key] = watchers[id(value)]

    def _watcher(self, name: str, function):
        program = self

        def watched(*args, **kwargs):
            if name in program.poisoned and program.depth > 1:
                raise RuntimeError(f"{name} was not run again")  # at any depth: it crashes or hangs
            if program.depth != 1 or name == program.top:
                # Not a call a stand-in would have answered: the top call itself, a recursion,
                # or a call inside a nested one (whose result is checked as a whole).
                if name == program.top and program.depth == 1:
                    return function(*args, **kwargs)
                program.depth += 1
                try:
                    return function(*args, **kwargs)
                finally:
                    program.depth -= 1
            return program._nested_call(name, function, args, kwargs)

        watched.__name__ = watched.__qualname__ = name
        watched.__doc__ = getattr(function, "__doc__", None)
        watched.__wrapped__ = function
        return watched

    def _nested_call(self, name: str, function, args, kwargs):
        """A depth-1 call of another contract function: run the student's where a stand-in would
        run the reference (returning a fresh plain copy, as a stand-in does), and write it down
        unless the grader has accepted that very call (arguments and value) before."""
        if name not in self.allowed.get(self.top, ()):
            self.unverified = f"{self.top} called {name}, which a stand-in would not have served"
        if self.answers or name in self.poisoned or name in self.not_nested:
            arguments = self._arguments(name, args, kwargs)
            answer = self.answers.get((name, arguments), _NO_ANSWER)
            if answer is not _NO_ANSWER:
                return wire.copy_plain(answer)  # what the stand-in would have given, fresh each time
            if name in self.poisoned or name in self.not_nested:
                # The grader answers it in a rerun either way (as a stand-in does): a function that
                # fails, or is slow, is not run hundreds of times more for the callers' sake.
                self._write_down(name, args, kwargs, failed="not run: it failed before")
                raise RuntimeError(f"{name} was not run again")
        # The callee gets the caller's own arrays, not copies (a copy each costs more than most
        # calls): one that changes them in place changes the caller's result, which then differs.
        self.depth += 1
        self._mark(name)
        started = time.perf_counter()
        try:
            result = function(*args, **kwargs)
        except BaseException as error:
            # The stand-in would have answered: the grader may give that answer back (a rerun).
            self._write_down(name, args, kwargs, failed=f"raised {type(error).__name__}")
            self.not_nested.add(name)
            raise
        finally:
            self.depth -= 1
            self._mark(self.top)
            self.nested_seconds[name] = self.nested_seconds.get(name, 0.0) + time.perf_counter() - started
            if self.nested_seconds[name] > NESTED_SECONDS:
                self.not_nested.add(name)
        try:
            # Arguments as the callee left them: what is written down, and what the grader judges.
            key = known_key(name, args, kwargs, result)
            fresh_result = wire.copy_plain(result)
        except wire.WireError as error:
            self._arguments(name, args, kwargs)  # raises when the arguments are what cannot cross
            self._write_down(name, args, kwargs, failed=f"returned {error}")
            self.not_nested.add(name)
            raise TypeError(f"{name} returned {error}") from None
        if key not in self.known:
            self._write_down(name, args, kwargs, value=fresh_result)
        return fresh_result

    def _arguments(self, name: str, args, kwargs) -> str:
        """The digest of a nested call's arguments (what the grader's answers are filed under);
        a TypeError, as a stand-in's, when they cannot cross the wire."""
        try:
            return wire.fingerprint((args, kwargs))
        except wire.WireError as error:
            self.unverified = f"{self.top} gave {name} {error}"
            raise TypeError(f"{name}() was given {error}, which the grader cannot pass on") from None

    def _write_down(self, name: str, args, kwargs, *, value=None, failed: str | None = None) -> None:
        """Add a nested call to those the grader checks: the caller's arguments as they are now,
        and the callee's result (or how it failed: never the reference's answer)."""
        if self.unverified is not None:
            return
        if len(self.nested) >= MAX_NESTED_SENT or len(self.nested_buffers) >= MAX_NESTED_BUFFERS:
            self.unverified = f"{self.top} made more new nested calls than the grader checks"
            return
        entry = {"function": name, "args": wire.encode((args, kwargs), self.nested_buffers)}
        if failed is None:
            entry["value"] = wire.encode(value, self.nested_buffers)
        else:
            entry["failed"] = failed
        self.nested.append(entry)

    # ------------------------------------------------------------ calls

    def run(self, call: Call) -> tuple[dict, list]:
        """Run one recorded call: its result, with the nested calls the grader must check, as a
        header and the arrays it refers to."""
        started = time.perf_counter()
        function, args, kwargs, return_inputs, _test = call
        target = self.functions.get(function)
        self.top, self.depth, self.nested, self.nested_buffers, self.unverified = function, 1, [], [], None
        self._mark(function)
        try:
            if target is None:
                raise AttributeError(f"the submission has no function {function}()")
            if function in self.poisoned:
                raise RuntimeError(f"{function} was not run again")
            try:
                result = target(*args, **kwargs)
            finally:
                end_if_threads_left()  # marked as this call's: the grader poisons it
            value = (result, args, kwargs) if return_inputs else result
            kept = len(self.nested_buffers)
            try:
                # The value's tree as JSON text, not as JSON: the grader compares the text with
                # the reference's answer as it is, and parses it only when they differ. (Parsing
                # a thousand small trees per submission was the grader's largest single cost.)
                header = {"op": "result", "value_json": wire.dumps_text(wire.encode(value, self.nested_buffers))}
            except wire.WireError as error:
                del self.nested_buffers[kept:]
                header = {"op": "bad_return", "message": f"{function} returned {error}"}
        except BaseException as error:  # noqa: BLE001 - reported, never re-raised: that test runs live
            header = {"op": "raised", "type": type(error).__name__}
        finally:
            self.depth, self.top = 0, None
        # Only what is not the default (no nested call to check, nothing unverified): a header per
        # call, over a thousand per submission, each encoded here and decoded by the grader.
        if self.unverified is not None:
            header["unverified"] = self.unverified
        if self.nested:
            header["nested"] = self.nested
        if self.nested_buffers:
            header["buffers"] = len(self.nested_buffers)
        header["seconds"] = round(time.perf_counter() - started, 6)
        return header, self.nested_buffers

    def run_calls(self, calls: list[Call]) -> None:
        """Run ``calls`` in order, sending results in small groups."""
        results: list = []
        result_buffers: list = []
        pending_bytes = 0
        oldest = 0.0
        self._output.sync()
        dead: set = set()  # tests a call of which raised (or returned what cannot be sent) on its own: the live run grades them
        out = None  # how far the output had come at the last result sent: "out" is sent when it moves
        for index, call in enumerate(calls):
            self._mark_index(index)
            test = call[4]
            if test in dead:
                header, arrays = {"op": "skipped", "seconds": 0.0}, []
            else:
                header, arrays = self.run(call)
                if header["op"] in ("raised", "bad_return") and "nested" not in header:
                    dead.add(test)
            positions = self._output.positions()
            if positions != out:
                header["out"] = out = positions
            results.append(header)
            result_buffers.extend(arrays)
            for array in arrays:
                pending_bytes += array.nbytes
            oldest = oldest or time.perf_counter()
            if len(results) >= FLUSH_RESULTS or len(result_buffers) >= FLUSH_BUFFERS or pending_bytes >= FLUSH_BYTES or time.perf_counter() - oldest > FLUSH_SECONDS or index == len(calls) - 1:
                skip = self._output.check()
                if skip is not False:
                    # Output no call can be told to have made: every test of these calls runs
                    # live, and the grader reads past it ("skip") before the next call's.
                    for result in results:
                        result["out"] = None
                    results[-1]["skip"] = out = skip
                self._send({"op": "results", "results": results}, result_buffers)
                results, result_buffers, pending_bytes, oldest = [], [], 0, 0.0

    def serve(self) -> None:
        header, _ = wire.receive(self.channel)
        if header.get("op") != "start":
            return
        self.start(header)
        while True:
            try:
                header, buffers = wire.receive(self.channel)
            except wire.PeerClosed:
                return
            op = header.get("op")
            if op == "run":
                self.run_calls(self.segments[header["segment"]])
            elif op == "rerun":
                for answer in header["answers"]:
                    self.answers[(answer["function"], answer["args"])] = wire.decode(answer["value"], buffers)
                self.run_calls([self.segments[segment][index] for segment, index in header["calls"]])
            else:
                return


class _Output:
    """How far each call's output had come in the files behind stdout and stderr (positions the
    grader reads up to, to give each test what it printed).

    Asking the files is two system calls, a few microseconds per call here. So the positions are
    counted by the streams themselves (``BoundedText.position``: all of ``print`` and of Python's
    warnings and tracebacks), and the files are asked once per message. When the two disagree,
    something wrote past the streams (``os.write``, C code): that message's calls cannot be told
    apart, and from then on every call asks the files."""

    def __init__(self):
        streams = (sys.stdout, sys.stderr)
        self.streams = streams if all(isinstance(s, BoundedText) for s in streams) else None

    def positions(self) -> list[int] | None:
        if self.streams is None:
            return _output_positions()
        return [self.streams[0].position, self.streams[1].position]

    def sync(self) -> None:
        """Start counting from where the files are now."""
        if self.streams is not None:
            real = _output_positions()
            if real is None:
                self.streams = None
            else:
                self.streams[0].position, self.streams[1].position = real

    def check(self) -> list[int] | None | bool:
        """False when the counts were right; else where the files are (None: unknown)."""
        if self.streams is None:
            return False
        real = _output_positions()
        if real == self.positions():
            return False
        self.streams = None
        return real


def _output_positions() -> list[int] | None:
    """How far stdout and stderr (files the grader reads) have been written."""
    try:
        return [os.lseek(1, 0, os.SEEK_CUR), os.lseek(2, 0, os.SEEK_CUR)]
    except OSError:
        return None
