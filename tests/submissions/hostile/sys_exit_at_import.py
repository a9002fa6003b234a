"""positions.py calls sys.exit while it is imported.

file: positions.py
"""

import sys

sys.exit(1)
