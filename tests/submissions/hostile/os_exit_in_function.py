"""causal_mask ends the whole process with os._exit.

file: masks.py
"""

import os


def causal_mask(n):
    os._exit(3)
