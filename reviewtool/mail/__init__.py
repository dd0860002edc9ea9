"""Mail-level reading that needs neither b4 nor the review model: what one mail says.

replies.py reads one maintainer's reply (applied, changes requested, ...) against the table of
reply forms (reply_forms.py, reviewtool/data/reply-forms.toml); reply_lists.py reads the patch
lists those replies carry.
"""
