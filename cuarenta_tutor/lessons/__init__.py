"""Provides the lessons: loading and validating lesson files (loader.py) and their positions (position.py),
feedback on a move (feedback.py), and the learner's progress (progress.py)."""

from .feedback import SEARCH_SAMPLES, SEARCH_SEEDS, analysis_doubts, feedback, search_choices
from .loader import TRACKS, Lesson, LessonError, last_rules_lesson, load_lesson, load_lessons, seat_lines
from .position import Position
from .progress import Progress, load_progress, mark_solved, progress_path, save_progress

__all__ = ["SEARCH_SAMPLES", "SEARCH_SEEDS", "analysis_doubts", "feedback", "search_choices", "TRACKS", "Lesson",
           "LessonError", "Position", "last_rules_lesson", "load_lesson", "load_lessons", "seat_lines", "Progress",
           "load_progress", "mark_solved", "progress_path", "save_progress"]
