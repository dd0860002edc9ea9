"""`reviewtool profile learn`: a list's conventions, learned from its own archive.

archive.py reads the archive (the inputs triage takes) into postings and ties the maintainers'
replies (mail/replies.py) to them: what was applied, to which tree, by whom, and what was sent
back. facts.py reviews each applied or sent-back posting with the check pipeline and keeps the
few facts the learners need. trees.py learns the trees, their kinds and the sub-trees that feed
them; conventions.py the list's habits (prefixes, tags, sign-offs, changelogs, Fixes, sizes,
the merge window, appliers, lists, paths); severities.py which rules' findings the maintainers
accept. write.py writes the profile TOML with the evidence beside each setting.
"""
