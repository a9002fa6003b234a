"""scores.py never finishes importing.

file: scores.py
"""

while True:
    pass
