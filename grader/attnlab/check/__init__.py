"""``attnlab check``: the public tests on a student's own code, on the student's own machine.

``run`` runs the public tests (``exercises/tests/``) in this process, unsandboxed (it is the
student's code on the student's machine), and summarises them per function, naming a known
mistake where the instructor's catalogue is at hand. ``deadline`` fails a public test that runs
too long, in ``attnlab check`` and in plain ``pytest exercises`` (through the course's
``conftest.py``). ``course_imports`` holds the student's files to the libraries the course offers,
as the grader's sandbox does. ``probe_book`` holds the catalogue's probes as data the public tests
carry. ``command`` is ``attnlab check`` itself. ``public_tests.ini`` is pytest's settings for them.
"""
