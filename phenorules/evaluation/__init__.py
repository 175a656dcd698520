"""Measures on text generated from the ontology (the phrasing suites); the PatientPheX
cross-validation and ablation are its task's (``tasks/patientphex``)."""
