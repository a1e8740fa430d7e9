"""Every citation in the code resolves to a page in docs/, and docs/ has no broken links.

The rule texts and facts sheets the engine was built from live outside the repository, so code and
tests cite them only through pages in docs/ (docs/README.md, "How citations resolve"):

- facts rows ``F§1.3`` / ``A§4`` / ``C§2`` and engine defaults ``D1``..``D12`` resolve to a heading
  or a table row of a docs page that starts with exactly that key;
- rulebook lines ``R14 l.448-449``, ``R23 l.375``, ``A-rules l.56-59``, ``C-rules l.12`` (and the
  prose forms "classic rulebook l.N" = R14, "2023 rulebook l.N" = R23) resolve to an index entry
  of the same rulebook that covers every cited line; ``l.674ff`` counts as line 674, and
  ``, l.169`` after a citation belongs to the same rulebook;
- a line number with no rulebook named before it on the same source line is an error: a reader
  cannot know which book it means.

Each failure names file:line and the citation.
"""
from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
SCANNED = ("domain", "tests")
THIS_FILE = Path(__file__).resolve()

# A rulebook named on a source line: its tag, or the prose forms "classic rulebook" / "2023 rulebook"
# (also "classic l.N" / "2023 l.N") of R14 and R23. A quoted "R14" is data (a road id), not a book.
SOURCE = re.compile(r"\b(?:(?P<code>R14|R23|A-rules|C-rules)\b(?![\"'])"
                    r"|(?P<edition>classic|2023)(?:(?: edition)? rulebook\b|,?\s+(?=l\.\s?\d)))")
ALIASES = {"classic": "R14", "2023": "R23"}
LINE = re.compile(r"(?<![\w.])l\.\s?(?P<start>\d+)(?:\s?[-–]\s?(?P<end>\d+)|(?P<ff>ff?)\b)?")
ROW = re.compile(r"(?<![\w§])(?P<key>[FAC]§\d+(?:\.\d+)*|D\d{1,2})(?!\w)")
DOC_REFERENCE = re.compile(r"\bdocs/[\w./-]+\.md\b")

# The key that opens a heading ("### F§1.3 Goods spaces") or the first cell of a table row
# ("| D4 | ..." / "| A-rules l.56–59 | ...") is an anchor.
ANCHOR_KEY = (r"(?:[FAC]§\d+(?:\.\d+)*|D\d{1,2}|(?:R14|R23|A-rules|C-rules) l\.\d+(?:[-–]\d+)?)")
HEADING_ANCHOR = re.compile(rf"^#{{1,6}}\s+(?P<key>{ANCHOR_KEY})(?=[\s:.,—–-]|$)")
TABLE_ANCHOR = re.compile(rf"^\|\s*(?P<key>{ANCHOR_KEY})\s*\|")
LINE_KEY = re.compile(r"^(?P<src>R14|R23|A-rules|C-rules) l\.(?P<start>\d+)(?:[-–](?P<end>\d+))?$")

# Citations known not to resolve, in code this change does not own: (path, text as written). They
# are reported to the owners; remove an entry when its citation is fixed (a stale entry fails).
EXPECTED_UNRESOLVED: frozenset[tuple[str, str]] = frozenset()


@dataclass(frozen=True)
class Citation:
    path: str
    line: int
    text: str  # as written in the file
    key: str | None  # the anchor it needs ("F§1.3", "D4", "R14 l.448-449"); None: no rulebook named

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.text!r}"


@dataclass(frozen=True)
class LineRef:
    source: str | None  # None: no rulebook named before it on the line
    start: int
    end: int  # == start for a single line and for "ff"

    @property
    def key(self) -> str:
        return f"{self.source} l.{self.start}" + (f"-{self.end}" if self.end != self.start else "")


def _scanned_files() -> Iterator[Path]:
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*.py")):
            if path.resolve() != THIS_FILE and ".venv" not in path.parts:
                yield path


