"""JNLPBA 2004 bio-entity recognition (PROTEIN, DNA, RNA, CELL_LINE, CELL_TYPE) with the
phenotype engine: a lexicon learned from the training annotations, the same Aho-Corasick
matcher, and head-word, shape and boundary rules kept as data under ``rules/jnlpba/``."""

# The five GENIA types in evalscope's spelling; the XML tag of each is its lower case.
TYPES = ("PROTEIN", "DNA", "RNA", "CELL_LINE", "CELL_TYPE")
