"""Code similarity: pairs of students whose exercise files are alike beyond the stubs' own text.

A signal for a person to look at, never a grade. ``reading`` reads a class folder as
``attnlab grade`` does (``intake``: plain folders, zips, notebooks, nbgrader's and Gradescope's
layouts) into each student's exercise files as text; ``fingerprints`` turns a file into
copydetect's fingerprints (its tokens with names, strings and comments filtered out, so a
renamed copy keeps its fingerprints) and subtracts what is no evidence: the released stubs' own
text and passages common to many students; ``scoring`` compares the students file by file and
keeps the pairs that share enough code of their own; ``terminal`` and ``html_report`` show
them (the HTML with the matching passages side by side); ``command`` is ``attnlab similarity``.
"""
