"""One submission graded live: the hidden tests run here, the student's code in sandboxed workers.

``suite`` grades a submission: it finds the hidden test files, runs them with pytest and
collects a ``GradeReport``. ``plugin`` is the pytest plugin it runs them with: the ``student``
and ``reference`` fixtures, each test's points, and how each test ended, with its feedback.
``student`` is what the ``student`` fixture is: the submission's functions, each call sent to a
backend and recorded for the misconception catalogue. ``backends`` reaches the functions: in
sandboxed workers (``SandboxBackend``, see ``attnlab.sandbox``) or in this process
(``InProcessBackend``, never for code you do not trust). ``hidden_tests.ini`` is pytest's
settings for hidden tests.
"""
