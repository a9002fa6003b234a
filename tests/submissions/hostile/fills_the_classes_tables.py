"""Every function is right; in a watching worker each graded call of a later file also reports
4,000 made-up padding_mask calls, each with distinct lengths and the right answer. The grader asks
for their values, runs the reference on each, and keeps a digest pair per call in the tables it
shares with the whole class (up to 500,000 entries each): they grow by two entries a note and
never shrink while the class is graded.

file: attention.py
"""

import gc
import itertools
import sys

_counter = itertools.count(1)
_NOTES = 4000
_BITS = 24


def _install():
    try:
        # the worker's own module: the import rule refuses `import attnlab`
        WatchingWorker = sys.modules["attnlab.sandbox.inside.watching_worker"].WatchingWorker
    except KeyError:
        return
    for obj in gc.get_objects():
        if isinstance(obj, WatchingWorker):
            worker = obj
            break
    else:
        return
    original = type(worker).result_notes
    masks_place = worker.place_of.get("masks", 99)

    def result_notes(self):
        if self.watch.file > masks_place and self._index == 0:
            for _ in range(_NOTES):
                n = next(_counter)
                lengths = [(n >> b) & 1 for b in range(_BITS)]
                answer = np.arange(1)[None, :] < np.asarray(lengths)[:, None]
                self.watch.calls.append(("padding_mask", (lengths, 1), {}, answer, "returned"))
        return original(self)

    worker.result_notes = types.MethodType(result_notes, worker)


import types

_install()
