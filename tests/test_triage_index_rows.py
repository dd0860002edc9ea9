"""The store's index rows (triage/index_rows.py): coded with marshal, checked on the way back."""

import gc

import pytest


def test_row_codecs_leave_the_collector_on(tmp_path):
    from reviewtool.sources.index import MailHead, MailRef
    from reviewtool.triage.index_rows import decode_rows, encode_rows

    head = MailHead(MailRef(str(tmp_path / "a.mbox"), 5, 10, True), "m@x", (), None, "s", "a@x", 1.0, None)
    blob = encode_rows([(head, b"\1" * 16)])
    assert gc.isenabled()
    assert decode_rows(blob, tmp_path / "a.mbox", "")[0][0].msgid == "m@x"
    assert gc.isenabled()


def test_a_row_part_that_is_not_mails_is_a_value_error(tmp_path):
    import marshal

    from reviewtool.triage.index_rows import _LEN, decode_rows

    def part(payload: bytes) -> bytes:
        return len(payload).to_bytes(_LEN, "big") + payload

    good = marshal.dumps((0, [(5, 10, True, False, False, "m@x", (), None, "s", "a@x", 1.0, None, False, b"d",
                              (), b"", False, None, "")]), 4)
    assert decode_rows(part(good), tmp_path / "a", "")[0][0].msgid == "m@x"
    for bad in (good[:-3],  # cut short
                marshal.dumps((0, [(5, 10, True, False, False, "m@x", ["p"], None, "s", "a@x", 1.0, None, False,
                                   b"d", (), b"", False, None, "")]), 4),  # parents as a list
                marshal.dumps((0, {"a": 1}), 4), b"\xff\x00garbage"):
        with pytest.raises(ValueError):
            decode_rows(part(bad), tmp_path / "a", "")


def test_a_header_with_undecodable_bytes_comes_back_as_it_went(tmp_path):
    from reviewtool.sources.index import MailHead, MailRef
    from reviewtool.triage.index_rows import decode_rows, encode_rows

    subject = b"caf\xe9 [PATCH]".decode("utf-8", "surrogateescape")
    head = MailHead(MailRef(str(tmp_path / "a"), 0, 3, True), "m@x", ("p@x",), "p@x", subject, "a@x", None, None,
                    paths=("a.c",), sketch=b"\x01\x02")
    assert decode_rows(encode_rows([(head, b"\2" * 16)]), tmp_path / "a", "") == [(head, b"\2" * 16)]
