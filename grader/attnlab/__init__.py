"""attnlab: a course on self-attention that grades itself.

The engine is topic-free: everything about attention lives in the course's ``solutions/``,
``exercises/`` and ``quizzes/`` folders. Its packages, by reader:

- a student's: ``check`` (``attnlab check``: the public tests) and ``quiz`` (the quizzes);
- one submission's: ``grading`` (the hidden tests, live) and ``sandbox`` (where the student's
  code runs; ``sandbox/inside/`` is exactly what runs untrusted);
- a class's: ``replay`` (the fast path), ``classroom`` (grading in parallel, the gradebook) and
  ``report`` (what an instructor reads);
- ``export``: the stubs, the student release, Gradescope's zip, an nbgrader course.

Beneath them, the base modules: ``course`` (a course on disk), ``reference`` (the reference
solutions), ``points``, ``expect`` (checks for hidden tests), ``misconceptions`` (the catalogue),
``outcomes`` and ``results`` (how a test ends, what grading produces), ``roster``,
``class_folder``, ``misnamed`` and ``uploads`` (students' submissions: found, matched to the
names meant, and read without trusting them), ``wire`` (values between the
grader and its workers), ``lifecycle`` (a run's processes and scratch folders end with it),
``pytest_runs``, ``atomic``, ``console``, ``inert`` (student text made harmless where it is
shown), ``wording`` (counts and articles in messages) and ``errors``. ``cli`` is the ``attnlab`` command over all of it. The base modules import
no package but ``sandbox.inside`` (which imports only ``wire``), and a package imports only the
packages below it (the order is in ``tests/test_layout.py``).
"""

__version__ = "0.1.0"
