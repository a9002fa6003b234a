"""Lets the public tests import your files by plain name (``from softmax import softmax``).

They test the files in this folder, or the folder named by $ATTNLAB_SUBMISSION
(which is how ``attnlab check FOLDER`` points them elsewhere).
"""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(os.environ.get("ATTNLAB_SUBMISSION") or Path(__file__).parent).resolve()))
