"""Renders the golden observations and format errors of profiles/mini_swe_agent/mod_test.ts with the upstream
templates and jinja2, so the goldens do not come from the profile under test.

Usage: python3 gen.py <mini-swe-agent checkout at v2.4.6>   (needs jinja2 and PyYAML; run with CPython 3.11/3.12)
"""

import json
import pathlib
import sys

import yaml
from jinja2 import StrictUndefined, Template

root = pathlib.Path(sys.argv[1]) / "src" / "minisweagent" / "config"
here = pathlib.Path(__file__).parent
tool = yaml.safe_load((root / "mini.yaml").read_text())["model"]
text = yaml.safe_load((root / "mini_textbased.yaml").read_text())["model"]


def render(template, **kw):
    return Template(template, undefined=StrictUndefined).render(**kw)


def out(output, returncode=0, exception_info=""):
    return {"output": output, "returncode": returncode, "exception_info": exception_info}


def timeout(cmd, seconds):
    return f"An error occurred while executing the command: Command '{cmd}' timed out after {seconds} seconds"


def json_error(raw):
    try:
        json.loads(raw)
    except Exception as e:  # noqa: BLE001 - as parse_toolcall_actions does
        return f"Error parsing tool call arguments: {e}."
    raise AssertionError(raw)


seq = "".join(f"{i}\n" for i in range(1, 3001))
observations = {
    "small": out("hello\n"),
    "quotes": out("it's <a> & \"b\"\n/bin/sh: 1: nosuchcmd: not found\n", 127),
    "long": out(seq),
    "timeout": out("partial\n", -1, timeout("echo partial; sleep 10", 2)),
}
for name, o in observations.items():
    (here / f"tool_{name}.txt").write_text(render(tool["observation_template"], output=o))
    (here / f"text_{name}.txt").write_text(render(text["observation_template"], output=o))

tool_errors = {
    "no_tool_calls": "No tool calls found in the response. Every response MUST include at least one tool call.",
    "bad_json": (json_error('{"command": "ls",}') + "Missing 'command' argument in bash tool call.").strip(),
    "empty_args": (json_error("") + "Missing 'command' argument in bash tool call.").strip(),
    "unknown_tool": "Unknown tool 'shell'.",
    "unknown_tool_no_command": "Unknown tool 'python'.Missing 'command' argument in bash tool call.",
    "missing_command": "Missing 'command' argument in bash tool call.",
}
for name, error in tool_errors.items():
    rendered = render(tool["format_error_template"], error=error, actions=[], has_tool_calls=name != "no_tool_calls")
    (here / f"tool_error_{name}.txt").write_text(rendered)

for n in (0, 2):
    error = f"Expected exactly 1 action, found {n}."
    rendered = render(text["format_error_template"], error=error, actions=["x"] * n)
    (here / f"text_error_{n}.txt").write_text(rendered)
