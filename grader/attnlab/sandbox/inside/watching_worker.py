"""The untrusted side of a class's fast path: a worker that runs the student's own code throughout.

A ``WatchingWorker`` serves the functions of one file the grader groups
together (none given another's answer as an input), holds no stand-ins and is
sent nothing from the reference: the files before its own are the student's
(imported as modules of their contract functions only, as a live run's
stand-in modules are), and so are the declared dependencies. Every call a live run would have answered with the reference (a
function of an earlier file, from anywhere; a declared dependency, called
directly by the function under test) is watched: its arguments and result are
written down, and the reply to the graded call names each by a digest of both.
The grader checks those against the reference, and asks (``evidence``) for the
values behind the digests it does not know. Nothing here is trusted.
"""

from __future__ import annotations

import importlib.util
import io
import mmap
import os
import struct
import sys
import types

from attnlab import wire
from attnlab.sandbox.inside.worker import Worker, own_code


class _NotMirrored(Exception):
    """A call a live run would answer with the reference that the student's own code cannot make
    (the function is missing, or its file would not import): the grader runs this test live."""


# The marker the grader reads when a call timed out or crashed: whether any watched call was
# entered during the call, and which (its place among the watched names, plus one) is running.
MARKER = struct.Struct("<BI")


class _Watch:
    """The watched calls made during the call being served, in the order they returned."""

    def __init__(self, marker: mmap.mmap | None, places: dict[str, int]):
        self.depth = 0
        self.calls: list[tuple[str, tuple, dict, object, str]] = []
        """(function, args, kwargs, result, how): how is "returned", "raised" or "missing"."""
        self.marker, self.places = marker, places
        self.caller: frozenset = frozenset()
        """The code of the function being asked now (``own_code``), and the dependencies it declared."""
        self.caller_depends: frozenset = frozenset()

    def reset(self) -> None:
        self.calls = []
        if self.marker is not None:
            MARKER.pack_into(self.marker, 0, 0, 0)

    def watched(self, name: str, own, same_file: bool = False):
        """``name`` as a live run's stand-in would stand: ``own`` (the student's function) run and
        written down when called outside any other watched call, and (a function of the same file,
        ``same_file``) only when called directly by the function being asked, which declared it."""

        def watcher(*args, **kwargs):
            if self.depth or (same_file and (name not in self.caller_depends or sys._getframe(1).f_code not in self.caller)):
                if own is None:
                    raise NameError(f"name {name!r} is not defined")
                return own(*args, **kwargs)
            if own is None:
                self.calls.append((name, args, kwargs, None, "missing"))
                raise _NotMirrored(name)
            self.depth += 1
            if self.marker is not None:
                MARKER.pack_into(self.marker, 0, 1, self.places[name])
            try:
                result = own(*args, **kwargs)
            except BaseException:
                self.calls.append((name, args, kwargs, None, "raised"))
                raise
            finally:
                self.depth -= 1
                if self.marker is not None:
                    MARKER.pack_into(self.marker, 0, 1, 0)
            self.calls.append((name, args, kwargs, result, "returned"))
            return result

        watcher.__name__ = watcher.__qualname__ = name
        return watcher


class WatchingWorker(Worker):
    """Serves one function with the student's own code for everything, watching what a live run
    would have stood in for."""

    def __init__(self, channel, submission_dir: str, module: str, functions: list[str], standins: dict[str, list[str]], depends: dict[str, list[str]], marker_fd: int, poisoned: list[str]):
        super().__init__(channel, submission_dir, module, functions[0], {})
        self.serves = set(functions)
        self._codes: dict[str, frozenset] = {}
        self.depends = {name: frozenset(depends.get(name, ())) for name in functions}
        self.watched_names = standins
        self.poisoned = set(poisoned)
        """Functions whose own code timed out or crashed earlier: treated as missing."""
        places = {name: place + 1 for place, name in enumerate(n for names in standins.values() for n in names)}
        self.watch = _Watch(mmap.mmap(marker_fd, MARKER.size), places)
        os.close(marker_fd)
        self.by_call: dict[int, list] = {}
        """The watched calls of each call of the current message, by its place, for ``evidence``."""
        self._index = 0

    def install_standins(self) -> None:
        """The earlier files, the student's own, as modules of watched contract functions."""
        for module, names in self.watched_names.items():
            if module == self.module_name:
                continue
            own = self._load_own(module)
            stand = types.ModuleType(module, f"The student's {module}, watched")
            for name in names:
                function = getattr(own, name, None) if own is not None and name not in self.poisoned else None
                setattr(stand, name, self.watch.watched(name, function))
            sys.modules[module] = stand

    def _load_own(self, module: str) -> types.ModuleType | None:
        """The student's ``module``.py, imported under a name of its own with its output dropped (a
        live run never imports it here); None when it is missing or does not import."""
        path = os.path.join(self.submission_dir, f"{module}.py")
        if not os.path.isfile(path):
            return None
        saved = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = io.StringIO()
        try:
            spec = importlib.util.spec_from_file_location(f"_attnlab_own_{module}", path)
            loaded = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(loaded)
            return loaded
        except BaseException:  # noqa: BLE001 - a live run would not import it: its callers' tests go live
            return None
        finally:
            sys.stdout, sys.stderr = saved

    def _install_dependencies(self, target) -> None:
        namespace = vars(self.module)
        for name in self.watched_names.get(self.module_name, ()):
            namespace[name] = self.watch.watched(name, None if name in self.poisoned else namespace.get(name), same_file=True)

    def call(self, function: str, args, kwargs, return_inputs: bool = False) -> bool:
        if function not in self._codes:
            self._codes[function] = own_code(getattr(self.module, function, None))
        self.watch.caller = self._codes[function]
        self.watch.caller_depends = self.depends.get(function, frozenset())
        return super().call(function, args, kwargs, return_inputs)

    def start_call(self, index: int) -> None:
        if index == 0:
            self.by_call = {}
        self._index = index
        self.watch.reset()

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
        if header.get("op") != "evidence":
            return False
        values = []
        for index, position in header.get("want", []):
            name, args, kwargs, result, _how = self.by_call[index][position]
            values.append([(args, kwargs), result])
        self._send({"op": "evidence"}, value=values)
        return True

