"""Imports yaml, installed where the grader runs but offered by no course: its file cannot be imported.

file: scores.py
"""

import yaml  # noqa: F401
