#!/usr/bin/env python3
"""Check that every relative link in the repository's Markdown resolves.

    python3 scripts/check_links.py            # the repository this script lives in
    python3 scripts/check_links.py ROOT       # another checkout

Which files: every *.md that git tracks under ROOT; where git is missing or ROOT is not a git
checkout, every *.md under ROOT outside build*/ folders and hidden folders (.git, .deps, ...).

Which links: inline links and images, [text](target) and ![alt](target), and link reference
definitions, [label]: target. Links inside fenced code blocks, inline code spans and HTML
comments are not links and are left alone. A target with a scheme (http:, https:, mailto:, ...)
or starting with // is external and not checked. Every other target must name an existing file
or folder, relative to the Markdown file (or to ROOT when it starts with /). An anchor, in
file.md#anchor or a bare #anchor (the same file), must be one of the target file's heading
anchors under GitHub's rules: the heading's text, lowercased, with every character other than
letters, digits, '-', '_' and spaces removed and every space turned into '-'; a repeated
heading gets -1, -2, ... appended. <a name="..."> and <a id="..."> also define anchors. Anchors
into files that are not Markdown (source lines, for example) are not checked.

Output: one line per broken link, `path:line: target (why)`, paths relative to ROOT.
Exit status: 0 when every link resolves, 1 when one does not, 2 on a usage error.
Python 3 standard library only.
"""
import argparse
import html
import os
import re
import subprocess
import sys
import unicodedata
import urllib.parse

FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
ATX_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
SETEXT_UNDERLINE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
HTML_ANCHOR = re.compile(r"<a\s[^>]*\b(?:name|id)\s*=\s*[\"']([^\"']+)[\"']", re.IGNORECASE)
# The text of a link: brackets may nest one level deep ([a [b] c](t)).
LINK_TEXT = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(")
REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[([^\]]+)\]:[ \t]*(<[^>]*>|\S+)")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def markdown_files(root):
    """The *.md files to check, as paths relative to root (sorted)."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z", "--", "*.md"], capture_output=True, check=True)
        files = [f for f in out.stdout.decode("utf-8", "replace").split("\0") if f]
        files = sorted(f for f in files if os.path.isfile(os.path.join(root, f)))
        if files:
            return files
    except (OSError, subprocess.CalledProcessError):
        pass
    found = []  # no git, not a checkout, or nothing tracked yet
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not d.startswith("build"))
        for name in names:
            if name.endswith(".md"):
                found.append(os.path.relpath(os.path.join(folder, name), root))
    return sorted(found)


def mask(text, start, end):
    """text with [start, end) replaced by '\x00' (newlines kept, so line numbers stay)."""
    return text[:start] + "".join(c if c == "\n" else "\x00" for c in text[start:end]) + text[end:]


def without_comments(text):
    """HTML comments blanked out."""
    pos = 0
    while True:
        start = text.find("<!--", pos)
        if start < 0:
            return text
        end = text.find("-->", start + 4)
        end = len(text) if end < 0 else end + 3
        text = mask(text, start, end)
        pos = end


def without_code_spans(line):
    """The line with the contents of inline code spans (and backslash escapes) blanked out."""
    line = re.sub(r"\\.", "\x00\x00", line)
    out, i = [], 0
    while i < len(line):
        if line[i] != "`":
            out.append(line[i])
            i += 1
            continue
        run = len(line[i:]) - len(line[i:].lstrip("`"))
        close = re.compile(r"(?<!`)" + "`" * run + r"(?!`)").search(line, i + run)
        if close is None:  # an unmatched run of backticks is literal text
            out.append(line[i:i + run])
            i += run
            continue
        out.append("\x00" * (close.end() - i))
        i = close.end()
    return "".join(out)


def prose_lines(text):
    """(line number, line) for every line outside fenced code blocks, comments blanked out."""
    fence = None
    for number, line in enumerate(without_comments(text).split("\n"), 1):
        m = FENCE.match(line)
        if fence is None:
            if m:
                fence = m.group(1)
                continue
            yield number, line
        elif m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not line[m.end():].strip():
            fence = None


def prose(text):
    """The text with fenced code blocks, HTML comments and inline code spans blanked out (line
    numbers and columns unchanged)."""
    lines = ["\x00" * len(line) for line in text.split("\n")]
    for number, line in prose_lines(text):
        lines[number - 1] = without_code_spans(line)
    return "\n".join(lines)


def heading_anchor(text):
    """GitHub's anchor (without duplicate suffix) for the heading text `text`."""
    text = re.sub(r"!\[([^\]]*)\]\([^)]*\)", r"\1", text)  # images: their alt text
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links: their text
    text = re.sub(r"<[^>]+>", "", text)  # HTML tags
    parts = re.split(r"(`+[^`]*`+)", text)  # code spans keep their underscores
    plain = []
    for k, part in enumerate(parts):
        if k % 2 == 1:
            plain.append(part.strip("`"))
        else:  # emphasis delimiters are not text: *x*, **x**, _x_, __x__
            plain.append(re.sub(r"(?<![0-9A-Za-z])_+|_+(?![0-9A-Za-z])", "", part))
    text = html.unescape("".join(plain)).strip().lower()
    kept = []
    for c in text:
        cat = unicodedata.category(c)
        if c in " -" or cat[0] in "LMN" or cat == "Pc":
            kept.append(c)
    return "".join(kept).replace(" ", "-")


