"""MedXpertQA (Zuo et al. 2025): phenotype profiles of clinical vignettes and a
knowledge baseline that answers from the HPO and its disease annotations."""
