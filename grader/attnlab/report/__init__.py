"""What people read: one submission in the terminal, as a page or as Markdown, and a class's summary.

``terminal`` renders a ``GradeReport`` as a table by function, then what failed and why.
``html`` renders it as one self-contained page (feedback and heatmaps, no scripts).
``markdown`` renders it as Markdown for an LMS comment, the student's words in code blocks.
``class_figures`` adds up a class's stored results: the score distribution, the tests most
students answered wrong and why, and the files missing or not importable.
``class_summary`` shows a class's progress while it is graded, and those figures at the end.
``class_html`` shows them as one page, with a score chart and a link to each student's page.
"""
