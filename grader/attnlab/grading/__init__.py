"""One submission graded: the hidden tests run here, the student's code in sandboxed workers.

``suite`` grades a submission, the one procedure for every way of grading (alone, in a class, a
shard, Gradescope): each hidden test in the suite's order is first asked the reference's recorded
calls (``replay``: the recording, kept per file, and the replaying), and its body runs where they
did not pass it. ``hidden_suite`` finds the hidden test files and runs one pytest session over
them with ``plugin``: the ``student`` and ``reference`` fixtures, each test's points, and how each
test ended, with its feedback. ``student`` is what the ``student`` fixture is: the submission's
functions, each call sent to a backend and recorded for the misconception catalogue.
``backends`` reaches the functions: in sandboxed workers (``SandboxBackend``, see
``attnlab.sandbox``) or in this process (``InProcessBackend``, never for code you do not trust).
``hidden_tests.ini`` is pytest's settings for hidden tests.
"""
