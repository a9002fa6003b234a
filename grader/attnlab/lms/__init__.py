"""Grades into the LMS a school runs: its roster in, its gradebook import format out.

``roster`` reads the class list an instructor downloads (CSV: id, name, email, section) and
matches it to the ids grading knows (a folder's name, a Gradescope SID or email, an answers
file's student). ``grades`` writes one score per student in the columns Canvas's and Moodle's
gradebook imports read, or a plain CSV. ``commands`` writes the sheet for ``attnlab grade`` and
``attnlab quiz grade`` (whose options are ``options.LMS_OPTIONS``).
"""
