"""Shared-task adapters: file formats and official scoring, kept apart from the recogniser."""
