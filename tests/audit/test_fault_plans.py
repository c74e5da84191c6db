"""The reference servers' fault plans (endpoints.faults): one option shape, parsed once, for every server the
audit's known-truth tests drive (tests/audit/test_audit_live.py, test_replay_live.py run them)."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

from inlong_proto.cli import main
from inlong_proto.endpoints.faults import Faults, parse_faults

SERVE_COMMANDS = (["dataproxy", "serve"], ["tubemq", "broker"], ["eventmesh", "serve"], ["eventmesh", "http-serve"])


def test_a_plan_is_read_from_the_command_line_form():
    assert parse_faults("2=drop, 5=FAIL,7=0.25,9=close,11=3") == {2: "drop", 5: "fail", 7: 0.25, 9: "close", 11: 3.0}
    assert parse_faults("") == {}


@pytest.mark.parametrize("text, says", [
    ("2", "write N=drop"), ("x=drop", "write N=drop"), ("0=drop", "numbered from 1"), ("2=lose", "choose drop"),
    ("2=-1", "choose drop"), ("2=nan", "choose drop"), ("2=drop,2=fail", "has a fault already")])
def test_a_bad_plan_says_what_is_wrong(text, says):
    with pytest.raises(ValueError, match=says):
        parse_faults(text)


def test_faults_number_the_counted_requests_and_list_what_they_did():
    faults = Faults({2: "drop", 3: 0.5})
    assert [faults.next() for _ in range(4)] == [None, "drop", 0.5, None]
    assert faults.faulted == [(2, "drop"), (3, 0.5)] and faults.counted == 4
    assert not Faults() and Faults({1: "fail"})
    with pytest.raises(ValueError):
        Faults({1: "lose"})


@pytest.mark.parametrize("command", SERVE_COMMANDS, ids=" ".join)
def test_every_reference_server_takes_the_same_option(command):
    help_text = CliRunner().invoke(main, [*command, "--help"]).output
    assert "--faults PLAN" in help_text
    bad = CliRunner().invoke(main, [*command, "--port", "0", "--faults", "2=lose"])
    assert bad.exit_code == 2 and "choose drop, fail, close or a delay" in bad.output
