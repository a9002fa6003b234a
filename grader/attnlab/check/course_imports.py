"""What the student's own files may import during ``attnlab check``: what the grader will let them.

The check runs on the student's Python, where scipy may well be installed; the grader's sandbox
shows only the standard library, numpy, a track's library and the course's ``packages``. So that
a file that will not import when graded does not pass here, ``CourseImports`` refuses, for an
import made by a file of the student's folder, any other library with the sandbox's own words.
Libraries import what they need as usual: only the student's files are held to the list.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

from attnlab.course import Course


def not_available(name: str, course: Course) -> str:
    """The message for an import of ``name``, which the course does not offer (the sandbox's words)."""
    return f"`{name}` is not available in this course (student code may import {', '.join(course.libraries)} and Python's standard library)"


class CourseImports:
    """A meta path finder that refuses the student's files any library the course does not offer."""

    def __init__(self, course: Course, folder: Path):
        self.course, self.folder = course, Path(folder).resolve()
        self.allowed = {*course.libraries, *course.modules, *sys.stdlib_module_names, *sys.builtin_module_names}

    def find_spec(self, fullname: str, path=None, target=None):
        if "." in fullname or fullname in self.allowed or (self.folder / f"{fullname}.py").is_file():
            return None
        if self._imported_by_student():
            raise ModuleNotFoundError(not_available(fullname, self.course), name=fullname)
        return None

    def _imported_by_student(self) -> bool:
        """Is the import statement being run in a file of the student's folder (the first frame
        outside the import system)?"""
        frame = sys._getframe(2)
        while frame is not None and frame.f_code.co_filename.startswith("<frozen importlib"):
            frame = frame.f_back
        if frame is None:
            return False
        filename = Path(frame.f_code.co_filename)
        return filename.is_absolute() and filename.resolve().parent == self.folder


@contextlib.contextmanager
def held_to_the_course(course: Course, folder: Path):
    """Within: the student's files in ``folder`` import only what the course offers."""
    finder = CourseImports(course, folder)
    sys.meta_path.insert(0, finder)
    try:
        yield finder
    finally:
        sys.meta_path.remove(finder)
