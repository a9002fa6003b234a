"""What leaves the instructor's machine: the student release, Gradescope's zip, an nbgrader course.

``stubs`` turns the reference solutions into the student stubs that each export starts from.
``release`` writes the bundle students get, and scans it for answers before it is kept.
``gradescope`` writes Gradescope's autograder zip, and is what runs inside it. ``nbgrader``
writes an nbgrader course, one notebook per exercise file; ``notebook`` is what runs in those
notebooks' kernels (imports between the notebooks, and the autograded cells' hidden tests).
"""
