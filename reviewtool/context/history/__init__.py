"""What the local repository's history answers: which commits the shas in a mail name, which trees
hold them, whether a series applies, where the trees' refs are; every question asked in batches
(repository.History), never changing the repository (apply.py works in a scratch index).

repository.py the History object; stage.py its context stage; values.py what it answers with; ranges.py
its methods over ranges and patches; scan.py the parallel log scan; notes.py what it could not do;
remotes.py the remotes that hold the profiles' trees; options.py --repo and --tree;
context/history/subjects_cache.py the subject log kept between commands.
"""
