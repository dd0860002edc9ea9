"""AI coding assistants: disclosure with Assisted-by, and no AI identity in the DCO chain."""

from __future__ import annotations

import fnmatch
import re
from functools import lru_cache

from ..model.series import Patch, Person, Trailer
from .registry import Hit, rule

ASSISTED = "assisted-by"
# Identities of coding agents as they appear in trailers. A profile may replace the list with
# the setting `ai_identities`: entries with an '@' are address globs, the others are
# case-insensitive regular expressions matched against the whole display name.
DEFAULT_AI_IDENTITIES = (
    "noreply@anthropic.com", "claude@anthropic.com", "noreply@openai.com", "codex@openai.com",
    "copilot@github.com", "*copilot*@users.noreply.github.com", "*[bot]@users.noreply.github.com",
    "cursoragent@cursor.com", "noreply@aider.chat", "gemini-code-assist*@*",
    r"claude( code)?", r"claude[ -](opus|sonnet|haiku|code)[\w .:-]*", r"(github )?copilot( agent)?",
    r"chat-?gpt", r"(openai )?codex( cli)?", r"gpt-?[3-9][\w.-]*", r"gemini( cli| code assist)?",
    r"cursor (agent|ai)", r"devin ai", r"aider", r"amazon q( developer)?", r"kiro",
    r"(an? )?(ai|llm) ((coding )?assistant|agent)",
)
# Tools the kernel's coding-assistants document says not to list in Assisted-by.
BASIC_TOOLS = frozenset({"git", "gcc", "cc", "clang", "make", "vim", "vi", "nvim", "neovim", "emacs", "nano",
                         "vscode", "ed", "sed", "grep", "bash"})
_AGENT_LABELS = (("claude", "Claude"), ("anthropic", "Claude"), ("copilot", "Copilot"), ("codex", "Codex"),
                 ("gpt", "ChatGPT"), ("openai", "Codex"), ("gemini", "Gemini"), ("cursor", "Cursor"),
                 ("aider", "aider"), ("devin", "Devin"), ("kiro", "Kiro"), ("amazon q", "AmazonQ"))

_TOOL = (r"(claude(?: code)?|chat-?gpt|gpt-?[3-9](?:\.\d)?o?|(?:github )?copilot(?! key| button)|"
         r"gemini(?! lake)(?: cli| code assist)?|(?:openai )?codex|cursor (?:ai|agent|ide)|aider|"
         r"an? (?:ai|llm|large language model)(?:[- ]based)?(?: coding)?(?: assistant| agent| tool| model)?|"
         r"ai (?:coding )?(?:assistants?|agents?|tools?|models?)|llms?|large language models?)")
_DISCLOSURE_RES = (
    re.compile(r"\b(?:generated|written|created|authored|drafted|produced|developed|co-?authored|assisted|"
               r"prepared|implemented|refactored|found|identified|discovered|suggested|spotted)\s+"
               r"(?:\w+\s+){0,2}?(?:by|with|using|through)\s+(?:the\s+)?(?:help\s+of\s+|assistance\s+of\s+)?\[?"
               + _TOOL + r"\b", re.I),
    re.compile(r"\b(?:with|through) the (?:help|assistance|aid) of\s+(?:the\s+)?" + _TOOL + r"\b", re.I),
    re.compile(r"\b(?:AI|LLM)[- ](?:generated|assisted|authored|written)\b", re.I),
    re.compile(r"\b(?:used|using|asked|prompted)\s+(?:the\s+)?" + _TOOL + r"\b\s*(?:to|for)\b", re.I),
    # The tool as the subject: "Claude assisted with analysis and wording", "ChatGPT helped write it".
    re.compile(r"\b" + _TOOL + r"\s+(?:\([^)]{0,40}\)\s+)?(?:was\s+used\s+(?:to|for|in)|assisted|helped|"
               r"contributed|wrote|generated|drafted|suggested|proposed|identified|spotted)\b", re.I),
)
_NEGATION_RE = re.compile(r"\b(?:no|not|never|without|nor)\b[^.]*$", re.I)
# A word every disclosure above holds (a tool's name, AI, LLM): a line without one holds none, and
# most commit messages have none, so one search of the whole text settles them.
_ANY_TOOL_RE = re.compile(r"claude|gpt|copilot|gemini|codex|cursor|aider|\bai\b|llm|large language model", re.I)


