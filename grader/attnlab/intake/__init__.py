"""Intake: who is in the class, and what each student handed in, read without trusting it.

``roster`` is a class's submissions as entries (a student, a file or folder, the ids grading
knows) and the errors of a submission; ``class_folder`` finds those entries in a class's folder
(one folder or zip per student, nbgrader's layout, a Gradescope export), with ``lms_downloads``
for Canvas's and Moodle's downloads (a student's loose files or folder, by the LMS's id);
``uploads`` reads what a student uploaded (files, zips, notebooks) within bounds, with
``misnamed`` matching a misnamed file to the one meant and ``solution_code`` sorting a notebook's
solution code from its plots and prints; ``walk`` is how a student's folder is walked (breadth
first, within bounds, no link followed), by ``uploads`` and ``class_folder`` alike. ``class_list`` reads the class list an
instructor downloads from an LMS (CSV: id, name, email, section, the LMS's own ids) and matches
it to the ids grading knows.
"""
