"""The exercise regions of the source: one source of truth for the handout and the grader.

  // BEGIN EXERCISE 03.2 <title>        what the student writes (a TODO in the handout)
  // HINT: <text>                       shown in the handout, one line each
  // SIZE: <text>                       how much code the reference needs
  ...reference code...
  // STUB: <code>                       becomes code in the handout (so that it compiles)
  // END EXERCISE

  // BEGIN LEFT OUT 02.3 <why>          reference code that would give an exercise away
  ...reference code...                  (replaced by its STUB lines in the handout)
  // STUB: <code>
  // END LEFT OUT

An exercise may have several regions (its parts); every line between the markers that is not
a HINT/SIZE/STUB comment is reference code.
"""
import os
import re

SOURCE_SUFFIXES = (".cu", ".cuh", ".cpp", ".hpp", ".h")
BEGIN = re.compile(r"^(\s*)// BEGIN (EXERCISE|LEFT OUT) (\d\d\.\d+) ?(.*)$")
END = re.compile(r"^\s*// END (EXERCISE|LEFT OUT)\s*$")
TAG = re.compile(r"^(\s*)// (HINT|SIZE|STUB): ?(.*)$")
PART = re.compile(r"\s*\(part \d+ of \d+[^)]*\)")


class Region:
    def __init__(self, path, kind, exercise, title, indent, first, last):
        self.path, self.kind, self.exercise, self.title = path, kind, exercise, title
        self.indent, self.first, self.last = indent, first, last  # line numbers of BEGIN and END (0-based)
        self.hints, self.size, self.stub, self.code = [], "", [], []

    @property
    def base_title(self):
        return PART.sub("", self.title).strip()


def parse_file(path, text):
    """The regions of one file; raises ValueError on a malformed region."""
    regions, cur = [], None
    for i, line in enumerate(text.split("\n")):
        b, e = BEGIN.match(line), END.match(line)
        if b:
            if cur:
                raise ValueError(f"{path}:{i + 1}: BEGIN inside the region opened at line {cur.first + 1}")
            cur = Region(path, "exercise" if b.group(2) == "EXERCISE" else "left_out", b.group(3), b.group(4).strip(),
                         b.group(1), i, None)
        elif e:
            if not cur:
                raise ValueError(f"{path}:{i + 1}: END without BEGIN")
            if (e.group(1) == "EXERCISE") != (cur.kind == "exercise"):
                raise ValueError(f"{path}:{i + 1}: END {e.group(1)} closes a region of another kind")
            cur.last = i
            regions.append(cur)
            cur = None
        elif cur:
            t = TAG.match(line)
            if t and t.group(2) == "HINT":
                cur.hints.append(t.group(3))
            elif t and t.group(2) == "SIZE":
                cur.size = t.group(3)
            elif t and t.group(2) == "STUB":
                cur.stub.append(t.group(1) + t.group(3))
            else:
                cur.code.append(line)
    if cur:
        raise ValueError(f"{path}:{cur.first + 1}: region without END")
    return regions


def source_files(root):
    """Relative paths of the source files under root (build folders and hidden folders left out)."""
    out = []
    for d, dirs, files in os.walk(root):
        rel = os.path.relpath(d, root)
        dirs[:] = sorted(x for x in dirs if not x.startswith(".") and not x.startswith("build") and x != "out"
                         and x != "__pycache__")
        for f in sorted(files):
            if f.endswith(SOURCE_SUFFIXES):
                out.append(os.path.normpath(os.path.join(rel, f)))
    return out


def all_regions(root):
    regions = []
    for rel in source_files(root):
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            regions += parse_file(rel, f.read())
    return regions


def replace_regions(text, regions, grade_command):
    """The file's text with every region replaced by its handout form."""
    lines = text.split("\n")
    out, pos = [], 0
    for r in sorted(regions, key=lambda r: r.first):
        out += lines[pos:r.first]
        ind = r.indent
        if r.kind == "exercise":
            size = f" ({r.size})" if r.size else ""
            out.append(f"{ind}// TODO(exercise {r.exercise}) {r.title}{size}")
            out += [f"{ind}// HINT: {h}" for h in r.hints]
            out.append(f"{ind}// Then: {grade_command} {r.exercise}")
        else:
            out.append(f"{ind}// Left out of the student handout: it would give away exercise {r.exercise}.")
        out += r.stub
        pos = r.last + 1
    out += lines[pos:]
    return "\n".join(out)


def exercise_titles(root):
    """{exercise: title} from the regions, or from the TODO lines of a handout."""
    titles = {}
    todo = re.compile(r"//\s*TODO\(exercise (\d\d\.\d+)\) (.*?)(?: \([^()]*\))?$")
    for rel in source_files(root):
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            for line in f:
                m = BEGIN.match(line.rstrip("\n"))
                if m and m.group(2) == "EXERCISE":
                    titles.setdefault(m.group(3), PART.sub("", m.group(4)).strip())
                    continue
                m = todo.search(line.rstrip("\n"))
                if m:
                    titles.setdefault(m.group(1), PART.sub("", m.group(2)).strip())
    return titles
