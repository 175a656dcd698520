"""Assertions on phenotype mentions after ConText (Harkema et al. 2009, J Biomed Inform
42:839): negated, uncertain, hypothetical, historical, of a relative. The rows and the cue
matcher live here; the stage that applies them is :mod:`phenorules.stages.assertion`."""
