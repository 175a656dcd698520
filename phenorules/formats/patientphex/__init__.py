"""PatientPheX JSONL (CHIP 2026 task 1), the task's articles and its submission lines as a
format of the registry: reading and checking the task's files (``io.py``), its records as
the core's :class:`~phenorules.core.article.Article` and back (``articles.py``), the
submission records of an :class:`~phenorules.core.annotated.AnnotatedArticle`
(``records.py``) and the format itself (``format.py``). The task's scorer,
cross-validation and ablation are :mod:`phenorules.tasks.patientphex`."""

PROFILE = "patientphex"  # the profile of rules/profiles.tsv that PatientPheX input gets: its annotators' conventions
FORMAT = "patientphex"  # its name in the registry (formerly "jsonl", still taken)
