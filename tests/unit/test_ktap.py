# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/ktap.py, the KTAP reader the test runner trusts."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
import ktap  # noqa: E402


def statuses(doc):
    return [(r.name, r.status) for r in doc.results]


def test_plain_document():
    docs = ktap.parse("KTAP version 1\n1..3\nok 1 a\nnot ok 2 b\nok 3 c # SKIP why\n")
    assert len(docs) == 1
    assert statuses(docs[0]) == [("a", "pass"), ("b", "fail"), ("c", "skip")]
    assert docs[0].problems() == []
    # A skip's detail is its reason, so a result line made again from it
    # does not say SKIP twice.
    assert docs[0].results[2].detail == "why"
    assert ktap.result_line(3, docs[0].results[2]) == "ok 3 c # SKIP why"


def test_noise_and_subtests_are_ignored():
    text = ("[ 1.0] console noise ok 5 not a result\nTAP version 13\n1..1\n"
            "  KTAP version 1\n  1..1\n  not ok 1 inner\nok 1 outer\nrandom\n")
    docs = ktap.parse(text)
    assert statuses(docs[0]) == [("outer", "pass")]


def test_timeout_directive_fails():
    docs = ktap.parse("KTAP version 1\n1..1\nnot ok 1 slow # TIMEOUT 120s\n")
    assert docs[0].results[0].status == "fail"
    assert docs[0].results[0].detail == "TIMEOUT 120s"


def test_short_document_is_a_problem():
    docs = ktap.parse("KTAP version 1\n1..3\nok 1 a\n")
    assert docs[0].problems() == ["plan says 3 tests, 1 reported"]


def test_missing_plan_is_a_problem():
    assert ktap.parse("KTAP version 1\nok 1 a\n")[0].problems() == ["no plan line"]


def test_several_documents_and_carriage_returns():
    docs = ktap.parse("KTAP version 1\r\n1..1\r\nok 1 a\r\nKTAP version 1\n1..1\nnot ok 1 b\n")
    assert [statuses(d) for d in docs] == [[("a", "pass")], [("b", "fail")]]


def test_no_document():
    assert ktap.parse("just noise\nok 1 outside any document\n") == []


def test_summary_and_result_lines():
    results = [ktap.Result("a", "pass"), ktap.Result("b", "fail", "exit 1"),
               ktap.Result("c", "skip", "no IBT")]
    assert ktap.summary_line(results) == "1 passed, 1 failed, 1 skipped"
    assert ktap.result_line(2, results[1], "  ") == "  not ok 2 b # exit 1"
    assert ktap.result_line(3, results[2]) == "ok 3 c # SKIP no IBT"
