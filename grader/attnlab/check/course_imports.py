"""What the student's own files may import during ``attnlab check``: what the grader will let them.

The check runs on the student's Python, where scipy (or torch) may well be installed; the grader
lets each file import only what the course's rule gives it (``Course.libraries_of``: numpy, the
course's ``packages`` and its own track's library). ``held_to_the_course`` applies that same rule,
``sandbox.inside.import_rule``, with its words, to the course's files in the student's folder, so
a file that will not import when graded does not pass here. Libraries import what they need as
usual: only the student's files are held to it.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from attnlab.course import Course
from attnlab.sandbox.inside.import_rule import ImportRule


@contextlib.contextmanager
def held_to_the_course(course: Course, folder: Path):
    """Within: the course's files in ``folder`` import only what the course's rule gives each."""
    libraries_of = {module: course.libraries_of(module) for module in course.modules}
    rule = ImportRule(str(folder), libraries_of, None, tuple(course.modules))
    rule.install()
    try:
        yield rule
    finally:
        rule.remove()
