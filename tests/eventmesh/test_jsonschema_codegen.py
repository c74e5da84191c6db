"""tools/ksygen/jsonschema_codegen.py: deterministic output, the supported subset enforced, Jackson's reading."""
import json
import shutil
from pathlib import Path

import pytest

from inlong_proto import ValidationError
from inlong_proto.generated.eventmesh import commands
from inlong_proto.generated.eventmesh.bodies import subscription, user_agent
from tools.ksygen import jsonschema_codegen
from tools.ksygen.expr import GenerationError

ROOT = Path(__file__).resolve().parents[2]


def test_output_is_deterministic(tmp_path):
    first = jsonschema_codegen.generate(ROOT / "specs", tmp_path / "a")
    second = jsonschema_codegen.generate(ROOT / "specs", tmp_path / "b")
    assert [p.relative_to(tmp_path / "a") for p in first] == [p.relative_to(tmp_path / "b") for p in second]
    for a, b in zip(first, second):
        assert a.read_bytes() == b.read_bytes(), a


def copy_specs(tmp_path: Path) -> Path:
    specs = tmp_path / "specs"
    shutil.copytree(ROOT / "specs" / "eventmesh", specs / "eventmesh",
                    ignore=shutil.ignore_patterns("*.ksy", "*.proto"))
    return specs


def edit(specs: Path, name: str, change) -> None:
    path = specs / "eventmesh" / name
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


@pytest.mark.parametrize("change, message", [
    (lambda d: d["properties"]["ip"].update({"oneOf": [{"type": "string"}]}), "oneOf"),
    (lambda d: d["properties"]["ip"].pop("description"), "needs a description"),
    (lambda d: d["properties"]["ip"].update({"format": "email"}), "format 'email'"),
    (lambda d: d["properties"]["ip"].update({"$ref": "#/$defs/Nope", "type": None}), "$ref"),
    (lambda d: d.update({"$schema": "http://json-schema.org/draft-07/schema#"}), "$schema"),
    (lambda d: d["properties"].update({"nested": {"description": "x", "type": "object",
                                                  "properties": {"a": {"description": "y"}}}}), "PascalCase title"),
])
def test_unsupported_schemas_stop_generation(tmp_path, change, message):
    specs = copy_specs(tmp_path)
    edit(specs, "bodies/redirect_info.schema.json", change)
    with pytest.raises(GenerationError) as caught:
        jsonschema_codegen.generate(specs, tmp_path / "out")
    assert message in str(caught.value) and "redirect_info" in str(caught.value)


def test_command_table_is_checked(tmp_path):
    specs = copy_specs(tmp_path)
    path = specs / "eventmesh" / "commands.yaml"
    path.write_text(path.read_text().replace("body: redirect_info,", "body: nothing_like_it,"))
    with pytest.raises(GenerationError, match="nothing_like_it"):
        jsonschema_codegen.generate(specs, tmp_path / "out")


def test_jackson_coercions_and_strictness():
    agent = user_agent.from_json({"pid": "12", "port": "", "unack": None, "host": 7, "env": True, "x": [1]})
    assert (agent.pid, agent.port, agent.unack, agent.host, agent.env, agent.extra) == (12, 0, 0, "7", "true", {"x": [1]})
    for bad in ({"port": "abc"}, {"port": 2**31}, {"port": [1]}, {"env": {}}, []):
        with pytest.raises(ValidationError):
            user_agent.from_json(bad, "package.body", 114)
    item = {"topic": "T", "mode": "CLUSTERING", "type": "SYNC"}
    assert subscription.from_json({"topicList": [item]}).to_json() == {"topicList": [item]}
    with pytest.raises(ValidationError) as caught:
        subscription.from_json({"topicList": [item, {**item, "mode": "clustering"}]}, "package.body", 99)
    assert (caught.value.offset, caught.value.field) == (99, "package.body.topicList[1].mode")


def test_tables_match_the_facts():
    assert len(commands.Command) == 37
    kinds = {c.name: info.body for c, info in commands.COMMANDS.items()}
    assert kinds["HELLO_REQUEST"] == kinds["RECOMMEND_REQUEST"] == "user_agent"
    assert kinds["SUBSCRIBE_REQUEST"] == kinds["UNSUBSCRIBE_REQUEST"] == "subscription"
    assert kinds["REDIRECT_TO_CLIENT"] == "redirect_info"
    assert {name for name, kind in kinds.items() if kind == "none"} == {
        "HEARTBEAT_REQUEST", "LISTEN_REQUEST", "SYS_LOG_TO_LOGSERVER", "TRACE_LOG_TO_LOGSERVER", "REGISTER_REQUEST",
        "REGISTER_RESPONSE", "UNREGISTER_REQUEST", "UNREGISTER_RESPONSE"}
    assert commands.PROTOCOL_TYPES["cloudevents"].raw and commands.DEFAULT_PROTOCOL_TYPE == "eventmeshmessage"
    replies = {c.name: info.error_reply.name for c, info in commands.COMMANDS.items() if info.error_reply != c}
    assert replies["REQUEST_TO_SERVER"] == "RESPONSE_TO_CLIENT" and len(replies) == 10
