"""What the thread's replies did: settled the series (applied, changes requested, deferred, rejected,
superseded: settled.py), or asked something of the author, took the posting back, reviewed it in
words or lifted its RFC tag (acts.py)."""
