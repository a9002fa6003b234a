"""What leaves the instructor's machine: the student release, Gradescope's zip, an nbgrader course.

``stubs`` turns the reference solutions into the student stubs that each export starts from.
``release`` writes the bundle students get, and scans it for answers (and for course files that
cite a file it has not got: ``citations``) before it is kept.
``gradescope`` writes Gradescope's autograder zip, and is what runs inside it. ``nbgrader``
writes an nbgrader course, one notebook per exercise file, with the public tests as cells
(``public_tests``); ``notebook`` is what runs in nbgrader's kernel (the autograded cells' hidden
tests); ``notebook_imports`` is not imported by the engine but copied beside the notebooks, so
that they import each other with nothing but Python.
"""
