"""``phenorules serve``, the command: its options, and the engine its server loads."""

from __future__ import annotations

import click

from ..core.errors import InputError, PhenorulesError
from ..options import DISABLE_OPTION, ENABLE_OPTION, HPO_OPTION, PROFILE_OPTION, QUIET_OPTION, SET_OPTION, PipelineSettings


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (anything but localhost is reachable from other machines; there is no authentication).")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="Port (0: any free one).")
@click.option("--jnlpba-train", "jnlpba_train", metavar="DIR", envvar="PHENORULES_JNLPBA_TRAIN", default=None, help="JNLPBA brat training folder: the chat API then answers evalscope's JNLPBA prompt (env PHENORULES_JNLPBA_TRAIN).")
@click.option("--max-request-bytes", type=click.IntRange(min=1), default=None, metavar="N", help="Largest request body accepted (default 10 MiB).")
@click.option("--request-timeout", "request_seconds", type=click.FloatRange(min=0, min_open=True), default=None, metavar="SECONDS", help="Time budget of a request, waiting for the pipeline included; past it the work stops and the answer is 503 (default 60).")
@click.option("--body-timeout", "body_seconds", type=click.FloatRange(min=0, min_open=True), default=None, metavar="SECONDS", help="Time for a request body to arrive; past it the answer is 408 (default 30).")
@click.option("--allow-host", "allow_hosts", multiple=True, metavar="HOST[:PORT]", help="Also answer requests addressed to this Host (repeatable; '*' any). By default only localhost, 127.0.0.1, [::1] and --host, with the port.")
@click.option("--allow-origin", "allow_origins", multiple=True, metavar="URL", help="Also answer browser requests from pages of this origin, e.g. http://localhost:3000 (repeatable; '*' any). By default only the server's own pages.")
@click.option("--header-timeout", "header_seconds", type=click.FloatRange(min=0, min_open=True), default=None, metavar="SECONDS", help="Time for a request's line and headers to arrive on a connection; past it the connection is closed (default 5).")
@click.option("--max-connections", type=click.IntRange(min=1), default=None, metavar="N", help="Connections open at once; one more closes the one idle or waiting longest for its headers (default 512, or half of ulimit -n if that is lower).")
@HPO_OPTION
@DISABLE_OPTION
@ENABLE_OPTION
@SET_OPTION
@PROFILE_OPTION
@QUIET_OPTION
def serve(
    host: str, port: int, jnlpba_train: str | None, max_request_bytes: int | None, request_seconds: float | None, body_seconds: float | None,
    allow_hosts: tuple[str, ...], allow_origins: tuple[str, ...], header_seconds: float | None, max_connections: int | None, hpo: str | None,
    disable: tuple[str, ...], enable: tuple[str, ...], stage_settings: tuple[str, ...], profile: str, quiet: bool,
) -> None:
    """Serve the curation page, /annotate and an OpenAI-compatible chat API (docs/serve.md).
    The server answers /health as soon as it listens and loads the pipeline meanwhile."""
    try:
        from . import MAX_REQUEST_BYTES, REQUEST_SECONDS
        from .connections import HEADER_SECONDS, ConnectionLimits, default_max_connections, open_file_limit
        from .guard import BODY_SECONDS, served_policy
        from .server import serve as run
    except ImportError as error:
        raise PhenorulesError(f"phenorules serve needs the serve extra ({error.name} is missing): pip install 'phenorules[serve]'") from None
    from ..core.source_date import source_date

    source_date()  # the Phenopackets export's metaData.created: a bad SOURCE_DATE_EPOCH is refused at start

    def engine():
        """The engine, built by the server's loading thread: a bad setting fails there too."""
        from ..formats.inputs import format_profile
        from ..formats.text import TEXT
        from .engine import Engine

        settings = PipelineSettings.from_options(hpo, disable, enable, stage_settings, profile)
        nlp = settings.build(format_profile(TEXT.name, settings.profile))
        tagger = None
        if jnlpba_train:
            from ..tasks.jnlpba.model import load_model, make_tagger

            tagger = make_tagger(load_model(jnlpba_train))
        return Engine(nlp, tagger)

    def policy(bound_port: int):
        limits = {"max_request_bytes": max_request_bytes or MAX_REQUEST_BYTES, "body_seconds": body_seconds or BODY_SECONDS}
        return served_policy(host, bound_port, allow_hosts, allow_origins, **limits)

    files = open_file_limit()
    if max_connections is not None and files is not None and max_connections >= files:
        raise InputError(f"--max-connections {max_connections}: not below the limit of open files, {files} (ulimit -n)")
    limits = ConnectionLimits(header_seconds or HEADER_SECONDS, max_connections or default_max_connections())
    run(engine, host, port, policy, request_seconds or REQUEST_SECONDS, limits, quiet)
