"""What a student's file may import: one rule, one wording, for ``attnlab check`` and every sandbox mode.

A course file may import Python's standard library, numpy, the course's ``packages``, the
libraries its own track needs (``[course.needs]``: torch for the PyTorch track's file, no other)
and the course's files. Anything else is refused when the import statement runs in a student's
file, even a library that is installed or already imported (torch, in a fork server that served
the PyTorch track before): so a file imports the same in a student's check, with bubblewrap, as a
private user and on Gradescope. ``ImportRule`` holds the rule during a run; libraries' own
imports are never judged.
"""

from __future__ import annotations

import builtins
import importlib
import os
import sys


def not_available(library: str, filename: str, offered: tuple[str, ...]) -> str:
    """The one message for an import the rule refuses."""
    offered_text = ", ".join(offered)
    return (
        f"`{library}` is not available to {filename} in this course "
        f"({filename} may import {offered_text}, Python's standard library and the course's files)"
    )


class ImportRule:
    """Refuses, in the files of ``folder``, an import of a library the rule does not give that file.

    ``libraries_of`` maps a course file's module name to the libraries it may import; another file
    of the folder gets ``default``, or is not judged when ``default`` is None (a course's own
    ``conftest.py`` beside the exercises). ``modules`` (the course's files) may always be imported."""

    def __init__(
        self,
        folder: str,
        libraries_of: dict[str, tuple[str, ...]],
        default: tuple[str, ...] | None,
        modules: tuple[str, ...] = (),
    ):
        self.folder = os.path.realpath(folder)
        self.libraries_of = {k: tuple(v) for k, v in libraries_of.items()}
        self.default = None if default is None else tuple(default)
        self.always = {*sys.stdlib_module_names, *sys.builtin_module_names, *modules, "__future__"}
        self._original = None
        self._folders: dict[str, bool] = {}

    def refusal(self, name: str, importer_file: str | None) -> str | None:
        """The message refusing ``import name`` in the file ``importer_file`` (None: allowed)."""
        top = name.partition(".")[0]
        if not top or top in self.always or not importer_file:
            return None
        if not self._in_folder(importer_file):
            return None  # a library's own import, or the engine's
        if os.path.isfile(os.path.join(self.folder, f"{top}.py")):
            return None  # a file of the student's own folder
        module = os.path.splitext(os.path.basename(importer_file))[0]
        offered = self.libraries_of.get(module, self.default)
        return None if offered is None or top in offered else not_available(top, f"{module}.py", offered)

    def _in_folder(self, importer_file: str) -> bool:
        """Is ``importer_file`` a file of the folder? Remembered per path: every import statement
        asks, and resolving the path costs a system call per component."""
        known = self._folders.get(importer_file)
        if known is None:
            known = self._folders[importer_file] = os.path.dirname(os.path.realpath(importer_file)) == self.folder
        return known

    def _judge(self, name, importer_globals) -> None:
        if isinstance(importer_globals, dict):
            message = self.refusal(name, importer_globals.get("__file__"))
            if message is not None:
                raise ModuleNotFoundError(message, name=name.partition(".")[0])

    def _guarded_import(self, name, globals=None, locals=None, fromlist=(), level=0):
        # Every import statement calls this, cached module or not: a finder would never see
        # `import torch` once torch is in sys.modules.
        if level == 0:
            self._judge(name, globals if globals is not None else sys._getframe(1).f_globals)
        return self._original[0](name, globals, locals, fromlist, level)

    def _guarded_import_module(self, name, package=None):
        if not name.startswith("."):
            self._judge(name, sys._getframe(1).f_globals)
        return self._original[1](name, package)

    def install(self) -> None:
        if self._original is None:
            self._original = (builtins.__import__, importlib.import_module)
            builtins.__import__, importlib.import_module = self._guarded_import, self._guarded_import_module

    def remove(self) -> None:
        if self._original is not None:
            if builtins.__import__ == self._guarded_import:
                builtins.__import__ = self._original[0]
            if importlib.import_module == self._guarded_import_module:
                importlib.import_module = self._original[1]
        self._original = None
