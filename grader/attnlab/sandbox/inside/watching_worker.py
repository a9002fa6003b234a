"""The untrusted side of a class's fast path: a worker that runs the student's own code throughout.

One ``WatchingWorker`` serves the replay of a whole submission. It imports the
student's files in course order, each as a module of its own when the grader
first asks for it (after the tests of the files before it, as a live run
imports a file for its own tests), and in ``sys.modules`` puts, for every
file, a module of *watchers* of its contract functions: so a file that imports
the ones before it gets the student's own functions, watched. It holds no
stand-ins and is sent nothing from the reference.

While a function of file k is asked, a call is watched exactly where a live run
would have answered it with the reference: a function of a file before k,
called from anywhere outside another watched call; or a declared same-file
dependency, called directly by the function under test (``own_code``). Its
arguments and result are written down, and the reply to the graded call names
each by a digest of both. The grader checks those against the reference, and
asks (``evidence``) for the values behind the digests it does not know. Every
other call (a later file, a helper, a function called inside a watched call)
runs the student's code unwatched, as it would live. Nothing here is trusted.
"""

from __future__ import annotations

import importlib.util
import io
import mmap
import os
import struct
import sys
import time
import types

from attnlab import wire
from attnlab.sandbox.inside.worker import Worker, install_import_rule, own_code


class _NotMirrored(Exception):
    """A call a live run would answer with the reference that the student's own code cannot make
    (the function is missing, or its file would not import): the grader runs this test live."""


# The marker the grader reads when a call or an import timed out or crashed: what was running
# (WATCHED: a watched call, its place among the watched names plus one; IMPORTING: the import of
# a file, its place among the files plus one; 0 in the second field: the function's own code),
# and the place in its message of the call being served.
MARKER = struct.Struct("<BII")
WATCHED, IMPORTING = 1, 2
# A message's results go back together, at most this long after the first of them was ready: the
# grader then wakes once per message, not once per call. It gives a message one deadline, one
# call's, whole (none of what the worker says extends it), so holding results costs no call time.
FLUSH_SECONDS = 0.02


class _Watch:
    """The watched calls made during the call being served, in the order they returned."""

    def __init__(self, marker: mmap.mmap | None, places: dict[str, int]):
        self.depth = 0
        self.calls: list[tuple[str, tuple, dict, object, str]] = []
        """(function, args, kwargs, result, how): how is "returned", "raised" or "missing"."""
        self.marker, self.places = marker, places
        self.file = 0
        """The place in course order of the file of the function being asked now."""
        self.caller: frozenset = frozenset()
        """The code of the function being asked now (``own_code``), and the dependencies it declared."""
        self.caller_depends: frozenset = frozenset()
        self.importing = False
        """While a file is imported, the marker names the file and nothing else."""

    def reset(self, index: int = 0) -> None:
        self.calls = []
        self.index = index
        self.mark(0, 0)

    index = 0
    """The place in its message of the call being served."""

    def mark(self, what: int, place: int) -> None:
        if self.marker is not None and not self.importing:
            MARKER.pack_into(self.marker, 0, what, place, self.index)

    def watched(self, name: str, own, file: int):
        """``name`` of the file at place ``file`` as a live run would see it from the function
        being asked: a stand-in (``own`` run and written down) when that file comes before the
        asked function's, or when it is the same file and the asked function, which declared
        ``name``, calls it directly; the student's ``own`` otherwise."""

        def watcher(*args, **kwargs):
            if (
                self.depth
                or file > self.file
                or (
                    file == self.file
                    and (name not in self.caller_depends or sys._getframe(1).f_code not in self.caller)
                )
            ):
                if own is None:
                    raise NameError(f"name {name!r} is not defined")
                return own(*args, **kwargs)
            if own is None:
                self.calls.append((name, args, kwargs, None, "missing"))
                raise _NotMirrored(name)
            self.depth += 1
            self.mark(WATCHED, self.places[name])
            try:
                result = own(*args, **kwargs)
            except BaseException:
                self.calls.append((name, args, kwargs, None, "raised"))
                raise
            finally:
                self.depth -= 1
                self.mark(WATCHED, 0)
            self.calls.append((name, args, kwargs, result, "returned"))
            return result

        watcher.__name__ = watcher.__qualname__ = name
        return watcher


