"""PatientPheX (CHIP 2026 task 1): JSONL input/output and the organisers' scoring rules."""
