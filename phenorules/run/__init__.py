"""Running the pipeline over a corpus: in chunks, in this process, on forked workers or on a
Dask cluster, with a progress bar."""