class WatchingWorker(Worker):
    """Serves a submission's functions, every file's, with the student's own code for
    everything, watching what a live run would have stood in for."""

    def __init__(
        self,
        channel,
        submission_dir: str,
        files: dict[str, list[str]],
        serves: list[str],
        depends: dict[str, list[str]],
        marker_fd: int,
        poisoned: list[str],
        skipped: list[str],
    ):
        """``files``: the contract functions of each file to import, in course order; ``serves``:
        the functions it may be asked; ``poisoned``: functions whose own code timed out or crashed
        earlier (treated as missing); ``skipped``: files whose import did (left unimported)."""
        super().__init__(channel, submission_dir, next(iter(files)), serves[0] if serves else "", {})
        self.files = files
        self.serves = set(serves)
        self.depends = {name: frozenset(names) for name, names in depends.items()}
        self.poisoned, self.skipped = set(poisoned), set(skipped)
        self.file_of = {name: module for module, names in files.items() for name in names}
        self.place_of = {module: place for place, module in enumerate(files, start=1)}
        places = {name: place for place, name in enumerate((n for names in files.values() for n in names), start=1)}
        self.watch = _Watch(mmap.mmap(marker_fd, MARKER.size), places)
        os.close(marker_fd)
        self.loaded: dict[str, types.ModuleType | None] = {}
        """Each file as the student wrote it (None: missing, skipped, or it did not import)."""
        self.originals: dict[str, object] = {}
        """The student's functions as their files defined them, before watchers replaced the
        declared dependencies in their namespaces."""
        self._codes: dict[int, tuple[object, frozenset]] = {}
        self._watchers: set[int] = set()
        """The watchers put in the student's namespaces (by id), told from the student's own rebinding."""
        self.by_call: dict[int, list] = {}
        """The watched calls of each call of the current message, by its place, for ``evidence``."""
        self._index = 0
        self._pending: list | None = None
        """Results of the current message not yet sent, while a message is served."""
        self._pending_since = 0.0

    def install_standins(self) -> None:
        """Every file a module of watchers, before any of the student's files is imported."""
        for module, names in self.files.items():
            stand = types.ModuleType(module, f"The student's {module}, watched")
            for name in names:
                setattr(stand, name, self.watch.watched(name, self._own(name), self.place_of[module]))
            sys.modules[module] = stand

    def _own(self, name: str):
        """The student's ``name`` as a call through its module would find it now (``current``)."""

        def own(*args, **kwargs):
            function = self.current(name)
            if function is None:
                raise _NotMirrored(name)
            return function(*args, **kwargs)

        return own

    def current(self, name: str):
        """What ``name`` is bound to in the student's module now, as a live worker looks it up on
        each call (the function as its file defined it where a watcher stands in its place);
        None when it is missing, its file is not imported, or its own code is not to be run."""
        module = self.loaded.get(self.file_of.get(name, ""))
        if module is None or name in self.poisoned:
            return None
        bound = vars(module).get(name)
        return self.originals.get(name) if id(bound) in self._watchers else bound

    def import_submission(self) -> bool:
        """Import nothing yet: a file is imported when the grader first asks for it (``load``),
        after the tests of the files before it, as a live run imports a file for its own tests."""
        sys.path.insert(0, self.submission_dir)
        install_import_rule(self.submission_dir)
        self._send({"op": "ready"})
        return True

    def load(self, through: int) -> None:
        """Import, in course order, every file up to the one at place ``through`` not imported yet,
        each as a module of its own whose output is dropped (a live run shows it); a file that
        does not import leaves its functions missing."""
        for module, place in self.place_of.items():
            if place <= through and module not in self.loaded:
                self.loaded[module] = None if module in self.skipped else self._load_own(module)
                if self.loaded[module] is not None:
                    self._keep_originals(module)
        self.watch.mark(0, 0)

    def _load_own(self, module: str) -> types.ModuleType | None:
        path = os.path.join(self.submission_dir, f"{module}.py")
        if not os.path.isfile(path):
            return None
        self.watch.file = self.place_of[module]
        self.watch.mark(IMPORTING, self.place_of[module])
        self.watch.importing = True
        saved = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = io.StringIO()
        try:
            spec = importlib.util.spec_from_file_location(module, path)
            loaded = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(loaded)
            return loaded
        except BaseException:  # noqa: BLE001 - a live run shows why: its tests go live
            return None
        finally:
            sys.stdout, sys.stderr = saved
            self.watch.calls = []
            self.watch.importing = False

    def _keep_originals(self, module: str) -> None:
        """Keep the file's functions, then point its declared same-file dependencies at watchers
        (the function under test's direct calls to them are what a live run answers)."""
        namespace = vars(self.loaded[module])
        for name in self.files[module]:
            if name in namespace:
                self.originals[name] = namespace[name]
        declared = {d for name in self.files[module] for d in self.depends.get(name, ())}
        for name in declared & set(self.files[module]):
            namespace[name] = self.watch.watched(name, self._own(name), self.place_of[module])
            self._watchers.add(id(namespace[name]))

    def target(self, function: str):
        """The student's function as its module binds it now; None when this worker may not be
        asked it, or its file did not import (the grader then asks a live worker, which says why)."""
        return self.current(function) if function in self.serves else None

    def call(self, function: str, args, kwargs, return_inputs: bool = False) -> bool:
        module = self.file_of.get(function)
        self.module_name = module or self.module_name
        self.watch.file = self.place_of.get(module, 0)
        target = self.current(function)
        if id(target) not in self._codes:
            self._codes[id(target)] = (target, own_code(target))  # the function kept: its id stays its own
        self.watch.caller = self._codes[id(target)][1]
        self.watch.caller_depends = self.depends.get(function, frozenset())
        return super().call(function, args, kwargs, return_inputs)

    def start_call(self, index: int) -> None:
        if index == 0:
            self.by_call = {}
        self._index = index
        self.watch.reset(index)

    def start_batch(self) -> None:
        self._pending = []

    def end_batch(self) -> None:
        self._flush()
        self._pending = None

    def _send(self, header: dict, value=None) -> None:
        if self._pending is None:
            return super()._send(header, value)
        buffers: list = []
        if value is not None:
            header["value"] = wire.encode(value, buffers)
        if not self._pending:
            self._pending_since = time.monotonic()
        self._pending.extend(wire.frame(header, buffers))
        if time.monotonic() - self._pending_since >= FLUSH_SECONDS:
            self._flush()

    def _flush(self) -> None:
        if self._pending:
            wire.send_framed(self.channel, self._pending)
            self._pending = []

    def result_notes(self) -> dict:
        """Each watched call as [function, digest of its arguments, digest of its result] (no
        digests for one that raised, was missing, or cannot be sent)."""
        self.by_call[self._index] = self.watch.calls
        notes = []
        for name, args, kwargs, result, how in self.watch.calls:
            if how != "returned":
                notes.append([name, None, how])
                continue
            try:
                notes.append([name, wire.fingerprint((args, kwargs)), wire.fingerprint(result)])
            except wire.WireError:
                notes.append([name, None, "unsendable"])
        return {"nested": notes}

    def other_request(self, header: dict) -> bool:
        if header.get("op") == "listening":
            return True  # the grader checked the line is open: nothing to answer
        if header.get("op") == "load":
            self.load(int(header.get("through", 0)))
            self._send({"op": "loaded"})
            return True
        if header.get("op") != "evidence":
            return False
        values = []
        for index, position in header.get("want", []):
            name, args, kwargs, result, _how = self.by_call[index][position]
            values.append([(args, kwargs), result])
        self._send({"op": "evidence"}, value=values)
        return True
