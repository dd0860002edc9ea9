"""What a patch's words mean, class by class, from the documented policy (submitting-patches:
"describe the user-visible impact", a Fixes tag for bugs; maintainer-netdev: net takes fixes,
net-next new work and clean-ups), each with near-miss negatives. The phrases are data
(reviewtool/data/phrases.toml); these tests read through the classifier and the rules, never a
regex by itself."""

from mailfactory import DEFAULT_DIFF, Mail, cover_body, hunk_diff, patch_body, thread, write

from reviewtool.context.phrases import sentences, table

SOB = "Signed-off-by: Jane Developer <jane@example.org>"
FIXES = 'Fixes: 1234567890ab ("net: foo: add the bar path")\n' + SOB
NETLINK_DIFF = hunk_diff("net/core/foo.c", [], ['	[FOO_A_RING_SIZE] = { .type = NLA_U32 },'])
KFREE_TWICE = hunk_diff("drivers/net/ethernet/foo/foo.c", ["	kfree(priv->buf);"], [], "	kfree(priv->buf);",
                        "	return 0;")
UNLOCK_TWICE = hunk_diff("drivers/net/ethernet/foo/foo.c", ["		spin_unlock(&priv->lock);"], [],
                         "		goto out;", "	}")
UNUSED_VAR = hunk_diff("drivers/net/ethernet/foo/foo.c", ["	int unused;"], [], "{", "	return 0;")


def hits(res, rule):
    return [f for f in res.json["findings"] if f["rule"] == rule]


def patch_of(res):
    (p,) = res.json["verdict"]["patches"]
    return p


def one(tmp_path, check_json, subject, message, trailers=SOB, diff=DEFAULT_DIFF, name="p.mbox"):
    return check_json(write(tmp_path, thread(Mail(subject, patch_body(message, trailers=trailers, diff=diff))), name))


def test_prose_that_reports_no_bug_does_not_make_new_work_a_fix(tmp_path, check_json):
    # Feature descriptions that borrow a bug word: none is a bug report.
    for i, message in enumerate((
            "Add a ring size attribute. Tests show no regression in throughput.",
            "Add a ring size attribute. A size above the hardware limit will fail with -EINVAL.",
            "Add a ring size attribute; taking the lock once avoids any future deadlock with the reset path.",
            "Add crash dump support for the firmware: the dump is read through devlink.",
            "This creates a debugfs file for errors the firmware reports.")):
        res = one(tmp_path, check_json, "[PATCH net-next] net: foo: add a ring size attribute", message,
                  diff=NETLINK_DIFF, name=f"f{i}.mbox")
        assert patch_of(res)["kind"] == "development", message
        assert not hits(res, "tree-mismatch") and not hits(res, "fixes-missing"), message


def test_a_bug_told_in_prose_is_a_fix(tmp_path, check_json):
    # The near misses of the test above: the same words, saying what goes wrong for users.
    for i, message in enumerate((
            "Unbinding the device while traffic runs causes a crash in the rx path.",
            "The ring is reallocated on every reset, and the old one is never freed.",
            "Since the conversion to the new API the link no longer works after a suspend.",
            "Receiving a short frame leads to an out-of-bounds read of the descriptor.")):
        res = one(tmp_path, check_json, "[PATCH net-next] net: foo: reset the rx ring", message, name=f"b{i}.mbox")
        assert patch_of(res)["kind"] == "fix", message
        assert hits(res, "fixes-missing"), message
        (doubt,) = hits(res, "tree-mismatch")  # a fix for net-next without Fixes: which tree is a doubt
        assert "it may be net material" in doubt["message"]
    # A change that makes a lock cheaper to take describes no bug.
    res = one(tmp_path, check_json, "[PATCH net-next] net: foo: take the stats lock for reading",
              "Lookups only read the table. Take the lock for reading, so they stop queueing behind each other.",
              name="rw.mbox")
    assert not hits(res, "tree-mismatch") and not hits(res, "fixes-missing")


def test_negation_and_assumption_are_read(tmp_path):
    t = table()
    assert t["bug-prose"].first(sentences(["There is no regression in throughput."])) is None
    assert t["bug-prose"].first(sentences(["This does not cause a crash."])) is None
    assert t["bug-prose"].first(sentences(["The link no longer works after resume."])).phrase == "stopped-working"
    assert t["no-bug"].first(sentences(["We assumed this could not happen, but it does."])) is None
    assert t["no-bug"].first(sentences(["This looked theoretical, but syzbot hits it."])) is None
    hit = t["no-bug"].first(sentences(["No current user passes a NULL ops pointer, but the checker cannot know."]))
    assert hit is not None and hit.phrase == "no-caller"


