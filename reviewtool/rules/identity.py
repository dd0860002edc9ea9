"""Who a patch says it is from: a person, not a team's mailbox; and the trailers a driver's
maintainers ask every patch to carry."""

from __future__ import annotations

import re

from ..model.series import Person
from .registry import Hit, rule

# Mailbox and display-name words of shared mailboxes (`linux-team@`, `Wireless Driver Group`).
_TEAM_WORDS = {"team", "group", "list", "lists", "dl", "pdl", "noreply", "no-reply", "devnull", "robot", "bot",
               "maintainers", "developers"}
_SPLIT_RE = re.compile(r"[^a-z0-9]+")


def _team_words(person: Person) -> set[str]:
    local = person.email.split("@", 1)[0].lower() if person.email else ""
    words = set(_SPLIT_RE.split(local)) | set(_SPLIT_RE.split(person.name.lower()))
    return words & _TEAM_WORDS


@rule("generic-address", family="signoff", severity="info",
      summary="The author or a sign-off is a team or bot mailbox, not a person")
def generic_address(series, ctx):
    """Why: A Signed-off-by certifies the DCO in a person's name, and the author is who git records
    and who answers for the patch; a team list or a bot address (`wifi-team@`, `Driver Group
    <dl-drv@...>`) is nobody in particular. Maintainers ask for the person's own name and
    address. A note: some companies send through shared gateways that the maintainers accept.
    Source: kernel submitting-patches ("Sign your work": "using a known identity (sorry, no
    anonymous contributions)"); linux-wireless reviews of team-mailbox postings.
    Bad:
      From: Wireless Driver Team <wifi-team@example.com>
      Signed-off-by: Wireless Driver Team <wifi-team@example.com>
    Good:
      From: Jane Developer <jane.developer@example.com>
      Signed-off-by: Jane Developer <jane.developer@example.com>
    """
    for p in series.patches:
        people = [("the author", p.author)] + [(t.name, t.person) for t in p.trailers
                                               if t.key in ("signed-off-by", "co-developed-by") and t.person]
        for role, person in people:
            words = _team_words(person)
            if words:
                yield Hit(f"{role} {person} is a shared mailbox ('{sorted(words)[0]}'), not a person", patch=p.counter,
                          evidence=(f"{role}: {person}",),
                          advice="Author and sign off with your own name and address (git config user.name, "
                                 "user.email); a shared list can be Cc'd.")
                break


@rule("trailer-required", family="trailers", severity="info",
      summary="A patch to a driver whose maintainers ask for a trailer (Tested-on: for ath10k/11k/12k) lacks it")
def trailer_required(series, ctx):
    """Why: Some driver maintainers ask every patch to carry a trailer of their own: the ath10k,
    ath11k and ath12k maintainers want `Tested-on:` naming the hardware and firmware the patch was
    tested with, so a regression can be traced to the configurations that were tried. The
    trailers, their paths and sources are profile data (`required_trailers`). A note: patches
    without one are applied when the change needs no hardware test.
    Source: the ath10k/ath11k/ath12k wiki ("submitting patches": Tested-on tag); linux-wireless
    reviews ("please add Tested-on").
    Bad:
      wifi: ath11k: fix the rx filter
      Signed-off-by: Jane Developer <jane@example.org>
    Good:
      wifi: ath11k: fix the rx filter

      Tested-on: QCN9074 hw1.0 PCI WLAN.HK.2.5.0.1-01100-QCAHKSWPL_SILICONZ-1
      Signed-off-by: Jane Developer <jane@example.org>
    """
    for want in ctx.profile.settings.get("required_trailers", ()) or ():
        name, paths = str(want.get("name", "")), tuple(want.get("paths", ()))
        if not name or not paths:
            continue
        key = name.lower()
        for p in series.patches:
            touched = [f.path for f in p.diff.files if f.path.startswith(paths)]
            if not touched or any(t.key == key for t in p.trailers) or any(
                    line.lower().startswith(key + ":") for line in p.message_lines):
                continue
            yield Hit(f"{p.subject.summary[:60]} touches {touched[0]} but carries no {name}: line", patch=p.counter,
                      evidence=(p.subject.raw, touched[0]),
                      advice=f"Add `{name}: ...` above the Signed-off-by" + (f" ({want['source']})" if
                                                                               want.get("source") else "") + ".")
