"""What an instructor reads: one submission in the terminal or as a page, and a class's summary.

``terminal`` renders a ``GradeReport`` as a table by function, then what failed and why.
``html`` renders it as one self-contained page (feedback and heatmaps, no scripts).
``class_summary`` shows a class's progress while it is graded, and its score distribution and
most failed tests at the end.
"""
