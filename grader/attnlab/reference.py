"""The reference solutions, imported in the grader's process, never in a worker.

Hidden tests compute expected values with them, and workers' stand-ins for
earlier files are answered with them. They are imported by plain module name
(``softmax``, ``attention``) with ``solutions/`` on the path, exactly as the
files import each other. When grading, student code never runs in this process;
``attnlab check`` and a notebook's kernel (which run the student's own code
unsandboxed) import them beside the student's modules, under ``reference_names``.
"""

from __future__ import annotations

import contextlib
import importlib
import sys

from threadpoolctl import threadpool_limits

from attnlab.course import Course, CourseError


@contextlib.contextmanager
def one_blas_thread():
    """While inside, BLAS computes on one thread in this process, as in every worker
    (``OPENBLAS_NUM_THREADS=1``): another split of a product among threads can change its last
    bits, and a student whose code is the reference's then answers otherwise than its recording."""
    with threadpool_limits(limits=1, user_api="blas"):
        yield


class Reference:
    """Attribute access to every reference function: ``reference.softmax(x)``."""

    def __init__(self, course: Course):
        if not course.solutions_dir.is_dir():
            raise CourseError(f"{course.solutions_dir} is missing: grading needs the reference solutions")
        self.course = course
        path = str(course.solutions_dir)
        if path not in sys.path:
            sys.path.insert(0, path)
        self._functions = {}

    def _get(self, name: str):
        # Each file is imported when first used: grading the numpy files never imports torch.
        if name not in self._functions:
            try:
                module = self.course.function(name).module
            except KeyError:
                raise AttributeError(f"the course has no function {name!r}") from None
            loaded = importlib.import_module(module)
            for each in self.course.functions_in(module):
                self._functions[each] = getattr(loaded, each)
        return self._functions[name]

    def preload(self, names) -> None:
        """Import the files of these functions now (while plain module names mean the reference)."""
        for name in names:
            self._get(name)

    def __getattr__(self, name: str):
        if name.startswith("_") or "course" not in self.__dict__:
            raise AttributeError(name)
        return self._get(name)

    def answer(self, module: str, function: str, args: tuple, kwargs: dict, allowed: set[tuple[str, str]]):
        """Run a reference function for a worker's stand-in, if this call may use it."""
        if (module, function) not in allowed:
            raise PermissionError(f"{module}.{function} is not available to this function")
        return self._get(function)(*args, **kwargs)

    def allowed_for(self, function: str) -> set[tuple[str, str]]:
        """The reference functions a call to the student's ``function`` may use: everything in
        earlier files, and its declared same-file dependencies (``Course.standins_for``)."""
        return {(m, f) for m, names in self.course.standins_for(function).items() for f in names}


@contextlib.contextmanager
def reference_names(course: Course):
    """For a moment, let the plain module names (``softmax``) mean the reference files.

    The student's modules hold those names in this process. A reference module binds what it
    imports when it is imported, so once the student's modules are put back it keeps using
    the reference versions.
    """
    saved_modules = {m: sys.modules.pop(m) for m in course.modules if m in sys.modules}
    saved_path = list(sys.path)
    sys.path.insert(0, str(course.solutions_dir))
    try:
        yield
    finally:
        for module in course.modules:
            sys.modules.pop(module, None)
        sys.modules.update(saved_modules)
        sys.path[:] = saved_path
