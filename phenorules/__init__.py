"""phenorules: dictionary- and rule-based HPO phenotype recognition and patient attribution."""

__version__ = "0.1.0"
