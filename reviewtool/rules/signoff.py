"""Sign-off chain: the Developer's Certificate of Origin as the kernel applies it.

Cover letters are not commits and carry no DCO; these rules look at patches only.
"""

from __future__ import annotations

import re

from ..model.series import Patch, Person, Trailer, same_person
from .registry import Hit, Severity, rule

SOB = "signed-off-by"
CODEV = "co-developed-by"
_SOB_ANYWHERE_RE = re.compile(r"^\s*signed-off-by\s*:", re.I)


def signoffs(patch: Patch) -> tuple[Trailer, ...]:
    return patch.trailers_named(SOB)


def _pull_request(patch: Patch) -> bool:
    """A `git request-pull` mail: the commits it names carry the sign-offs, not the mail."""
    return patch.subject.pull and any(l.startswith("The following changes since commit") for l in patch.message_lines)


def _patches(series):
    return [p for p in series.patches if not _pull_request(p)]


def _author_origin(patch: Patch) -> str:
    return "in-body From:" if patch.author != patch.sender else "mail From:"


_VIA_RE = re.compile(r"\bvia\b")


def _list_rewrote_sender(patch: Patch) -> bool:
    """The list replaced From: for DMARC (`Name via List <list@...>` or the list's own address):
    the real sender is unknown, so comparing it with the sign-offs would be a guess."""
    name, addr = patch.sender.name.lower(), patch.sender.email.lower()
    if _VIA_RE.search(name):
        return True
    # From: is an address the mail was sent to (the list itself) and nobody of that address
    # appears in the trailers: a person Cc'ing themselves would have signed off with it.
    recipients = " ".join(patch.to + patch.cc).lower()
    named = {t.person.email.lower() for t in patch.trailers if t.person and t.person.email}
    return bool(addr) and addr in recipients and addr not in named


@rule("signed-off-by-missing", family="signoff", severity="error",
      summary="A patch carries no Signed-off-by")
def signed_off_by_missing(series, ctx):
    """Why: The Signed-off-by line is the author's certification of the Developer's Certificate of
    Origin; a maintainer may not apply a patch without it, and checkpatch reports it as an error.
    An RFC is reported as a warning: it is posted for discussion, but needs the sign-off before it
    can be applied.
    Source: kernel submitting-patches ("Sign your work"), checkpatch MISSING_SIGN_OFF.
    Bad:
      Add a ring_size module parameter.
      ---
    Good:
      Add a ring_size module parameter.

      Signed-off-by: Jane Developer <jane@example.org>
      ---
    """
    for p in _patches(series):
        if signoffs(p) or any(_SOB_ANYWHERE_RE.match(line) for line in p.message_lines):
            continue  # a sign-off stranded outside the trailer block is trailer-block-broken's finding
        tail = [t.line for t in p.trailers] or [line for line in p.message_lines if line.strip()][-2:]
        yield Hit("no Signed-off-by: the patch is not certified under the DCO", patch=p.counter,
                  evidence=tuple(tail) or (p.subject.raw,),
                  severity=Severity.WARNING if series.is_rfc else None,
                  advice=f"If {p.author} wrote it and can certify the DCO, add `Signed-off-by: {p.author}` "
                         "as the last trailer (`git commit -s --amend`) and send the next revision.")


@rule("signed-off-by-author", family="signoff", severity="error",
      summary="The patch author has no Signed-off-by")
def signed_off_by_author(series, ctx):
    """Why: The author (the in-body From:, else the mail From:) must certify the DCO first; a
    patch whose sign-offs all name other people either carries the wrong author or lacks the
    author's certification. Matched by address or by name, as NIPA's verify_signedoff does.
    Source: kernel submitting-patches ("Sign your work", "The canonical patch format");
    checkpatch NO_AUTHOR_SIGN_OFF; NIPA verify_signedoff.
    A sign-off before the author's by someone who is neither the author nor a Co-developed-by
    is a note: one of the credits may be wrong, but maintainers apply such chains (a colleague
    who prepared the patch signs first) far more often than they send them back.
    Bad:
      From: Jane Developer <jane@example.org>      (mail header)

      Signed-off-by: John Other <john@example.com>
    Good:
      From: Jane Developer <jane@example.org>

      Signed-off-by: Jane Developer <jane@example.org>
    """
    for p in _patches(series):
        sobs = signoffs(p)
        if not sobs:
            continue
        if any(same_person(p.author, t.person) for t in sobs):
            hit = _signed_before_author(p, sobs)
            if hit is not None:
                yield hit
            continue
        yield Hit(f"the author {p.author} ({_author_origin(p)}) has no Signed-off-by", patch=p.counter,
                  evidence=(f"author: {p.author} ({_author_origin(p)})",) + tuple(t.line for t in sobs),
                  advice=f"If {p.author} wrote the patch, their `Signed-off-by: {p.author}` must come first; "
                         "if someone else wrote it, put `From: Real Author <address>` as the first line of "
                         "the body so git records the right author.")