def _line_refs(text: str) -> Iterator[tuple[str, LineRef]]:
    """(written text, reference) for every ``l.N`` on one source line.

    A line number belongs to the nearest rulebook named before it on the same line."""
    sources = [(m.start(), m.group("code") or ALIASES[m.group("edition")]) for m in SOURCE.finditer(text)]
    for m in LINE.finditer(text):
        named = [src for pos, src in sources if pos < m.start()]
        start = int(m.group("start"))
        end = int(m.group("end")) if m.group("end") else start
        yield m.group(0), LineRef(named[-1] if named else None, start, end)


def _citations() -> Iterator[Citation]:
    """Every citation in the scanned code, in file and line order."""
    for path in _scanned_files():
        rel = path.relative_to(ROOT).as_posix()
        for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            for m in ROW.finditer(text):
                yield Citation(rel, number, m.group("key"), m.group("key"))
            for written, ref in _line_refs(text):
                yield Citation(rel, number, written, ref.key if ref.source else None)


def _anchors() -> dict[str, list[str]]:
    """Anchor key -> the docs pages that declare it."""
    found: dict[str, list[str]] = {}
    for page in sorted(DOCS.glob("*.md")):
        in_code_block = False
        for text in page.read_text(encoding="utf-8").splitlines():
            if text.startswith("```"):
                in_code_block = not in_code_block
            m = None if in_code_block else HEADING_ANCHOR.match(text) or TABLE_ANCHOR.match(text)
            if m:
                found.setdefault(m.group("key").replace("–", "-"), []).append(page.name)
    return found


def _line_anchor(key: str) -> LineRef | None:
    m = LINE_KEY.match(key)
    if m is None:
        return None
    start = int(m.group("start"))
    return LineRef(m.group("src"), start, int(m.group("end") or start))


def _resolves(citation: Citation, anchors: dict[str, list[str]]) -> bool:
    if citation.key is None:
        return False
    if citation.key in anchors:
        return True
    cited = _line_anchor(citation.key)
    if cited is None:
        return False
    entries = (_line_anchor(k) for k in anchors)
    return any(e and e.source == cited.source and e.start <= cited.start and cited.end <= e.end for e in entries)


def _problems() -> list[tuple[str, str, str]]:
    """(path, written text, message) for every citation that does not resolve."""
    anchors = _anchors()
    return [(c.path, c.text, f"{c}: " + (f"no docs page has an entry for {c.key}" if c.key else
                                          "no rulebook named before it (R14, R23, A-rules, C-rules)"))
            for c in _citations() if not _resolves(c, anchors)]


def test_every_citation_resolves_to_a_docs_page() -> None:
    unexpected = [msg for path, written, msg in _problems() if (path, written) not in EXPECTED_UNRESOLVED]
    assert not unexpected, "citations without a docs entry:\n" + "\n".join(unexpected)


def test_the_expected_failures_list_is_not_stale() -> None:
    still_failing = {(path, written) for path, written, _ in _problems()}
    stale = sorted(EXPECTED_UNRESOLVED - still_failing)
    assert not stale, f"these now resolve; remove them from EXPECTED_UNRESOLVED: {stale}"


def test_no_anchor_is_declared_twice() -> None:
    twice = {key: pages for key, pages in _anchors().items() if len(pages) > 1}
    assert not twice, f"anchors declared more than once: {twice}"


def test_the_scanner_finds_the_citations_it_should() -> None:
    keys = {c.key for c in _citations()}
    assert {"F§1.3", "D12", "A§4", "A-rules l.56-59"} <= keys  # the code cites these today


