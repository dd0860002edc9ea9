"""How the wireless maintainers routed the untagged postings of ../shared/cases/wireless/accepted:
applied tree, by whether the posting carries a Fixes tag and whether its subject (and its mail)
names a memory-safety or crash symptom. Shows whether any such class tells wireless from
wireless-next (it does not: see docs/development.md).

    python3 benchmarks/untagged_fixes.py A      # or B, or all
"""
import json, hashlib, re, mailbox, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from reviewtool.model.fixes import has_fixes_tag  # noqa: E402
D = Path(__file__).resolve().parents[2] / 'shared' / 'cases' / 'wireless' / 'accepted'
half = sys.argv[1]
WORDS = re.compile(r"(?i)\b(overflow|out[- ]of[- ]bounds|use[- ]after[- ]free|null (pointer )?dereference|crash|oops|panic|sleep(ing)?[- ]in[- ]atomic|deadlock|memory leak|leak|corrupt|kasan|syzbot|warn(ing)? splat|hang)\b")
rows = []
for j in sorted(D.glob('*.json')):
    if "AB"[hashlib.sha1(j.stem.encode()).digest()[0] & 1] != half and half != 'all': continue
    c = json.loads(j.read_text())
    if c.get('declared_tree'): continue
    mb = j.with_suffix('.mbox').read_text(errors='replace')
    subj = " ".join(c['subjects'])
    body = mb
    fixes = has_fixes_tag(mb)
    w = WORDS.search(subj) ; wb = WORDS.search(mb)
    rows.append((c['applied_to'], fixes, bool(w), bool(wb)))
import collections
C = collections.Counter(rows)
print('applied to     Fixes  subject-words  mail-words  postings')
for k in sorted(C):
    print(f'{k[0]:13} {k[1]!s:6} {k[2]!s:14} {k[3]!s:11} {C[k]}')