def _signed_before_author(p: Patch, sobs: tuple[Trailer, ...]) -> Hit | None:
    """A sign-off before the author's own by someone credited as neither author nor co-developer:
    the chain says they handled the patch before it was written, so one of the credits is wrong."""
    first_own = next(t for t in sobs if same_person(p.author, t.person))
    trailers = list(p.trailers)
    for t in sobs:
        if t is first_own:
            return None
        i = trailers.index(t)
        prev = trailers[i - 1] if i > 0 else None
        if prev is not None and prev.key == CODEV and same_person(prev.person, t.person):
            continue
        return Hit(f"{t.person} signed off before the author {p.author} ({_author_origin(p)}) and is credited as "
                   "neither author nor co-developer", patch=p.counter, severity=Severity.INFO,
                   evidence=(f"author: {p.author} ({_author_origin(p)})",) + tuple(x.line for x in sobs),
                   advice=f"If {t.person} wrote the patch, make them the author (`From: {t.person}` as the first "
                          f"line of the body); if you wrote it together, add `Co-developed-by: {t.person}` right "
                          "above their Signed-off-by.")
    return None


@rule("signed-off-by-sender-last", family="signoff", severity="warning",
      summary="The last Signed-off-by is not the person who sent the patch")
def signed_off_by_sender_last(series, ctx):
    """Why: Everyone who handles a patch on its way adds a sign-off, so the last one belongs to the
    person who sent it; a sender missing from the chain passed on a patch without certifying it.
    A warning, not an error: people send from another address than they sign with, and lists
    that rewrite From: for DMARC hide the sender (those mails are skipped). A sender who signed
    off, only not last (a colleague's sign-off was added after), or who signed with another
    address of theirs (`zuoqilin1@163.com` sending as `zuoqilin@yulong.com`), is a note: the
    sender did certify the patch. So is a bare address with no name (a company's sending gateway)
    carrying the patch of the in-body author, whose sign-off is the last: the author certified it.
    Source: kernel submitting-patches ("Sign your work": the SoB chain follows the patch's path).
    Bad:
      From: Sam Sender <sam@example.com>          (mail header)

      Signed-off-by: Jane Developer <jane@example.org>
    Good:
      Signed-off-by: Jane Developer <jane@example.org>
      Signed-off-by: Sam Sender <sam@example.com>
    """
    for p in _patches(series):
        sobs = signoffs(p)
        if not sobs or not (p.sender.email or p.sender.name) or _list_rewrote_sender(p):
            continue
        last = sobs[-1]
        if same_person(p.sender, last.person):
            continue
        earlier = [t for t in sobs[:-1] if same_person(p.sender, t.person)]
        alias = None if earlier else next((t for t in sobs if _same_under_another_address(p.sender, t.person)), None)
        relay = not (earlier or alias) and _relay(p, last)
        where = (f"the sender's sign-off is at line {earlier[-1].lineno}, not last" if earlier
                 else f"the sender seems to be {alias.person}, signing with another address" if alias
                 else "sent from a mailbox without a person's name, for the in-body author, who signed off last"
                 if relay else "the sender has no sign-off at all")
        yield Hit(f"sent by {p.sender}, but the last Signed-off-by is {last.person}; {where}", patch=p.counter,
                  evidence=(f"mail From: {p.sender}",) + tuple(t.line for t in sobs),
                  severity=Severity.INFO if earlier or alias or relay else None,
                  advice=f"If {p.sender} handled the patch, add `Signed-off-by: {p.sender}` as the last "
                         "sign-off; if it is the same person with another address, sign off with the "
                         "address you send from.")


def _relay(p: Patch, last: Trailer) -> bool:
    """The mail was sent from a bare address (no display name: a company's sending gateway) for the
    in-body author, whose own sign-off is the last: the author certified the patch, and the mailbox
    only carried it. A named person sending someone else's patch handled it, and must sign off."""
    nameless = not p.sender.name.strip() or p.sender.name.strip().lower() == p.sender.email.lower()
    return nameless and p.author != p.sender and same_person(p.author, last.person)


