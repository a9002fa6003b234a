"""softmax.py ends its worker with os._exit(0) while it is imported: to the grader it looks as a
sandbox that failed used to look ("the worker exited with status 0"), but the student's code ran,
so it is the student's: graded and saved, that file at 0, never a grader failure that skips them.

file: softmax.py
"""

import os

os._exit(0)