@pytest.mark.parametrize(("text", "expected"), [
    ("# R14 l.448–449: each player may exclude", [("R14", 448, 449)]),
    ("(classic rulebook l.674ff, 2023 l.593ff)", [("R14", 674, 674), ("R23", 593, 593)]),
    ("# A-rules l.164-165, l.169", [("A-rules", 164, 165), ("A-rules", 169, 169)]),
    ("_c(\"R14\", \"montargis\", \"briare\")  # l.12", [(None, 12, 12)]),
    ("2023 rulebook l.375; D10", [("R23", 375, 375)]),
    ("classic rulebook, place-tile exclusion, l.448–449", [("R14", 448, 449)]),
    ("the 2023 edition changed it; classic: see l.12", [(None, 12, 12)]),
])
def test_line_citations_parse(text: str, expected: list[tuple[str | None, int, int]]) -> None:
    assert [(ref.source, ref.start, ref.end) for _, ref in _line_refs(text)] == expected


def test_an_index_entry_resolves_the_lines_it_covers_and_no_others() -> None:
    anchors = {"R14 l.446-450": ["x.md"]}

    def cite(key: str) -> Citation:
        return Citation("f.py", 1, key, key)

    assert _resolves(cite("R14 l.446-450"), anchors)
    assert _resolves(cite("R14 l.448-449"), anchors)
    assert _resolves(cite("R14 l.450"), anchors)
    assert not _resolves(cite("R14 l.448-452"), anchors)  # cites more than the entry explains
    assert not _resolves(cite("R14 l.445"), anchors)
    assert not _resolves(cite("R23 l.448"), anchors)  # another book


# --- line numbers: every cited line is a line of text of its book (docs/rulebook-lines.md) ------------

LINE_MAP = DOCS / "rulebook-lines.md"
BOOK_ROW = re.compile(r"^\|\s*(?P<src>R14|R23|A-rules|C-rules)\s*\|\s*`(?P<file>[^`]+)`\s*\|\s*(?P<lines>\d+)\s*\|"
                      r"\s*`(?P<sha>[0-9a-f]{64})`\s*\|")


@dataclass(frozen=True)
class Book:
    file: str
    lines: int
    sha256: str
    blank: frozenset[int]

    def text_line(self, n: int) -> bool:
        return 1 <= n <= self.lines and n not in self.blank


def _numbers(text: str) -> Iterator[int]:
    for part in re.findall(r"\d+(?:-\d+)?", text):
        a, _, b = part.partition("-")
        yield from range(int(a), int(b or a) + 1)


def line_map(text: str | None = None) -> dict[str, Book]:
    """The books of docs/rulebook-lines.md: file, line count, SHA-256 and blank lines."""
    text = LINE_MAP.read_text(encoding="utf-8") if text is None else text
    rows = {m.group("src"): m for m in map(BOOK_ROW.match, text.splitlines()) if m}
    blanks = dict(re.findall(r"^### (R14|R23|A-rules|C-rules) blank lines\n\n(.*?)(?=\n\n|\Z)", text, re.M | re.S))
    return {src: Book(m.group("file"), int(m.group("lines")), m.group("sha"),
                      frozenset(() if blanks[src].strip() == "none" else _numbers(blanks[src])))
            for src, m in rows.items()}


def _off_text(ref: LineRef, books: dict[str, Book]) -> str | None:
    """Why lines ``ref`` are not a passage of text of their book, or None."""
    assert ref.source is not None
    book = books[ref.source]
    if not 1 <= ref.start <= ref.end <= book.lines:
        return f"outside {ref.source}'s {book.lines} lines"
    ends = [n for n in dict.fromkeys((ref.start, ref.end)) if not book.text_line(n)]
    return f"line {', '.join(map(str, ends))} of {ref.source} is blank" if ends else None


def test_the_line_map_names_every_book() -> None:
    books = line_map()
    assert set(books) == {"R14", "R23", "A-rules", "C-rules"}
    assert all(b.blank < set(range(1, b.lines + 1)) for b in books.values())


