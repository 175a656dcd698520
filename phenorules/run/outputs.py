"""What ``predict`` writes: a file of a registered format (its output and the evidence of
``--explain``), and the Phenopackets of ``--phenopackets DIR``, each written from the
:class:`~phenorules.core.annotated.AnnotatedArticle` results a chunk at a time, in input
order.

A format with a :class:`~phenorules.formats.registry.Stream` is appended to its
``OUT.partial`` as the results come (:class:`~phenorules.core.partial.PartialOutput`),
which ``--resume`` takes up; a format that writes only whole files (a plugin's ``write``)
is held to the end. Every output is claimed on the command's
:class:`~phenorules.core.outputs.OutputFiles` before the work.
"""

from __future__ import annotations

from datetime import datetime

from ..core.annotated import AnnotatedArticle
from ..core.errors import InputError
from ..core.outputs import OutputFiles
from ..core.partial import PartialOutput
from ..formats import registry


class FormatFile:
    """A file of the format ``name`` at ``path``."""

    def __init__(self, files: OutputFiles, path: str, name: str):
        self.format = registry.get(name)
        self.path = path
        self._files = files
        self._held: list[AnnotatedArticle] = []
        if self.format.stream is None:
            files.claim(path, self.format.what)
            self.partial = None
        else:
            join = self.format.joined if self.format.stream.join is not None else None
            self.partial = PartialOutput(files, path, self.format.what, join)

    def resumable(self, resume: bool) -> int | None:
        """How many articles of a stopped run ``resume`` may keep (see
        :meth:`PartialOutput.resumable`)."""
        if self.partial is not None:
            return self.partial.resumable(resume)
        if resume:
            raise InputError(f"{self.path}: --resume: format {self.format.name} writes its file whole at the end; a stopped run left nothing of it")
        return 0

    def start(self, keep: int) -> list[str]:
        """Open, with the first ``keep`` articles of a stopped run; their ids."""
        return self.partial.start(keep) if self.partial is not None else []

    def check(self, results: list[AnnotatedArticle]) -> None:
        """Refuse, before any of them is written, an article the format cannot hold."""
        self.format.check_articles([result.article for result in results])

    def write(self, results: list[AnnotatedArticle]) -> None:
        if self.partial is None:
            self._held.extend(results)
            return
        for result in results:
            self.partial.write(result.article.id, self.format.part_of(result))
        self.partial.flush()

    def finish(self) -> None:
        if self.partial is not None:
            self.partial.finish()
            return
        output = self.format.write_results(self._held)
        self._files.write(self.path, [output], self.format.what, binary=isinstance(output, bytes))

    def abandon(self) -> None:
        if self.partial is not None:
            self.partial.abandon()

    def close(self) -> None:
        if self.partial is not None:
            self.partial.close()


class PhenopacketFiles:
    """One GA4GH Phenopacket per patient of each article, a file each in ``directory``
    (claimed by the command), written as the results come: a resumed run writes those of
    the articles it annotates. ``created`` is ``--created``."""

    def __init__(self, files: OutputFiles, directory: str, ontology, created: datetime | None, say=None):
        self.path = self.directory = directory
        self.ontology, self.created = ontology, created
        self.count = 0
        self._files = files
        self._say = say

    def resumable(self, resume: bool) -> int | None:
        return None  # any: an article's packets are written before its parts

    def start(self, keep: int) -> list[str]:
        return []

    def check(self, results: list[AnnotatedArticle]) -> None:
        pass

    def write(self, results: list[AnnotatedArticle]) -> None:
        from ..formats.phenopackets import write_phenopackets

        self.count += write_phenopackets(self.directory, results, self.ontology, self._files, self.created)

    def finish(self) -> None:
        if self._say is not None:
            self._say(f"wrote {self.count} Phenopackets into {self.directory}")

    def abandon(self) -> None:
        pass

    def close(self) -> None:
        pass