def anchors_of(text):
    """Every anchor a Markdown file defines."""
    anchors, seen = set(), {}
    previous = ""
    for _, line in prose_lines(text):
        heading = None
        m = ATX_HEADING.match(line)
        if m:
            heading = m.group(2) or ""
        elif SETEXT_UNDERLINE.match(line) and previous.strip() and not previous.lstrip().startswith(("|", "-", "*", ">")):
            heading = previous.strip()
        if heading is not None:
            base = heading_anchor(heading)
            n = seen.get(base, 0)
            seen[base] = n + 1
            anchors.add(base if n == 0 else f"{base}-{n}")
        anchors.update(a.lower() for a in HTML_ANCHOR.findall(line))
        previous = line
    return anchors


def link_targets(text):
    """(line number, target) for every link, image and link reference definition of a Markdown
    text (as blanked out by prose())."""
    for m in LINK_TEXT.finditer(text):
        if re.search(r"\n[ \t]*\n", m.group(0)):  # link text does not cross a blank line
            continue
        i = m.end()
        while i < len(text) and text[i] in " \t":
            i += 1
        number = text.count("\n", 0, i) + 1
        if i < len(text) and text[i] == "<":
            end = text.find(">", i)
            if end > 0 and "\n" not in text[i:end]:
                yield number, text[i + 1:end]
            continue
        depth, j = 0, i
        while j < len(text):
            c = text[j]
            if c in " \t\n":
                break
            if c == "(":
                depth += 1
            elif c == ")":
                if depth == 0:
                    break
                depth -= 1
            j += 1
        yield number, text[i:j]
    for number, line in enumerate(text.split("\n"), 1):
        d = REFERENCE_DEFINITION.match(line)
        if d and not d.group(1).startswith("^"):  # [^1]: footnotes are not links
            yield number, d.group(2).strip("<>")


def check(root):
    """Sorted list of (path, line, target, why) for every broken link under root."""
    texts, anchors, broken = {}, {}, []

    def read(path):
        if path not in texts:
            try:
                with open(path, encoding="utf-8") as f:
                    texts[path] = f.read().replace("\r\n", "\n")
            except (OSError, UnicodeDecodeError):
                texts[path] = None
        return texts[path]

    def anchor_set(path):
        if path not in anchors:
            anchors[path] = anchors_of(read(path) or "")
        return anchors[path]

    for rel in markdown_files(root):
        path = os.path.join(root, rel)
        text = read(path)
        if text is None:
            broken.append((rel, 0, "", "cannot be read as UTF-8"))
            continue
        for number, target in sorted(link_targets(prose(text))):
            if not target or SCHEME.match(target) or target.startswith("//"):
                continue
            file_part, _, fragment = target.partition("#")
            file_part = urllib.parse.unquote(file_part.split("?", 1)[0])
            if file_part == "":
                dest = path
            elif file_part.startswith("/"):
                dest = os.path.join(root, file_part.lstrip("/"))
            else:
                dest = os.path.join(os.path.dirname(path), file_part)
            dest = os.path.normpath(dest)
            if not os.path.exists(dest):
                broken.append((rel, number, target, "no such file or folder"))
                continue
            if not fragment or not dest.endswith(".md") or not os.path.isfile(dest):
                continue
            if read(dest) is None:
                broken.append((rel, number, target, "target cannot be read as UTF-8"))
                continue
            wanted = urllib.parse.unquote(fragment).lower()
            if wanted not in anchor_set(dest):
                where = "in this file" if dest == os.path.normpath(path) else "in " + os.path.relpath(dest, root)
                broken.append((rel, number, target, f"no heading with anchor #{wanted} {where}"))
    return sorted(broken)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Check that every relative link and image in the repository's Markdown files points to an "
        "existing file or folder, and every #anchor to a heading of its target file (GitHub's anchor rules).",
        epilog="Prints `path:line: target (why)` for each broken link. Exit status: 0 all links resolve, "
        "1 a link is broken, 2 usage error.")
    parser.add_argument("root", nargs="?", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        help="the repository root (default: the checkout this script belongs to)")
    args = parser.parse_args(argv)  # exits 2 on a usage error
    root = os.path.abspath(args.root)
    if not os.path.isdir(root):
        parser.error(f"{args.root} is not a folder")
    broken = check(root)
    for rel, number, target, why in broken:
        print(f"{rel}:{number}: {target} ({why})")
    if broken:
        print(f"{len(broken)} broken link(s)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