def test_every_index_entry_starts_and_ends_on_a_line_of_text() -> None:
    books = line_map()
    wrong = [f"{key} ({', '.join(pages)}): {why}" for key, pages in sorted(_anchors().items())
             if (ref := _line_anchor(key)) is not None and (why := _off_text(ref, books))]
    assert not wrong, "index entries off the text of their book:\n" + "\n".join(wrong)


def test_every_line_cited_in_the_code_starts_and_ends_on_a_line_of_text() -> None:
    books = line_map()
    wrong = [f"{c}: {why}" for c in _citations()
             if c.key and (ref := _line_anchor(c.key)) is not None and (why := _off_text(ref, books))]
    assert not wrong, "citations off the text of their book:\n" + "\n".join(wrong)


def rulebook_dir() -> Path | None:
    """Where the rulebook files are, if at hand: $HOURGLASS_RULEBOOKS, else ../shared/rulebooks."""
    import os

    named = os.environ.get("HOURGLASS_RULEBOOKS")
    found = Path(named) if named else ROOT.parent / "shared" / "rulebooks"
    return found if found.is_dir() else None


def test_the_rulebook_files_are_the_ones_the_line_map_describes() -> None:
    """With the files at hand: the same bytes, so the same line numbers, as the page says."""
    import hashlib

    folder = rulebook_dir()
    if folder is None:
        pytest.skip("the rulebook files are not at hand (set HOURGLASS_RULEBOOKS); the map alone was checked")
    for src, book in line_map().items():
        raw = (folder / book.file).read_bytes()
        lines = raw.decode("utf-8").splitlines()
        assert len(lines) == book.lines, f"{src}: {len(lines)} lines, the map says {book.lines}"
        assert {i for i, t in enumerate(lines, start=1) if not t.strip()} == book.blank, f"{src}: blank lines moved"
        assert hashlib.sha256(raw).hexdigest() == book.sha256, f"{src}: {book.file} is not the mapped file"


def test_a_citation_on_a_blank_line_is_caught() -> None:
    books = line_map("| A-rules | `a.txt` | 10 | `" + "0" * 64 + "` |\n\n### A-rules blank lines\n\n1, 5-6\n")
    assert books["A-rules"].blank == {1, 5, 6}
    assert _off_text(LineRef("A-rules", 2, 4), books) is None
    assert _off_text(LineRef("A-rules", 1, 4), books) == "line 1 of A-rules is blank"
    assert _off_text(LineRef("A-rules", 3, 5), books) == "line 5 of A-rules is blank"
    assert _off_text(LineRef("A-rules", 7, 11), books) == "outside A-rules's 10 lines"


# --- links inside docs/ ----------------------------------------------------------------------------

LINK = re.compile(r"(?<!!)\[[^\]]*\]\((?P<target>[^)\s]+)(?:\s+\"[^\"]*\")?\)")
HTML_ID = re.compile(r"<a\s+(?:id|name)=\"(?P<id>[^\"]+)\"")


def github_slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]|<[^>]+>", "", heading.strip()).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def page_anchors(page: Path) -> set[str]:
    slugs: set[str] = set()
    counts: dict[str, int] = {}
    in_code_block = False
    for text in page.read_text(encoding="utf-8").splitlines():
        if text.startswith("```"):
            in_code_block = not in_code_block
        if in_code_block:
            continue
        slugs.update(m.group("id") for m in HTML_ID.finditer(text))
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*$", text)
        if m:
            slug = github_slug(m.group(1))
            n = counts.get(slug, 0)
            counts[slug] = n + 1
            slugs.add(slug if n == 0 else f"{slug}-{n}")
    return slugs


def _links(page: Path) -> Iterator[tuple[int, str]]:
    in_code_block = False
    for number, text in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1):
        if text.startswith("```"):
            in_code_block = not in_code_block
        if not in_code_block:
            for m in LINK.finditer(re.sub(r"`[^`]*`", "", text)):
                yield number, m.group("target")


