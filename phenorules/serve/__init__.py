"""``phenorules serve``: the curation page and the HTTP APIs (``pip install 'phenorules[serve]'``).

:mod:`.server` runs uvicorn with the limits of :mod:`.connections` and :mod:`.loading`'s
answers while the app loads; :mod:`.engine` holds the loaded pipeline, :mod:`.app` the
Starlette application, :mod:`.chat` the OpenAI-compatible chat answerers,
:mod:`.curation` the curated export and :mod:`.terms` the ontology autocomplete; the page
is the template ``phenorules/templates/curation.html.j2`` with its script and style in ``static/``.
"""

# Cap on a request body: a long article as JSON is a few hundred kB.
MAX_REQUEST_BYTES = 10 * 1024 * 1024
REQUEST_SECONDS = 60.0  # a request's budget, waiting for the pipeline included
