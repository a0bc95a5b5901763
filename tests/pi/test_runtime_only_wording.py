"""What ``pi.contributions_runtime_only`` says, as ``gateway inspect DIR`` shows it: a count
of extension modules in words that agree with it ("1 extension module registers", "2
extension modules register"), never "module(s)"."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._cli_runner import cli
from tests.adapters._helpers import write_tree


@pytest.mark.parametrize(
    ("count", "said"),
    [(1, "1 extension module registers"), (2, "2 extension modules register")],
)
def test_the_runtime_only_note_counts_extension_modules_in_words(
    tmp_path: Path, count: int, said: str
) -> None:
    modules = [f"./ext{n}.ts" for n in range(count)]
    package = write_tree(tmp_path / "src" / "counted", {
        "package.json": {"name": "counted", "version": "1.0.0", "pi": {"extensions": modules}},
        **{module[2:]: "export default () => {}\n" for module in modules},
    })  # fmt: skip
    done = cli(tmp_path / "home", "inspect", str(package))
    assert done.returncode == 0, done.stderr
    shown = done.stdout + done.stderr
    assert (
        f"package.json: {said} tools, commands and event handlers at runtime "
        "[pi.contributions_runtime_only]"
    ) in shown
    assert "(s)" not in shown
