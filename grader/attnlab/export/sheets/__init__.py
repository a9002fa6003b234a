"""Grade sheets: one score per student, in the format an LMS's gradebook import reads.

``grades`` writes the columns Canvas's and Moodle's gradebook imports read, or a plain CSV,
matched to the class list (``intake.class_list``). ``options`` declares ``--roster``,
``--format`` and ``--column``; ``commands`` writes the sheet for ``attnlab grade`` and
``attnlab quiz grade``.
"""
