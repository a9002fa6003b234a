"""A whole class: graded in parallel, resumable, kept in a gradebook.

``grading`` plans a class run (which submissions need grading) and grades them in forked
grading processes, each with its own sandbox, each submission as it is graded alone
(``session``: what the processes share, the recorded run among it).
``gradebook`` saves each student's result as a file the moment it is graded and rebuilds the
SQLite gradebook (and the CSV) from those files. ``jobs`` says how many submissions to grade at
once. ``feedback`` writes, from those files, each student's feedback to hand back and the
class's page. ``shards`` picks a shard's students (``--shard K/N``) and merges the shards'
results, and ``commands`` is ``attnlab feedback`` and ``attnlab gradebook``. The class folder itself is read by
``attnlab.intake.roster``.
"""
