"""Question banks: a quiz with its answers, for an LMS's own quiz engine.

``moodle`` writes Moodle XML (a category of variants per question) and ``qti`` a QTI 1.2 zip
for Canvas (a question group per question); ``lms_text`` is what the two share (numbers at the
question's precision, HTML, shape spellings); ``commands`` is ``attnlab quiz export``.
"""
