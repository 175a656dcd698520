"""PatientPheX (CHIP 2026 task 1): JSONL input/output and the organisers' scoring rules."""

PROFILE = "patientphex"  # the profile of rules/profiles.tsv that PatientPheX input gets: its annotators' conventions