def test_real_fixes_keep_their_fixes_tag(tmp_path, check_json):
    cases = {
        "assumed": ("[PATCH net] net: foo: check the length", "We assumed the length could not be zero, but the "
                    "firmware sends empty frames after a reset.", DEFAULT_DIFF),
        "syzbot": ("[PATCH net] net: foo: take the lock in the timer", "This race looked theoretical, but syzbot "
                   "hits it within minutes.", DEFAULT_DIFF),
        "kfree": ("[PATCH net] net: foo: remove duplicated kfree()", "The buffer is freed twice on the error path.",
                  KFREE_TWICE),
        "unlock": ("[PATCH net] net: foo: remove redundant spin_unlock()", "The lock is released before the goto.",
                   UNLOCK_TWICE),
    }
    for name, (subject, message, diff) in cases.items():
        res = one(tmp_path, check_json, subject, message, FIXES, diff=diff, name=f"{name}.mbox")
        assert not hits(res, "fixes-not-needed"), name
        assert patch_of(res)["tree"] == "net" and not hits(res, "tree-mismatch"), name
    # Near misses: an unused variable removed, and an author who says no caller can hit it.
    res = one(tmp_path, check_json, "[PATCH net] net: foo: remove unused variable", "It is never read.", FIXES,
              diff=UNUSED_VAR, name="unused.mbox")
    assert "removes unused code" in hits(res, "fixes-not-needed")[0]["message"]
    res = one(tmp_path, check_json, "[PATCH net] net: foo: check the ops pointer", "No current user passes a NULL "
              "ops pointer, but the checker cannot know.", FIXES, name="nocaller.mbox")
    assert "'No current user passes'" in hits(res, "fixes-not-needed")[0]["message"]


def test_a_bug_the_summary_names_beats_the_tool_that_found_it(tmp_path, check_json):
    for i, subject in enumerate(("[PATCH net] net: foo: fix refcount leak found by coccinelle",
                                 "[PATCH net] net: foo: fix an endianness bug reported by sparse",
                                 "[PATCH net] net: foo: fix use-after-free found by smatch")):
        res = one(tmp_path, check_json, subject, "The reference is not dropped on the error path.", FIXES,
                  name=f"t{i}.mbox")
        assert patch_of(res)["kind"] == "fix" and not hits(res, "tree-mismatch"), subject
    # The near miss: a checker's warning silenced, with no bug named, is a clean-up.
    res = one(tmp_path, check_json, "[PATCH net] net: foo: fix sparse warnings", "Use __le16 for the field.",
              name="sparse.mbox")
    assert patch_of(res)["kind"] == "development"
    assert "is not net material" in hits(res, "tree-mismatch")[0]["message"]


def test_the_first_patch_reference_of_a_cover_sentence_decides(tmp_path, check_json):
    mails = [Mail("[PATCH net 0/2] net: foo: fix the reset path", cover_body(
                 "The first patch refactors the reset helper so that patch 2 can use it.\n"
                 "Patch 2 fixes the leak on reset.")),
             Mail("[PATCH net 1/2] net: foo: split the reset helper", patch_body("Split it.", trailers=FIXES)),
             Mail("[PATCH net 2/2] net: foo: free the ring on reset", patch_body("It leaks.", trailers=FIXES))]
    res = check_json(write(tmp_path, thread(*mails), "cover.mbox"))
    assert [f["patch"] for f in hits(res, "fixes-not-needed")] == [1]


def test_a_preparation_of_a_fix_may_carry_the_fixes_tag(tmp_path, check_json):
    mails = [Mail("[PATCH net 0/2] net: foo: fix the reset path", cover_body("Two patches for the reset path.")),
             Mail("[PATCH net 1/2] net: foo: factor out the reset helper",
                  patch_body("No functional change; the next patch needs the helper.", trailers=FIXES)),
             Mail("[PATCH net 2/2] net: foo: free the ring on reset",
                  patch_body("The ring is never freed on reset, which leaks memory.", trailers=FIXES))]
    res = check_json(write(tmp_path, thread(*mails), "prep.mbox"))
    assert not hits(res, "fixes-not-needed")
    # Alone, the same "No functional change" patch with a Fixes tag is flagged.
    res = one(tmp_path, check_json, "[PATCH net] net: foo: factor out the reset helper",
              "No functional change intended.", FIXES, name="alone.mbox")
    assert "'No functional change'" in hits(res, "fixes-not-needed")[0]["message"]


def test_resend_that_only_adds_recipients_is_not_a_new_version(tmp_path, check_json):
    for i, note in enumerate(("Resend to add netdev to Cc, no changes.", "Resending to include the maintainers.")):
        again = Mail("[PATCH RESEND net-next] net: foo: add the bar knob", patch_body("Add it.", notes=note))
        assert not hits(check_json(write(tmp_path, thread(again), f"r{i}.mbox")), "version-not-bumped"), note
    again = Mail("[PATCH RESEND net-next] net: foo: add the bar knob",
                 patch_body("Add it.", notes="Resent to fix the error path the review pointed at."))
    assert hits(check_json(write(tmp_path, thread(again), "changed.mbox")), "version-not-bumped")


def test_a_bare_fix_quotes_the_failure_its_message_tells(tmp_path, check_json):
    # submitting-patches: "describe the user-visible impact". A summary that only says "fix" rests
    # on the description's own account of what fails, when it gives one.
    for i, message in enumerate((
            "Migratable keys get the fixed attributes. This is backwards, and it also causes key creation "
            "to fail under a migratable parent.",
            "Reading the register before the reset makes the first probe fail on cold boot.")):
        res = one(tmp_path, check_json, "[PATCH net] net: foo: fix the attribute logic", message, name=f"t{i}.mbox")
        (missing,) = hits(res, "fixes-missing")
        assert "the description says" in missing["message"], message
    # Near misses: failing over is what the change is for, and a bare "fix" with no account of a
    # failure quotes only its subject.
    for i, message in enumerate((
            "Reorder the checks so that a lost carrier causes the bond to fail over at once.",
            "Reorder the checks before the register is read.")):
        res = one(tmp_path, check_json, "[PATCH net] net: foo: fix the attribute logic", message, name=f"n{i}.mbox")
        (missing,) = hits(res, "fixes-missing")
        assert "the description says" not in missing["message"], message
