"""The untrusted side: one worker process serves calls to the functions of a submission file that
lean on the same stand-ins (often one function; every function of a file with no declared
same-file dependency).

Runs in a process forked by the fork server, after its limits are set. It
imports the student's file with stand-ins in place of the files before it
(docs/contract.md: what a file imports is the reference version, so a bug costs
points once) and in place of the function's declared same-file dependencies
(for its direct calls only), then answers ``call`` messages until told to
stop. Stand-ins hold no reference code: each call crosses back to the trusted
grader, which checks that the function under test may use it and computes the
reference result there (the same call again is answered from the answer it sent:
``StandinAnswers``).

Nothing here is trusted by the grader: the student's code can patch any of it.
"""

from __future__ import annotations

import builtins
import importlib
import io
import os
import sys
import time
import traceback
import types
from _thread import _count as _threads_running

from attnlab import wire
from attnlab.sandbox.inside.import_rule import ImportRule, not_available
from attnlab.sandbox.inside.unreadable import unreadable_line

# Exceptions the trusted side may report back from a reference call, re-raised by name.
_REPLAYABLE = {
    name: getattr(builtins, name) for name in ("ValueError", "TypeError", "IndexError", "KeyError", "ZeroDivisionError")
}
_MAX_MESSAGE_CHARS = 2000
# The status a worker ends with when the student's code left a thread running: Python cannot
# stop a thread, and one that runs on takes the CPU from every later call (a softmax whose
# threads printed forever held its program for the whole 60 s budget).
LEFT_A_THREAD = 86


def end_if_threads_left() -> None:
    """End this worker (``LEFT_A_THREAD``) when a thread the student's code started is still
    running, after giving one that is finishing a tenth of a second."""
    if not _threads_running():
        return
    deadline = time.monotonic() + 0.1
    while _threads_running() and time.monotonic() < deadline:
        time.sleep(0.005)
    if _threads_running():
        os._exit(LEFT_A_THREAD)


class BoundedText(io.TextIOBase):
    """A text stream that keeps the first ``limit`` characters and counts the rest.

    Installed as ``sys.stdout``/``sys.stderr`` so that a student printing 50 MB
    costs little; the file descriptors behind it are capped by RLIMIT_FSIZE too.
    """

    def __init__(self, fd: int, limit: int):
        self._fd, self._room = fd, limit

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if self._room > 0:
            kept = text[: self._room]
            self._room -= len(kept)
            if self._room == 0:
                kept += "\n[... output cut here: the grader keeps the first part only]\n"
            try:
                os.write(self._fd, kept.encode("utf-8", "replace"))
            except OSError:  # the capture file is full (RLIMIT_FSIZE): drop the rest quietly
                self._room = 0
        return len(text)


def _student_frames(error: BaseException, submission_dir: str) -> list[str]:
    """The traceback frames that point into the student's own files, as 'file:line in function: code'."""
    frames = []
    for frame in traceback.StackSummary.extract(traceback.walk_tb(error.__traceback__), lookup_lines=False):
        if frame.filename.startswith(submission_dir):
            try:
                code = (frame.line or "").strip()
            except Exception:  # noqa: BLE001 - a line that cannot be read must not hide the student's error
                code = ""
            frames.append(f"{os.path.basename(frame.filename)}:{frame.lineno} in {frame.name}: {code}")
    return frames[-8:]


COURSE_LIBRARIES: tuple[str, ...] = ("numpy",)
"""What the course lets student code import besides the standard library (``use_libraries``)."""
FILE_LIBRARIES: dict[str, tuple[str, ...]] = {}
"""Per course file, the libraries it may import (``use_libraries``; a file not named here gets
``COURSE_LIBRARIES``): the rule ``import_rule`` applies, the same as ``attnlab check``'s."""


def use_libraries(course: tuple[str, ...], per_file: dict[str, tuple[str, ...]]) -> None:
    """The fork server, once at its start: what the course, and each of its files, may import."""
    global COURSE_LIBRARIES, FILE_LIBRARIES
    COURSE_LIBRARIES, FILE_LIBRARIES = course, per_file


def _not_available(error: ModuleNotFoundError, module: str) -> str | None:
    """For an import of a library the sandbox does not have: the message that says so, in the
    rule's words (None: the missing module is a part of a library it has)."""
    top = (error.name or "").partition(".")[0]
    if not top or top in sys.modules:
        return None
    if str(error).startswith(f"`{top}` is not available"):
        return str(error)  # the rule's own refusal
    return not_available(top, f"{module}.py", FILE_LIBRARIES.get(module, COURSE_LIBRARIES))


def install_import_rule(submission_dir: str) -> None:
    """From now on, the files of ``submission_dir`` import what the course's rule gives each."""
    ImportRule(submission_dir, FILE_LIBRARIES, COURSE_LIBRARIES, tuple(FILE_LIBRARIES)).install()