def ai_patterns(ctx) -> tuple[str, ...]:
    configured = ctx.setting("ai_identities")
    return tuple(configured) if configured else DEFAULT_AI_IDENTITIES


@lru_cache(maxsize=4096)  # asked for every trailer of every patch; people repeat
def is_ai_identity(person: Person | None, patterns: tuple[str, ...]) -> bool:
    if person is None:
        return False
    email = person.email.lower()
    name = re.sub(r"\s+", " ", person.name.strip().strip('"')).lower()
    for pat in patterns:
        if "@" in pat:
            if email and fnmatch.fnmatchcase(email, pat.lower()):
                return True
        elif name and re.fullmatch(pat, name, re.I):
            return True
    return False


def agent_label(text: str) -> str | None:
    low = text.lower()
    return next((label for key, label in _AGENT_LABELS if key in low), None)


def assisted_by_example(ctx, agent: str | None = None) -> str:
    if ctx.setting("assisted_by_format", "agent-model") == "llm":
        return f"Assisted-by: {agent or 'LLM'}-<model-version> [optional analysis tools]"
    return f"Assisted-by: {agent or 'AGENT'}:<model-version> [optional analysis tools]"


def disclosures(lines) -> list[str]:
    """Lines that say an AI tool or agent took part, skipping negated statements."""
    out = []
    lines = list(lines)
    if not _ANY_TOOL_RE.search("\n".join(lines)):
        return out
    for line in lines:
        if not _ANY_TOOL_RE.search(line):
            continue
        for rx in _DISCLOSURE_RES:
            m = rx.search(line)
            if m and not _NEGATION_RE.search(line[: m.start()]):
                out.append(line.strip())
                break
    return out


def _patch_text(p: Patch) -> list[str]:
    trailer_lines = {t.lineno for t in p.trailers}
    lines = [line for n, line in enumerate(p.message_lines, 1) if n not in trailer_lines]
    return lines + p.notes.splitlines()


@rule("ai-signed-off", family="ai", severity="error",
      summary="An AI agent appears in Signed-off-by or Co-developed-by")
def ai_signed_off(series, ctx):
    """Why: Only a human can certify the Developer's Certificate of Origin, so an AI agent must not
    add a Signed-off-by, and a Co-developed-by (which needs a sign-off) cannot name a tool. The
    human submitter signs off and credits the tool with Assisted-by. The identity list is the
    profile setting `ai_identities` (address globs and display-name patterns).
    Source: kernel Documentation/process/coding-assistants.rst ("Signed-off-by and Developer
    Certificate of Origin"); submitting-patches ("Using Assisted-by:").
    Bad:
      Co-developed-by: Claude <noreply@anthropic.com>
      Signed-off-by: Claude <noreply@anthropic.com>
    Good:
      Assisted-by: Claude:claude-opus-4-5 coccinelle
      Signed-off-by: Jane Developer <jane@example.org>
    """
    patterns = ai_patterns(ctx)
    for p in series.patches:
        bad = [t for t in p.trailers_named("signed-off-by", "co-developed-by") if is_ai_identity(t.person, patterns)]
        if not bad:
            continue
        agent = agent_label(" ".join(t.value for t in bad))
        yield Hit(f"{bad[0].person} is an AI agent and cannot " +
                  ("sign off" if bad[0].key == "signed-off-by" else "be a co-developer") +
                  " under the DCO", patch=p.counter, evidence=tuple(t.line for t in bad),
                  advice=f"Remove {'these lines' if len(bad) > 1 else 'the line'}, credit the tool with "
                         f"`{assisted_by_example(ctx, agent)}`, and keep the human submitter's own "
                         "Signed-off-by.")