def _broken_link(page: Path, target: str) -> str | None:
    if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto: ...: not ours to check
        return None
    path_part, _, fragment = target.partition("#")
    linked = (page.parent / unquote(path_part)).resolve() if path_part else page.resolve()
    if not linked.is_relative_to(ROOT):
        return "points outside the repository"
    if not linked.exists():
        return "no such file"
    if fragment and linked.suffix == ".md" and unquote(fragment) not in page_anchors(linked):
        return f"no heading or anchor #{fragment} in {linked.relative_to(ROOT)}"
    return None


@pytest.mark.parametrize("page", sorted(DOCS.glob("*.md")), ids=lambda p: p.name)
def test_docs_page_has_no_broken_intra_repo_links(page: Path) -> None:
    broken = [f"docs/{page.name}:{n}: ({target}) {why}" for n, target in _links(page)
              if (why := _broken_link(page, target))]
    assert not broken, "\n".join(broken)


def test_the_docs_index_names_every_page() -> None:
    index = (DOCS / "README.md").read_text(encoding="utf-8")
    unlisted = [page.name for page in sorted(DOCS.glob("*.md")) if page.name != "README.md" and page.name not in index]
    assert not unlisted, f"docs/README.md does not name these pages: {unlisted}"


def test_docs_pages_named_in_code_exist() -> None:
    missing = [f"{path.relative_to(ROOT)}:{n}: {m.group(0)}"
               for path in _scanned_files()
               for n, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
               for m in DOC_REFERENCE.finditer(text) if not (ROOT / m.group(0)).exists()]
    assert not missing, "docs pages named in code that do not exist:\n" + "\n".join(missing)


def test_the_slugger_matches_github() -> None:
    assert github_slug("F§1.3 Goods spaces per player count") == "f13-goods-spaces-per-player-count"
    assert github_slug("R14 — classic rulebook (dlp games, 2014)") == "r14--classic-rulebook-dlp-games-2014"


# --- the data pages name real constants ------------------------------------------------------------

DATA_PAGES = {"orleans-data.md": "domain.orleans.data", "artificium-data.md": "domain.artificium.data"}
CONSTANT = re.compile(r"`(?P<name>[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Z]{4,}[0-9]*)`")


def _named_constants(page: str) -> set[str]:
    return {m.group("name") for m in CONSTANT.finditer((DOCS / page).read_text(encoding="utf-8"))} - {"RECONSTRUCTION"}


@pytest.mark.parametrize(("page", "module"), sorted(DATA_PAGES.items()))
def test_every_constant_a_data_page_names_exists(page: str, module: str) -> None:
    data = importlib.import_module(module)
    missing = sorted(name for name in _named_constants(page) if not hasattr(data, name))
    assert not missing, f"docs/{page} names constants that {module} does not define: {missing}"


def reconstructed_constants(path: Path) -> set[str]:
    """Top-level names whose assignment line, or the comment block just above it, says RECONSTRUCTION."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found = set()
    for node in ast.parse("\n".join(lines)).body:
        target = node.target if isinstance(node, ast.AnnAssign) else node.targets[0] if isinstance(node, ast.Assign) else None
        if not isinstance(target, ast.Name):
            continue
        above = []
        for text in reversed(lines[:node.lineno - 1]):
            if not text.startswith("#"):
                break
            above.append(text)
        comments = [lines[node.lineno - 1].partition("#")[2], *above]
        if any(re.search(r"\bRECONSTRUCTION\b", text) for text in comments):
            found.add(target.id)
    return found


def test_every_artificium_reconstruction_is_listed_on_its_data_page() -> None:
    marked = reconstructed_constants(ROOT / "domain" / "artificium" / "data.py")
    unlisted = sorted(marked - _named_constants("artificium-data.md"))
    assert marked, "the RECONSTRUCTION markers in domain/artificium/data.py were not found"
    assert not unlisted, f"RECONSTRUCTION constants missing from docs/artificium-data.md (A§4): {unlisted}"
