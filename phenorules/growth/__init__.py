"""Growth measures written as a centile, a standard-deviation score or a BMI value: the rows
of ``rules/growth.tsv`` (:mod:`.rules`) and the grammar that reads them in a text
(:mod:`.grammar`), for the ``growth`` stage (:mod:`phenorules.stages.growth`)."""
