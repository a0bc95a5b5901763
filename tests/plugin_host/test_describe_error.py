"""How the plugin host says why a server did not start, in one line."""

from __future__ import annotations

import errno

from adapters.plugin_host._channel import describe_error


def test_a_command_not_on_path_is_said_in_words() -> None:
    missing = FileNotFoundError(errno.ENOENT, "No such file or directory", "t7srv")
    assert describe_error(missing, "t7srv") == "t7srv: not found on PATH"
    group = ExceptionGroup("start", [missing])
    assert describe_error(group, "t7srv") == "t7srv: not found on PATH"


def test_a_missing_path_and_a_file_that_cannot_run_are_said_in_words() -> None:
    missing = FileNotFoundError(errno.ENOENT, "No such file or directory", "./bin/serve")
    assert describe_error(missing, "./bin/serve") == "./bin/serve: no such file"
    denied = PermissionError(errno.EACCES, "Permission denied", "./serve.py")
    assert (
        describe_error(denied, "./serve.py") == "./serve.py: permission denied (is it executable?)"
    )


def test_another_file_or_error_is_its_type_and_first_line() -> None:
    other = FileNotFoundError(errno.ENOENT, "No such file or directory", "notes.txt")
    assert describe_error(other, "t7srv").startswith("FileNotFoundError: [Errno 2]")
    assert describe_error(ValueError("bad\nmore")) == "ValueError: bad"
