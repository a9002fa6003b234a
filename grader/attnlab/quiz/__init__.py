"""Quizzes: YAML questions with per-student variants, a terminal runner, and instructor grading.

``arith`` evaluates arithmetic safely, ``schema`` loads and validates quiz
files, ``params`` draws a student's parameters, ``kinds`` parses and compares
answers, ``variant`` builds a student's questions with their keys,
``student_copy`` writes and reads the answer-free copy students get,
``runner`` is the interactive loop and ``marking`` grades answer files.
"""
