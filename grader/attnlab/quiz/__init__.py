"""Quizzes: YAML questions with per-student variants, a terminal runner, and instructor grading.

``arith`` evaluates arithmetic (and authors' ``where:`` comparisons) safely
and within bounds, ``reading`` reads what a student types as numbers (and
arithmetic only where a question allows it), ``schema`` loads and validates
quiz files (with pools of equivalent items), ``params`` draws a student's
parameters under the question's ``where:`` (exam variants from the student's
id, apart from the practice variants), ``kinds`` is one object per answer kind
(a file each) that parses answers, holds the one rule of right and wrong, checks
an author's options and key and says what its questions are in an LMS,
``verdict`` is what a check says of an answer, ``variant`` builds a student's questions with their keys, ``rounding`` computes
the answer of a student who rounds as they go, ``student_copy`` writes and reads
the copies students get (an exam copy with nothing to check against, a practice
copy checked by scrypt hashes), ``items`` opens either source as questions
with a check, ``runner`` is the interactive loop, ``marking`` grades answers
files (a class's too), ``lint`` checks a quiz beyond its schema, ``errors`` is
the package's error and where a YAML error is, and ``commands`` is the CLI over
them. The exports for an LMS (Moodle XML, QTI) are in ``export/quiz/``.
"""
