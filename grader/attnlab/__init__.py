"""attnlab: a course on self-attention that grades itself.

The engine is topic-free: everything about attention lives in the course's ``solutions/``,
``exercises/`` and ``quizzes/`` folders. Its packages, by reader:

- a student's: ``check`` (``attnlab check``: the public tests) and ``quiz`` (the quizzes);
- one submission's: ``grading`` (the hidden tests, each first asked the reference's recorded
  calls: the one procedure of every path) and ``sandbox`` (where the student's code runs;
  ``sandbox/inside/`` is exactly what runs untrusted);
- a class's: ``classroom`` (grading in parallel, each submission as alone; the gradebook) and
  ``report`` (what an instructor reads);
- ``intake``: what comes in: the class's submissions found, matched to the names meant and read
  without trusting them, and the class list an instructor downloads from an LMS;
- ``export``: everything that leaves the instructor's machine: the stubs, the student release,
  Gradescope's zip, an nbgrader course, grade sheets for an LMS (``export/sheets/``) and question
  banks (``export/quiz/``);
- ``audit``: the hidden suite's mutation score; ``similarity``: pairs of students whose code is
  alike (a signal for a person, never a grade).

Beneath them, the base modules: ``course`` (a course on disk), ``reference`` (the reference
solutions), ``points``, ``expect`` (checks for hidden tests, with ``differences`` to say how two
arrays differ), ``misconceptions`` (the catalogue: the API its files declare entries with),
``scaffold`` (a new exercise's files), ``outcomes`` and ``results`` (how a test ends, what grading
produces), ``answer_room`` (how much of an answer the grader takes in), ``wire`` (values
between the grader and its workers), ``lifecycle`` (a run's processes and scratch folders end
with it), ``pytest_runs``, ``atomic``, ``console``, ``inert`` (student text made harmless where
it is shown), ``wording`` (counts and articles in messages), ``options`` (the ``--course``
option) and ``errors``. ``cli`` is the ``attnlab`` command over all of it. The base modules import no package but ``sandbox.inside`` (which imports
only ``wire``), and a package imports only the packages below it (the order is in
``tests/test_layout.py``).
"""

__version__ = "0.1.0"
