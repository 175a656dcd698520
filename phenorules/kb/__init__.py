"""The knowledge base: the ontology, the lexicon and its variants, the automaton, the word-set
index, the learner, and the cache they are kept in."""
