"""The gateway's port of Pi's prompt-template argument rules (adapters/pi/_prompts.py) gives
what pi's own ``parseCommandArgs`` and ``substituteArgs`` give, run in a real Node."""

from __future__ import annotations

import json
import subprocess

import pytest

from adapters._sidecars import sidecar_dir
from adapters.pi import find_node
from adapters.pi._prompts import parse_command_args, substitute_args

TEMPLATE = "1=$1 2=$2 10=$10 0=$0 all=$@ args=$ARGUMENTS from2=${@:2} one=${@:2:1} zero=${@:0} "
TEMPLATE += "d=${4:-four} da=${@:-none} keep=$$1 {$1}"

ARGUMENTS = [
    "",
    "plain words here",
    '"quoted words" then more',
    "'single quoted' \"double\"",
    'say "it is \\"fine\\"" ok',
    "it's an apostrophe",
    '"" empty first',
    "x '' y",
    '"unclosed quote here',
    "tabs\tand\nnewlines   spaced",
    "a b c d e f g h i j k",
    'mid"quote stays',
    "unit\x1fseparator and\u00a0nbsp\u2003em",
]

READ = """
const [url, cases, template] = process.argv.slice(1);
const { parseCommandArgs, substituteArgs } = await import(url);
const out = JSON.parse(cases).map((text) => {
  const args = parseCommandArgs(text);
  return { args, text: substituteArgs(template, args) };
});
process.stderr.write(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def pi_results() -> list[dict[str, object]]:
    node = find_node()
    module = (
        sidecar_dir() / "node_modules/@earendil-works/pi-coding-agent/dist/core/prompt-templates.js"
    )
    if node is None or not module.is_file():
        pytest.skip("no Node or no pi-coding-agent installed (gateway setup)")
    done = subprocess.run(
        [node, "--input-type=module", "-e", READ, module.as_uri(), json.dumps(ARGUMENTS), TEMPLATE],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    results: list[dict[str, object]] = json.loads(done.stderr)
    return results


@pytest.mark.parametrize("index", range(len(ARGUMENTS)))
def test_arguments_split_and_substitute_as_in_pi(
    index: int, pi_results: list[dict[str, object]]
) -> None:
    args = parse_command_args(ARGUMENTS[index])
    assert args == pi_results[index]["args"]
    assert substitute_args(TEMPLATE, args) == pi_results[index]["text"]
