"""PatientPheX (CHIP 2026 task 1): the organisers' scoring rules, cross-validation and the
ablation; its JSONL is the format :mod:`phenorules.formats.patientphex`."""