@rule("assisted-by-missing", family="ai", severity="warning",
      summary="The text says an AI tool assisted, but there is no Assisted-by trailer")
def assisted_by_missing(series, ctx):
    """Why: When an AI tool or agent helped write a patch, the kernel asks for an Assisted-by
    trailer naming it; maintainers use it to decide how to review (they may apply extra scrutiny
    or decline generated work). Only explicit statements count ("generated with Claude Code",
    "written with the help of an LLM"); negated ones ("no AI tools were used") do not.
    Source: kernel submitting-patches ("Using Assisted-by:"); coding-assistants.rst;
    generated-content.rst (disclose in the changelog or cover letter).
    Bad:
      This patch was written with the help of Claude Code.

      Signed-off-by: Jane Developer <jane@example.org>
    Good:
      This patch was written with the help of Claude Code.

      Assisted-by: Claude:claude-opus-4-5
      Signed-off-by: Jane Developer <jane@example.org>
    """
    any_assisted = any(p.trailers_named(ASSISTED) for p in series.patches)
    for p in series.patches:
        said = disclosures(_patch_text(p))
        if said and not p.trailers_named(ASSISTED):
            yield Hit("the patch says an AI tool assisted, but has no Assisted-by trailer", patch=p.counter,
                      evidence=tuple(said[:3]),
                      advice=f"Add `{assisted_by_example(ctx, agent_label(' '.join(said)))}` above the "
                             "Signed-off-by, naming the agent and model that were used.")
    cover = series.cover
    if cover is not None and not any_assisted:
        said = disclosures(list(cover.message_lines) + cover.notes.splitlines())
        if said:
            yield Hit("the cover letter says an AI tool assisted, but no patch has an Assisted-by trailer",
                      patch=0, evidence=tuple(said[:3]),
                      advice=f"Add `{assisted_by_example(ctx, agent_label(' '.join(said)))}` to each patch "
                             "the tool helped with.")


def _format_problems(t: Trailer, fmt: str) -> list[str]:
    value = t.value.split("#", 1)[0].strip()
    if not value:
        return ["the value is empty"]
    if "<" in value and "@" in value:
        return ["names a person or mailbox; Assisted-by names the tool and model"]
    tokens = [tok.strip("[]") for tok in value.split()]
    problems = []
    if fmt == "agent-model" and not re.fullmatch(r"[^:\s]+:[^:\s]+", tokens[0]):
        problems.append(f"{tokens[0]!r} is not AGENT:MODEL")
    basic = [tok for tok in tokens[1:] if tok.lower() in BASIC_TOOLS]
    if basic:
        problems.append("lists basic tools that are not to be named: " + ", ".join(basic))
    return problems


@rule("assisted-by-format", family="ai", severity="warning",
      summary="An Assisted-by trailer does not follow the project's format")
def assisted_by_format(series, ctx):
    """Why: Assisted-by names the agent and model (`AGENT:MODEL`, checkpatch checks for
    `\\S+:\\S+`), then optional specialised analysis tools; basic tools (git, gcc, make, editors)
    are not listed. The profile setting `assisted_by_format` picks "agent-model"
    (`AGENT:MODEL [TOOL...]`) or "llm" (`LLM [TOOL...]`, the simplified 2026 form).
    Source: kernel coding-assistants.rst ("Attribution"); checkpatch BAD_SIGN_OFF (Assisted-by).
    Bad:
      Assisted-by: Claude <noreply@anthropic.com>
      Assisted-by: Claude:claude-3-opus git gcc
    Good:
      Assisted-by: Claude:claude-3-opus coccinelle sparse
    """
    fmt = ctx.setting("assisted_by_format", "agent-model")
    for p in series.all_mails:
        for t in p.trailers_named(ASSISTED):
            problems = _format_problems(t, fmt)
            if problems:
                yield Hit(f"Assisted-by is malformed: {'; '.join(problems)}", patch=p.counter, evidence=(t.line,),
                          advice=f"Write it as `{assisted_by_example(ctx, agent_label(t.value))}` "
                                 f"({fmt} format of the {ctx.profile.name} profile).")
