"""required_any: the texts one of which every match of a MAINTAINERS K:/N: pattern must contain."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reviewtool.regexlit import required_any

# Real K: patterns from the kernel's MAINTAINERS, and shapes that must give no literal.
PATTERNS = {
    r"(devm_)?hwmon_device_(un)?register(|_with_groups|_with_info)": "hwmon_device_",
    r"(?:\b|_)ptp(?:\b|_)": "ptp",
    r"\b(ABS|SYN)_MT_": "_MT_",
    r"\b(?:devm_|of_)?reset_control(?:ler_[a-z]+|_[a-z_]+)?\b": "reset_control",
    r"\b(clone_args|kernel_clone_args)\b": "",
    r"\b(pstore|ramoops)": "",
    r"(?i)pidfd": "",
    r"\b(?i:clang|llvm)\b": "",
    r'"nxp,tda998x"': '"nxp,tda998x"',
    r"of_overlay_notifier_": "of_overlay_notifier_",
    r"fo+bar": "bar",
    r"x(abc)?y": "x",
    r"(?=ba)bar": "bar",
    r"a\.b": "a.b",
    r"[ab]cd": "cd",
    r"(?i:abc)def": "def",
    r"ab|cd": "",
    r"(": "",
}


@pytest.mark.parametrize("pattern,expected", PATTERNS.items())
def test_a_single_required_text(pattern, expected):
    """Where one text is required, it is the only one named, compared as written."""
    req = required_any(pattern, re.VERBOSE)
    if expected:
        assert req == ((expected,), False)
    else:
        assert req is None or len(req[0]) > 1 or req[1]  # several texts, or in any case, or none


def test_case_insensitive_flag_compares_in_lower_case():
    assert required_any("PidFD", re.IGNORECASE) == (("pidfd",), True)


def test_keyword_sections_equal_the_per_line_test():
    """Maintainers.sections_for_text (substring prefilter, joined multi-line search, then lines)
    names exactly the sections a plain per-line search names."""
    from reviewtool.context.maintainers.lookup import Maintainers
    from reviewtool.context.maintainers.file_format import parse_maintainers

    keywords = list(PATTERNS)[:-1] + [r"\Afoo", r"bar(?!\s)", r"(?<!\w)baz", r"end$", r"^start"]
    text = "\n".join(f"SECTION {i}\nM:\tM {i} <m{i}@example.org>\nK:\t{k}\n" for i, k in enumerate(keywords))
    m = Maintainers.build(parse_maintainers("List\n\n" + text))
    words = ["hwmon_device_register", "ptp", "_ptp_", "ABS_MT_x", "reset_control", "clone_args", "pstore",
             "PIDFD", "Clang", '"nxp,tda998x"', "fooobar", "xy", "xabcy", "bar", "a.b", "acd", "ABCdef", "cd",
             "foo", "bar ", "baz", " baz", "end", "start", "x", " ", "\t", "KERNEL_CLONE_ARGS", "RaMoOpS",
             "ſ", "é"]  # non-ASCII text: the case-free prefilter steps aside

    @settings(max_examples=300, deadline=None, derandomize=True)
    @given(st.lists(st.lists(st.sampled_from(words), max_size=5).map("".join), max_size=6))
    def check(lines):
        naive = [s for s in m.sections if s.keywords and any(rx.search(line) for rx in s.keywords for line in lines)]
        assert [s.title for s in m.sections_for_text(lines)] == [s.title for s in naive]

    check()


# Patterns with no single required text still need one of a few, in some case.
ANY = {
    r"\b(clone_args|kernel_clone_args)\b": (("clone_args", "kernel_clone_args"), False),
    r"\b(pstore|ramoops)": (("pstore", "ramoops"), False),
    r"(?i)PidFD": (("pidfd",), True),
    r"\b(?i:clang|llvm)\b": (("clang", "llvm"), True),
    r"phylink\.h|struct\s+phylink|\.phylink": (("phylink.h", "phylink", ".phylink"), False),
    r"(devm_)?hwmon_device_(un)?register": (("hwmon_device_",), False),
    r"(?i:ab)CDE|xy": (("CDE", "xy"), False),  # the longer, case-sensitive text is the better test
    r"(?i:abcd)e|XY": (("abcd", "xy"), True),  # one case-free branch: all compared in lower case
    r"ab|c*": None,  # a branch that needs nothing
    r"[ab]|c": None,
    r"é|x": None,  # non-ASCII text is not compared case-free
}


@pytest.mark.parametrize("pattern,expected", ANY.items())
def test_required_any(pattern, expected):
    assert required_any(pattern, re.VERBOSE) == expected


@pytest.mark.parametrize("pattern", [p for p, e in ANY.items() if e] + [p for p in PATTERNS if p != "("])
def test_every_match_contains_one_of_the_texts(pattern):
    req = required_any(pattern, re.VERBOSE)

    @settings(max_examples=60, deadline=None, derandomize=True)
    @given(st.from_regex(re.compile(pattern, re.VERBOSE)).filter(str.isascii))
    def check(text):
        if req is not None:
            texts, ignore_case = req
            assert any(t in (text.lower() if ignore_case else text) for t in texts)

    check()


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.text("abcx_/", min_size=1, max_size=4), max_size=12), st.text("abcx_/", max_size=20))
def test_text_index_finds_what_in_finds(texts, s):
    from reviewtool.regexlit import TextIndex

    index = TextIndex((t, n) for n, t in enumerate(texts))
    assert index.found(s) == {n for n, t in enumerate(texts) if t in s}
