"""The core: the article, the result and the mention the engine hands out, the spaCy Doc of an
article, errors, and the files it reads and writes. It knows no task, format or stage."""
