"""The repository reads as a product: a README short enough to be a manual, links that
resolve, a docs folder of pages rather than raw artefacts, and a README, docs, code
comments, docstrings and test names that describe the engine in the third person, with
dates and commits for when a figure was measured."""
import io
import re
import subprocess
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README_MAX_LINES = 400
DOCS_MAX_BYTES = 10 * 1024 * 1024

# The words are put together from pieces, so that this file's own text holds none of them.
STEP, TRACKER, SITTING = "st" "op", "iss" "ue", "ses" "sion"
# Numbered references that point outside the repository instead of to a date or commit. Case-insensitive.
PROCESS_WORDS = re.compile(rf"\b(?:{STEP}|{TRACKER}|{SITTING})s? #?\d+", re.I)
# First person: the engine, a commit or a date says who and when. Case-sensitive, as words.
SELF = "\x49"      # the first-person pronoun, written so that this file does not use it
FIRST_PERSON = re.compile(rf"\b(?:{SELF}(?!/O)|[Mm]y|[Ww]e)\b")
# In prose (markdown) the two words of PROSE_ONLY count as well; in code the first names
# the search setup module and the second the side to move (its king).
PROSE_ONLY = re.compile(rf"\b{SITTING}s?\b|\b[Oo]ur\b", re.I)

CODE_SPAN = re.compile(r"`[^`\n]*`")
FENCE = re.compile(r"^```.*?^```", re.M | re.S)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def tracked(*patterns):
    out = subprocess.run(["git", "ls-files", *patterns], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout.split()
    return [ROOT / name for name in out if (ROOT / name).exists()]


def markdown_files():
    return [ROOT / "README.md"] + tracked("docs/*.md", "docs/**/*.md", "data/*.md")


def prose_of(text: str) -> str:
    """Markdown without fenced blocks and inline code: commands and identifiers may say
    anything, the sentences around them may not."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def prose_problems(text: str):
    found = []
    for number, line in enumerate(prose_of(text).splitlines(), 1):
        for pattern in (PROCESS_WORDS, PROSE_ONLY, FIRST_PERSON):
            found += [f"{number}: {m.group(0)!r}" for m in pattern.finditer(line)]
    return found


def code_problems(source: str):
    """Comments, strings (docstrings included) and test names of one Python file."""
    found = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in (tokenize.COMMENT, tokenize.STRING):
            for pattern in (PROCESS_WORDS, FIRST_PERSON):
                found += [f"{token.start[0]}: {m.group(0)!r}" for m in pattern.finditer(token.string)]
        elif token.type == tokenize.NAME and token.string.startswith("test_"):
            if re.search(rf"(?:{STEP}|{TRACKER}|{SITTING})_?\d+", token.string):
                found.append(f"{token.start[0]}: {token.string}")
    return found


def test_readme_is_a_manual_not_a_notebook():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= README_MAX_LINES, len(lines)


@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_markdown_has_no_process_words(path):
    assert prose_problems(path.read_text()) == []


@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(path):
    broken = []
    for target in LINK.findall(FENCE.sub("", path.read_text())):
        if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue                                   # http:, mailto:, an anchor on the page
        if not (path.parent / target.split("#")[0]).exists():
            broken.append(target)
    assert broken == []


def test_python_comments_docstrings_and_test_names_have_no_process_words():
    problems = {}
    for path in tracked("*.py"):
        found = code_problems(path.read_text())
        if found:
            problems[str(path.relative_to(ROOT))] = found
    assert problems == {}


def test_docs_hold_pages_not_artefacts():
    docs = tracked("docs")
    assert sum(p.stat().st_size for p in docs) < DOCS_MAX_BYTES
    assert not [p for p in docs if p.suffix == ".patch"]
    assert (ROOT / "docs" / "README.md").exists()


def test_the_checks_catch_what_they_guard():
    """Each pattern fires on a sentence it exists for and spares code and chess words."""
    assert prose_problems(f"Measured in {STEP} 81.\n")
    assert prose_problems(f"As {TRACKER} 13 asks.\n")
    assert prose_problems(f"This {SITTING} ran it.\n")
    assert prose_problems(f"Then {SELF} ran the match.\n")
    assert prose_problems("W" "e measured it.\n")
    assert not prose_problems(f"Toga II 3.0 at 10 s; see `engine/{SITTING}.py`.\n")
    assert not prose_problems(f"```\n{SELF} ran this\n```\n")
    assert code_problems(f"# the third move ({STEP} 60: +13 Elo)\n")
    assert code_problems('"""What ' + "w" "e" + ' spent."""\n')
    assert code_problems(f"def test_{STEP}60_rule():\n    pass\n")
    own = "o" "ur"     # the side to move's, in chess prose
    assert not code_problems(f"{own}_king = 1  # {own} king, their rooks; {SELF}/O at the edges\n")
    assert not code_problems(f"{SITTING} = Search()  # one search per table\n")
