"""Lets the public tests import your files by plain name (``from softmax import softmax``).

They test the files in this folder, or the folder named by $ATTNLAB_SUBMISSION
(which is how ``attnlab check FOLDER`` points them elsewhere). A test that runs past
5 seconds fails, with the line your code was on, as in ``attnlab check``: a loop that
never ends does not hang ``pytest exercises``, not even one at the top of a file (it runs when the
file is imported).
"""

import os
import sys
from pathlib import Path

FOLDER = Path(os.environ.get("ATTNLAB_SUBMISSION") or Path(__file__).parent).resolve()
sys.path.insert(0, str(FOLDER))


def pytest_configure(config):
    try:
        from attnlab.check.deadline import register_unless_present
    except ImportError:  # pytest without attnlab: the tests run as they are
        return
    register_unless_present(config, 5.0, FOLDER)