def _describe_exception(error: BaseException, submission_dir: str, module: str = "") -> dict:
    if isinstance(error, SystemExit):
        message = f"called sys.exit({error.code!r})"
    elif isinstance(error, ModuleNotFoundError) and _not_available(error, module):
        message = _not_available(error, module)
    elif isinstance(error, SyntaxError) and str(error.filename).startswith(submission_dir):
        message = unreadable_line(error)  # the line attnlab check gives
    else:
        message = str(error)
    return {
        "type": type(error).__name__,
        "message": message[:_MAX_MESSAGE_CHARS],
        "frames": _student_frames(error, submission_dir),
        "not_implemented": isinstance(error, NotImplementedError),
        # torch's allocator reports the memory limit as a RuntimeError of its own.
        "memory": isinstance(error, MemoryError)
        or (isinstance(error, RuntimeError) and "DefaultCPUAllocator: can't allocate memory" in message),
    }


def own_code(function) -> frozenset:
    """The code objects written inside ``function``: its own and those of the functions and
    lambdas defined in its body (a closure that calls a dependency is the function calling it)."""
    found, stack = set(), [getattr(function, "__code__", None)]
    while stack:
        code = stack.pop()
        if isinstance(code, types.CodeType) and code not in found:
            found.add(code)
            stack.extend(const for const in code.co_consts if isinstance(const, types.CodeType))
    return frozenset(found)


def _for_direct_calls(name: str, standin, own, caller_code: frozenset):
    """``name`` as the function under test (whose code is ``caller_code``) sees it: the reference
    ``standin`` for its direct calls, the student's ``own`` for every other caller."""

    def dependency(*args, **kwargs):
        if sys._getframe(1).f_code in caller_code:
            return standin(*args, **kwargs)
        if own is None:
            raise NameError(f"name {name!r} is not defined")
        return own(*args, **kwargs)

    dependency.__name__ = dependency.__qualname__ = name
    return dependency


class BoundedAnswers:
    """Answers by key, bounded in bytes (``size_of`` an answer): each kept while it fits, never
    replaced; once full, new answers are not kept. The grader's cache of the reference's answers
    (``standins.AnswerCache``) and a worker's of the grader's (``StandinAnswers``) are both this."""

    def __init__(self, max_bytes: int, max_entry_bytes: int, size_of=len):
        self.max_bytes, self.max_entry_bytes, self._size_of = max_bytes, max_entry_bytes, size_of
        self.bytes = 0
        self._kept: dict = {}

    def get(self, key):
        return self._kept.get(key)

    def add(self, key, answer) -> None:
        size = self._size_of(answer)
        if size <= self.max_entry_bytes and self.bytes + size <= self.max_bytes and key not in self._kept:
            self._kept[key] = answer
            self.bytes += size

    def __len__(self) -> int:
        return len(self._kept)


def _reply_bytes(reply: tuple[dict, list]) -> int:
    """What a received reply (its header and buffers) holds, roughly: its data and a little for the rest."""
    _header, buffers = reply
    return sum(memoryview(data).nbytes for data in buffers) + 64 * len(buffers) + 256


class StandinAnswers(BoundedAnswers):
    """The grader's answers to stand-in calls this worker made, by a digest of the call as sent:
    the same call again is answered from here, without a round trip. It gives the student's code
    nothing it was not given already (the reference is deterministic, and the answer came to this
    process), and its size is bounded, since it is held in the student's own memory. Refusals are
    not kept: whether a call is refused depends on the graded call it is made in."""

    MAX_BYTES = 4 << 20
    MAX_ENTRY_BYTES = 256 << 10

    def __init__(self):
        super().__init__(self.MAX_BYTES, self.MAX_ENTRY_BYTES, _reply_bytes)