def _letters(text: str) -> str:
    return re.sub(r"[^a-z]", "", text.lower())


def _subsequence(short: str, word: str) -> bool:
    """`bgg` in `brugger`: the letters in order, the first one first."""
    if not short or not word or short[0] != word[0]:
        return False
    rest = iter(word)
    return all(c in rest for c in short)


def _same_under_another_address(sender: Person, signer: Person | None) -> bool:
    """The sender's mailbox is another address of the signer's, as people's addresses are made
    from their names: the signer's mailbox with digits added (`zuoqilin1@163.com` for `zuoqilin
    <zuoqilin@yulong.com>`), or the signer's first name and surname in a mailbox's usual forms
    (`jane.doe`, `jdoe`, `doej`, `janed`, `matthias.bgg` for Matthias Brugger). A shared first name
    alone is not the same person: `jonathan.doe` did not sign as Jonathan Smith."""
    if signer is None or not sender.email:
        return False
    local = sender.email.split("@", 1)[0].lower()
    theirs = (signer.email or "").split("@", 1)[0].lower()
    if len(_letters(theirs)) >= 5 and local.startswith(theirs) and not _letters(local[len(theirs):]):
        return True
    words = [_letters(w) for w in signer.name.replace(",", " ").split()]
    words = [w for w in words if w]
    if len(words) < 2:
        return False
    first, last, mine = words[0], words[-1], _letters(local)
    forms = {first + last, first[0] + last, last + first, last + first[0], first + last[0]}
    if mine in forms:
        return True
    return len(first) >= 3 and mine.startswith(first) and _subsequence(mine[len(first):], last)


def _codev_problems(p: Patch):
    """(trailer, problem, severity) for each Co-developed-by that is not paired with its sign-off."""
    trailers = p.trailers
    for i, t in enumerate(trailers):
        if t.key != CODEV:
            continue
        if same_person(p.author, t.person):
            yield t, (f"Co-developed-by names the author {p.author}; the author is credited by From: "
                      "and signs off without it"), Severity.WARNING
            continue
        nxt = trailers[i + 1] if i + 1 < len(trailers) else None
        if nxt is not None and nxt.key == SOB and same_person(t.person, nxt.person):
            continue
        own = [s for s in trailers if s.key == SOB and same_person(t.person, s.person)]
        if own:
            yield t, (f"{t.person}'s Signed-off-by is at line {own[0].lineno}, not immediately after "
                      "the Co-developed-by"), Severity.WARNING
        else:
            yield t, f"co-developer {t.person} has no Signed-off-by", None


@rule("co-developed-by-without-signoff", family="signoff", severity="error",
      summary="A Co-developed-by is not immediately followed by the same person's Signed-off-by")
def co_developed_by_without_signoff(series, ctx):
    """Why: Every co-author must certify the DCO, so each Co-developed-by is immediately followed by
    that person's Signed-off-by. A co-developer with no sign-off is an error; a sign-off in the
    wrong place, or a Co-developed-by naming the From: author (who needs none), is a warning.
    Source: kernel submitting-patches ("When to use Acked-by:, Cc:, and Co-developed-by:");
    checkpatch BAD_SIGN_OFF.
    Bad:
      Co-developed-by: Ruowen Qin <ruqin@example.com>
      Signed-off-by: Jane Developer <jane@example.org>
    Good:
      Co-developed-by: Ruowen Qin <ruqin@example.com>
      Signed-off-by: Ruowen Qin <ruqin@example.com>
      Signed-off-by: Jane Developer <jane@example.org>
    """
    for p in _patches(series):
        for t, problem, severity in _codev_problems(p):
            who = t.person or Person(t.value, "")
            if severity is None:
                advice = (f"Add `Signed-off-by: {who}` on the line right after the Co-developed-by "
                          "(with their agreement), or drop the Co-developed-by.")
            elif "names the author" in problem:
                advice = "Remove the Co-developed-by line; keep the author's Signed-off-by."
            else:
                advice = f"Move `Signed-off-by: {who}` to the line right after `{t.line}`."
            yield Hit(problem, patch=p.counter, evidence=(t.line,) + tuple(s.line for s in signoffs(p)),
                      advice=advice, severity=severity)
