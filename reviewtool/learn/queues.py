"""Queues the list's posters name in the subject, learned as sub-trees of the trees they feed.

intel-wired-lan's postings are tagged `[PATCH iwl-next]` and `[PATCH iwl-net]` (the Intel
maintainers' queues), and no reply on the list names those trees: the queue's maintainer posts
the patches again to netdev, where the bot answers. A tag that no learned tree, sub-tree or alias
takes, carried by many of the list's postings, is such a queue when its kind can be told: from
the tree its name ends in (`iwl-net`: net's, fixes) or its name's words (`-next`: development).
Not from its Fixes tags: the archive reads those only for postings a reply settled, and no reply
settles a queue's. It feeds the profile's tree of that kind, and takes the files its postings
touch (their home).
"""

from __future__ import annotations

from collections import Counter, defaultdict

from .archive import Archive
from .counts import share
from .learned_profile import LearnedProfile
from .trees import home_of, kind_words

QUEUE_MIN = 10  # postings a tag needs
QUEUE_SHARE = 0.1  # of the list's postings


def learn_queues(lp: LearnedProfile, archive: Archive, elsewhere: set[str] = frozenset()) -> None:
    """`elsewhere`: the trees other profiles learned from the same archive take (lower case)."""
    known = ({t["name"].lower() for t in lp.trees} | {s["name"].lower() for s in lp.subtrees}
             | {a.lower() for a in lp.tree_aliases} | set(elsewhere))
    count: Counter = Counter()
    files: dict[str, Counter] = defaultdict(Counter)
    for p in archive.postings:
        if not p.patches:
            continue
        for t in {t.lower() for t in p.tags} - known:
            count[t] += 1
            files[t].update(f for fs in p.files.values() for f in fs)
    least = max(QUEUE_MIN, QUEUE_SHARE * len(archive.postings))
    for t in [t for t, n in count.most_common() if n >= least]:
        named = [tr for tr in lp.trees if t.endswith("-" + tr["name"].lower()) and tr.get("kind")]
        if named:  # "iwl-net": the queue named after the tree it feeds
            kind, why = named[0]["kind"], f"its name ends in {named[0]['name']}'s"
        else:
            kind = kind_words(t)
            why = f"its name says {'new work' if kind == 'development' else 'fixes'}"
        fed = [tr["name"] for tr in lp.trees if tr.get("kind") == kind] if kind else []
        if len(fed) != 1:
            lp.left_out.append(f"the tag [{t}] ({count[t]} postings): "
                               + ("no tree of its kind to feed" if kind else "its kind cannot be told"))
            continue
        home = home_of(files[t])
        lp.subtrees.append({"name": t, "feeds": fed[0], "git": None, "paths": [home] if home else [],
                            "source": f"{share(count[t], len(archive.postings))} postings are tagged [{t}], a tree no "
                                      f"reply names: a queue that feeds {fed[0]} ({kind}: {why})"})
