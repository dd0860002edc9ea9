"""One reading of addresses in header text (mail/headers.py: mailbox, address_of, mailboxes,
address_list) for every stage: the shapes it takes and the near misses. Before, six places read
them, two by cutting at every comma, so `"Doe, John" <jd@example.org>` became two recipients."""

from __future__ import annotations

import pytest

from mailfactory import Mail, patch_body, thread, write
from reviewtool.mail.headers import address_list, address_of, mailbox, mailboxes

DOE = '"Doe, John" <jd@example.org>'


@pytest.mark.parametrize("text,name,addr", [
    ("Jane Dev <jane@example.org>", "Jane Dev", "jane@example.org"),
    ('"Dev, Jane" <jane@example.org>', "Dev, Jane", "jane@example.org"),
    ("<jane@example.org>", "", "jane@example.org"),
    ("jane@example.org", "", "jane@example.org"),
    ("jane@example.org (Jane Dev)", "Jane Dev", "jane@example.org"),
    ("=?utf-8?q?J=C3=B6rg_Dev?= <jorg@example.org>", "=?utf-8?q?J=C3=B6rg_Dev?=", "jorg@example.org"),
    ("", "", ""),
])
def test_the_shapes_of_one_mailbox(text, name, addr):
    assert mailbox(text) == (name, addr)


def test_address_of_falls_back_to_the_text_that_holds_none():
    assert address_of("Jane Dev <Jane@Example.org>") == "Jane@Example.org"  # its case as given
    assert address_of("undisclosed-recipients:;") == "undisclosed-recipients:;"


def test_a_list_is_cut_at_the_commas_outside_quotes():
    assert address_list([f"{DOE}, Ann <ann@example.org>", "x@example.org,"]) == \
        (DOE, "Ann <ann@example.org>", "x@example.org")
    assert [a for _, a in mailboxes([f"{DOE}, Ann <ann@example.org>"])] == ["jd@example.org", "ann@example.org"]
    # the near miss: a quote left open is cut at every comma, as nothing better can be said
    assert address_list(['"Doe, John <jd@example.org>']) == ('"Doe', "John <jd@example.org>")


def test_the_reply_copies_a_recipient_whose_name_has_a_comma_once(tmp_path, check_json):
    """The model cut To/Cc at every comma: the reply of `check` (-f email, JSON "reply") copied
    `"Doe` and `John" <jd@example.org>` as two recipients."""
    mail = Mail("[PATCH net] net: foo: fix the bar path", patch_body(), cc=f"{DOE}, Ann <ann@example.org>")
    reply = check_json(write(tmp_path, thread(mail))).json["reply"]
    assert reply["cc"] == ["netdev@vger.kernel.org", DOE, "Ann <ann@example.org>"]


def test_lint_reads_sendemail_cc_as_the_mailboxes_it_lists(tmp_path, cli):
    from gitrepo import GitRepo

    repo = GitRepo(tmp_path / "repo")
    repo.commit("foo: start\n\nStart.\n", {"a.c": "int a;\n"})
    repo.git("checkout", "-q", "-b", "work")
    repo.git("branch", "--set-upstream-to=main")
    repo.commit("foo: fix it\n\nFix it.\n\nSigned-off-by: Ann Author <ann@example.org>\n", {"a.c": "int b;\n"})
    repo.git("config", "sendemail.cc", f"{DOE}, x@example.org")
    res = cli("lint", "--repo", str(repo.path), "--format", "json")
    assert res.code in (0, 1), res.err
    assert res.json["lint"]["cc"] == [DOE, "x@example.org"]
