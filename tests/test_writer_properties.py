"""Properties of the output writer over generated directories of files, symlinks and hard
links: whatever the layout, no input changes, an output is refused exactly when it (or its
``.partial``) is an input or another output by resolved path or device and inode, and an
accepted output holds what was written, with nothing left beside it."""

import os
import tempfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from phenorules.core.errors import InputError
from phenorules.core.outputs import OutputFiles
from phenorules.core.partial import PartialOutput

NAMES = ("a", "b", "c", "a.partial", "b.partial", "c.partial")


@st.composite
def layouts(draw):
    """(name, kind, target) per name: absent, a file, a symlink to an earlier name (which
    may be absent: a dangling link) or a hard link to an earlier file."""
    layout = []
    for i, name in enumerate(NAMES):
        files = [n for n, kind, _ in layout if kind == "file"]
        kinds = ["absent", "file"] + (["symlink"] if i else []) + (["hardlink"] if files else [])
        kind = draw(st.sampled_from(kinds))
        target = None
        if kind == "symlink":
            target = draw(st.sampled_from(NAMES[:i]))
        elif kind == "hardlink":
            target = draw(st.sampled_from(files))
        layout.append((name, kind, target))
    return layout


def build(root, layout):
    for name, kind, target in layout:
        path = os.path.join(root, name)
        if kind == "file":
            with open(path, "w") as handle:
                handle.write(f"{name} was here\n")
        elif kind == "symlink":
            os.symlink(target, path)
        elif kind == "hardlink":
            os.link(os.path.join(root, target), path)


def identity(path):
    """What the writer compares: the resolved path, and the file's device and inode."""
    try:
        info = os.stat(path)
        inode = (info.st_dev, info.st_ino)
    except FileNotFoundError:
        inode = None
    return os.path.realpath(path), inode


class Taken:
    """The test's own model of the files a command holds."""

    def __init__(self):
        self.paths, self.inodes = set(), set()

    def add(self, path):
        real, inode = identity(path)
        self.paths.add(real)
        if inode:
            self.inodes.add(inode)

    def holds(self, path):
        real, inode = identity(path)
        return real in self.paths or inode in self.inodes


def partial_is_foreign(partial):
    """A .partial that is a symlink (or not a file): the line writer must not take it over."""
    return os.path.lexists(partial) and (os.path.islink(partial) or not os.path.isfile(partial))


@settings(deadline=None, suppress_health_check=list(HealthCheck), max_examples=max(60, settings.default.max_examples))
@given(
    layout=layouts(),
    inputs=st.lists(st.sampled_from(NAMES), max_size=3, unique=True),
    outputs=st.lists(st.tuples(st.sampled_from(NAMES), st.sampled_from(["file", "lines"])), min_size=1, max_size=3),
)
def test_outputs_never_touch_inputs_and_are_refused_exactly_on_a_shared_file(layout, inputs, outputs):
    with tempfile.TemporaryDirectory() as root:
        build(root, layout)
        inputs = [os.path.join(root, name) for name in inputs if os.path.isfile(os.path.join(root, name))]
        before = {path: open(path, "rb").read() for path in inputs}
        files = OutputFiles(inputs)
        taken = Taken()
        for path in inputs:
            taken.add(path)
        for number, (name, kind) in enumerate(outputs):
            path = os.path.join(root, name)
            partial = os.path.realpath(path) + ".partial"
            what = f"output {number}"
            own = Taken()
            own.add(path)
            conflict = taken.holds(path) or (kind == "lines" and (taken.holds(partial) or own.holds(partial) or partial_is_foreign(partial)))
            claimed = [identity(path)] + ([identity(partial)] if kind == "lines" else [])  # as the command found them
            text = f"line {number}\n"
            try:
                if kind == "file":
                    files.write(path, [text], what)
                else:
                    lines = PartialOutput(files, path, what)
                    lines.resumable(False)
                    lines.start(0)
                    lines.write(str(number), text)
                    lines.finish()
            except InputError:
                assert conflict, f"{name} ({kind}) refused without a shared file"
                break  # a command stops at its first refusal
            assert not conflict, f"{name} ({kind}) written over a file the command holds"
            with open(path) as handle:
                assert handle.read() == text
            taken.add(path)  # the file written, and the files found there when it was claimed
            for real, inode in claimed:
                taken.paths.add(real)
                taken.inodes.update([inode] if inode else [])
            assert kind == "file" or not os.path.lexists(partial)
        for path, data in before.items():
            with open(path, "rb") as handle:
                assert handle.read() == data, f"input {path} changed"
        assert not [entry for entry in os.listdir(root) if entry.endswith(".tmp")]


@settings(deadline=None, suppress_health_check=list(HealthCheck))
@given(names=st.lists(st.text(alphabet="Pp1/ _-.", min_size=1, max_size=4), min_size=2, max_size=6, unique=True))
def test_names_that_map_to_one_file_are_refused_naming_both(names):
    """Phenopacket-style file names (unsafe characters replaced): a second id that gives
    the same file is refused, naming both, and the first file keeps its content."""
    from phenorules.formats.phenopackets import phenopacket_file_name

    with tempfile.TemporaryDirectory() as root:
        files = OutputFiles()
        written = {}
        for name in names:
            path = os.path.join(root, phenopacket_file_name(name))
            try:
                files.write(path, [name], f"packet {name!r}")
            except InputError as error:
                first = written[path]
                assert f"the packet {name!r} and the packet {first!r} would be written to the same file" in str(error)
                continue
            assert path not in written
            written[path] = name
        for path, name in written.items():
            with open(path) as handle:
                assert handle.read() == name
