"""The misconception catalogue: known wrong versions of each exercise function.

Content, not engine, and instructor-only: it spells out wrong code next to its
correction, so it never ships to students. One module per exercise file; the
grader imports them and matches failing students' outputs against every entry.
"""
