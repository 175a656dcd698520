"""Honest held-out numbers: article folds, cross-validation with learning, ablations."""
