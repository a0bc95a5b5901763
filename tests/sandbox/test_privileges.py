"""The gateway process itself: non-dumpable, a child subreaper that can kill every
descendant, escaped ones included. Each runs in a fresh interpreter: these flags belong to
the whole process and must not leak into the test run."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux only")


def _python(code: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_the_gateway_can_make_itself_non_dumpable() -> None:
    result = _python("""
        import json
        from gateway.sandbox import is_dumpable, make_undumpable
        before = is_dumpable()
        print(json.dumps({"before": before, "made": make_undumpable(), "after": is_dumpable()}))
    """)
    assert result == {"before": True, "made": True, "after": False}


ESCAPE = """
    import json, os, subprocess
    import gateway.sandbox._descendants as walk
    from gateway.sandbox import become_subreaper, descendants, kill_descendants, reap_adopted
    if not {children_files}:  # walk the whole of /proc, as where the kernel lacks them
        walk._children_files = lambda: False
    subreaper = {subreaper} and become_subreaper()
    # A child that starts a grandchild in a new session, then exits: the grandchild escapes
    # the child's process group and is orphaned.
    child = subprocess.Popen(["/bin/sh", "-c", "setsid sleep 60 >/dev/null 2>&1 & echo $!"],
                             stdout=subprocess.PIPE, start_new_session=True)
    grandchild = int(child.stdout.readline())
    child.wait()
    found = grandchild in descendants()
    killed = kill_descendants()
    try:  # adopted by a subreaper: ours to wait for until the kill has ended it
        os.waitid(os.P_PID, grandchild, os.WEXITED | os.WNOWAIT)
    except ChildProcessError:
        pass  # not adopted (no subreaper): nothing of ours to wait for or reap
    reaped = reap_adopted(known={{child.pid}})
    try:
        os.kill(grandchild, 0)
        alive = True
    except ProcessLookupError:
        alive = False
    if alive:
        os.kill(grandchild, 9)
    print(json.dumps({{"found": found, "killed": grandchild in killed, "alive": alive,
                      "reaped": [pid for pid, _ in reaped] == [grandchild]}}))
"""


@pytest.mark.parametrize("children_files", [True, False])
def test_a_subreaper_finds_kills_and_reaps_an_escaped_grandchild(children_files: bool) -> None:
    result = _python(ESCAPE.format(subreaper=True, children_files=children_files))
    assert result == {"found": True, "killed": True, "alive": False, "reaped": True}


def test_without_the_subreaper_an_escaped_grandchild_is_out_of_reach() -> None:
    result = _python(ESCAPE.format(subreaper=False, children_files=True))
    assert result["found"] is False and result["killed"] is False
    assert result["alive"] is True  # outlives its gateway (killed by the script after)


def test_reaping_leaves_the_gateways_own_children_to_their_owners() -> None:
    result = _python("""
        import json, os, subprocess
        from gateway.sandbox import become_subreaper, reap_adopted
        become_subreaper()
        own = subprocess.Popen(["/bin/true"])
        os.waitid(os.P_PID, own.pid, os.WEXITED | os.WNOWAIT)  # exited, not reaped yet
        reaped = reap_adopted(known={own.pid})
        print(json.dumps({"reaped": reaped, "status": own.wait()}))
    """)
    assert result == {"reaped": [], "status": 0}
