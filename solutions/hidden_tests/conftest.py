"""Hidden tests share their input strategies through ``attention_inputs``, next to this file."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
