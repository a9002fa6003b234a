"""The reference's recorded run of the hidden suite, and asking a submission for it again.

With hypothesis derandomised, a hidden test is a deterministic function of what the student's
code returns. The suite is run once against the reference and every call of a student function
written down with its answer (``recording``; ``script`` is that record as plain data), kept per
exercise file for the next grading (``kept``). Grading then asks each test's recorded calls of
the submission before running the test's body (``replaying``): through the very backend the body
calls, one call at a time, so the submission's processes meet exactly what the test's own run
would send them, and an answer counts only as the reference's (``compare``: far tighter than any
test's tolerance). Every way of grading does this the same way (``grading.suite.grade``).
"""
