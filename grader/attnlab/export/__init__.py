"""What leaves the instructor's machine: one home for every export.

Course exports: ``stubs`` turns the reference solutions into the student stubs that each export
starts from. ``release`` writes the bundle students get, and scans it for answers (and for course
files that cite a file it has not got: ``citations``) before it is kept. ``gradescope`` writes
Gradescope's autograder zip, and is what runs inside it. ``nbgrader`` writes an nbgrader course,
one notebook per exercise file, with the public tests as cells (``public_tests``); ``notebook`` is
what runs in nbgrader's kernel (the autograded cells' hidden tests); ``notebook_imports`` is not
imported by the engine but copied beside the notebooks, so that they import each other with
nothing but Python. ``probe_book`` writes the catalogue's probes as data beside the public tests.
``commands`` is ``attnlab export``, ``attnlab release`` and ``attnlab stubs``.

Grade sheets for an LMS's gradebook: ``sheets/`` (Canvas's, Moodle's or a plain CSV).
Question banks for an LMS's quiz engine: ``quiz/`` (Moodle XML, QTI 1.2 for Canvas).
Both sit lower in the layers than the course exports (``tests/test_layout.py``): the class and
the quiz grades write sheets, and the quiz commands export banks.
"""