class Worker:
    """Serves the calls of some functions of one submission file over one channel.

    A worker is asked only functions that may use every stand-in it has (the same declared
    dependencies), so the reference answers its stand-ins give can never be returned as the
    answer to a graded call of a function that could not have asked them itself.
    """

    def __init__(
        self,
        channel,
        submission_dir: str,
        module: str,
        serves: list[str],
        standins: dict[str, list[str]],
        remember: bool = True,
    ):
        self.channel = channel
        self.answers = StandinAnswers() if remember else None
        """The grader's answers to this worker's stand-in calls, asked again (None: a memory-measured
        worker's, whose memory is the student's)."""
        self.submission_dir = submission_dir
        self.module_name = module
        self.serves = frozenset(serves)
        """The functions this worker may be asked."""
        self.standins = {(mod, name): self._standin(mod, name) for mod, names in standins.items() for name in names}
        self.module: types.ModuleType | None = None

    def _send(self, header: dict, value=None) -> None:
        buffers: list = []
        if value is not None:
            header["value"] = wire.encode(value, buffers)
        wire.send(self.channel, header, buffers)

    def _standin(self, module: str, name: str):
        """A function that looks like the reference ``module.name`` and asks the grader to run it."""

        def standin(*args, **kwargs):
            buffers: list = []
            try:
                payload = wire.encode((args, kwargs), buffers)
            except wire.WireError as error:
                raise TypeError(f"{name}() was given {error}, which the grader cannot pass on") from None
            framed = wire.frame({"op": "callback", "module": module, "function": name, "args": payload}, buffers)
            key = None
            if self.answers is not None:
                key = wire.digest_framed(framed)
                kept = self.answers.get(key)
                if kept is not None:
                    return wire.decode(kept[0]["value"], kept[1])  # fresh arrays, as from the grader
            wire.send_framed(self.channel, framed)
            header, reply_buffers = wire.receive(self.channel)
            if header.get("op") == "callback_result":
                value = wire.decode(header["value"], reply_buffers)
                if key is not None:
                    self.answers.add(key, (header, reply_buffers))
                return value
            raise _REPLAYABLE.get(header.get("type"), RuntimeError)(header.get("message", "the reference call failed"))

        standin.__name__ = standin.__qualname__ = name
        standin.__module__ = module
        standin.__doc__ = f"The reference {module}.{name}, computed by the grader."
        return standin

    def install_standins(self) -> None:
        """Earlier files become modules of stand-ins, before the student's file imports them."""
        by_module: dict[str, types.ModuleType] = {}
        for (module, name), standin in self.standins.items():
            if module == self.module_name:
                continue  # declared same-file dependencies are swapped in after the import
            stand_module = by_module.setdefault(
                module, types.ModuleType(module, f"Reference {module} (served by the grader)")
            )
            setattr(stand_module, name, standin)
        sys.modules.update(by_module)

    def _install_dependencies(self, targets) -> None:
        """Point the functions' declared same-file dependencies at the reference, for their own
        direct calls only: a call from anywhere else (a helper, or the dependency calling back)
        runs the student's code, so a cycle of functions answers nothing for free."""
        targets = [t for t in targets if callable(t) and not isinstance(t, type)]
        if not targets:
            return
        namespace = vars(self.module)
        code = frozenset().union(*(own_code(target) for target in targets))
        for (module, name), standin in self.standins.items():
            if module != self.module_name:
                continue
            namespace[name] = _for_direct_calls(name, standin, namespace.get(name), code)

    def import_submission(self) -> bool:
        path = os.path.join(self.submission_dir, f"{self.module_name}.py")
        if not os.path.isfile(path):
            self._send(
                {
                    "op": "import_failed",
                    "type": "FileNotFoundError",
                    "message": f"the submission has no {self.module_name}.py",
                    "frames": [],
                }
            )
            return False
        sys.path.insert(0, self.submission_dir)
        install_import_rule(self.submission_dir)
        try:
            self.module = importlib.import_module(self.module_name)
        except BaseException as error:  # noqa: BLE001 - sys.exit and worse at import are the student's to lose
            end_if_threads_left()
            self._send({"op": "import_failed", **_describe_exception(error, self.submission_dir, self.module_name)})
            return False
        end_if_threads_left()
        self._install_dependencies([getattr(self.module, name, None) for name in sorted(self.serves)])
        self._send({"op": "ready"})
        return True

    def call(self, function: str, args, kwargs, return_inputs: bool = False) -> bool:
        """Run one call and send its result; False when it raised or returned something unsendable."""
        target = self.target(function)
        if not callable(target):
            self._send(
                {
                    "op": "raised",
                    "type": "AttributeError",
                    "message": f"{self.module_name}.py has no function {function}()",
                    "frames": [],
                    "not_implemented": False,
                    "memory": False,
                }
            )
            return False
        if isinstance(target, type):  # a module class: built and called as the request says
            from attnlab.sandbox.inside.module_harness import as_called

            target = as_called(target)
        error = None
        try:
            result = target(*args, **kwargs)
        except BaseException as raised:  # noqa: BLE001 - whatever the student raises is reported, never re-raised
            error = raised
        end_if_threads_left()  # before the reply: the crash is this call's
        if error is not None:
            self._send({"op": "raised", **_describe_exception(error, self.submission_dir, self.module_name)})
            return False
        try:
            # With return_inputs the grader also sees the arguments as the call left them.
            self._send({"op": "result"}, value=(result, args, kwargs) if return_inputs else result)
        except wire.WireError as error:
            self._send({"op": "bad_return", "message": f"{function} returned {error}"})
            return False
        return True

    def target(self, function: str):
        """What a call of ``function`` runs: the student's function (None: there is none, or this
        worker may not be asked it)."""
        return getattr(self.module, function, None) if function in self.serves else None

    def serve(self) -> None:
        self.install_standins()
        if not self.import_submission():
            return
        while True:
            try:
                header, buffers = wire.receive(self.channel)
            except wire.PeerClosed:
                return
            op = header.get("op")
            if op == "call":
                args, kwargs = wire.decode(header["args"], buffers)
                self.call(header["function"], args, kwargs, bool(header.get("return_inputs")))
            else:
                return
