"""What the guard refuses (``GuardPlan``), decided on paths alone: the supervisor asks it
of every path a trapped call names (tests/sandbox/test_guard.py runs it for real)."""

from __future__ import annotations

from pathlib import Path

from gateway.sandbox import SandboxPolicy, grants_from, package_sandbox
from gateway.sandbox._guard import GuardPlan, guard_plan

W = "/work/project"
PLAN = GuardPlan(roots=(W,))


def test_a_protected_name_is_refused_at_any_depth() -> None:
    assert PLAN.refusal(f"{W}/.git") == ".git"
    assert PLAN.refusal(f"{W}/sub/deeper/.envrc") == "sub/deeper/.envrc"
    assert PLAN.refusal(f"{W}/a/package.json") == "a/package.json"


def test_a_path_beneath_a_protected_name_is_refused_by_that_name() -> None:
    assert PLAN.refusal(f"{W}/sub/.git/hooks/pre-commit") == "sub/.git"


def test_other_names_in_the_workspace_are_allowed() -> None:
    assert PLAN.refusal(f"{W}/src/index.js") is None
    assert PLAN.refusal(f"{W}/.gitignore") is None  # not .git
    assert PLAN.refusal(W) is None


def test_paths_outside_every_guarded_folder_are_not_the_guards_business() -> None:
    assert PLAN.refusal("/home/user/.git/config") is None
    assert PLAN.refusal(f"{W}-other/.envrc") is None  # a sibling sharing the prefix


def test_a_reopened_path_opens_itself_and_what_is_beneath_it_only() -> None:
    plan = GuardPlan(roots=(W,), allowed=(f"{W}/.git/hooks",))
    assert plan.refusal(f"{W}/.git/hooks/pre-commit") is None
    assert plan.refusal(f"{W}/.git/hooks") is None
    assert plan.refusal(f"{W}/.git/config") == ".git"
    assert plan.refusal(f"{W}/.git") == ".git"


def test_a_protected_name_beneath_a_reopened_path_is_protected_again() -> None:
    plan = GuardPlan(roots=(W,), allowed=(f"{W}/.nimlet/extensions/mine",))
    assert plan.refusal(f"{W}/.nimlet/extensions/mine/state.json") is None
    assert plan.refusal(f"{W}/.nimlet/extensions/mine/.git") == ".nimlet/extensions/mine/.git"
    assert plan.refusal(f"{W}/.nimlet/extensions/other/x") == ".nimlet"


def test_nothing_beneath_node_modules_is_refused() -> None:
    assert PLAN.refusal(f"{W}/node_modules/dep/package.json") is None
    assert PLAN.refusal(f"{W}/node_modules/dep/.github/workflows/ci.yml") is None
    assert PLAN.refusal(f"{W}/package.json") == "package.json"


def test_dot_dot_is_resolved_before_the_decision() -> None:
    assert PLAN.refusal(f"{W}/sub/../.envrc") == ".envrc"


def test_a_symlink_leading_out_of_its_workspace_is_flagged_and_one_within_is_not() -> None:
    assert PLAN.link_target_leaves(f"{W}/link", "/etc")
    assert PLAN.link_target_leaves(f"{W}/sub/up", "../..")
    assert not PLAN.link_target_leaves(f"{W}/sub/link", "../src")
    assert not PLAN.link_target_leaves(f"{W}/link", f"{W}/src")
    assert not PLAN.link_target_leaves("/elsewhere/link", "/etc")  # not in the workspace


def test_the_plan_survives_its_trip_to_the_trampoline() -> None:
    plan = GuardPlan(roots=(W,), allowed=(f"{W}/.envrc",))
    assert GuardPlan.from_json(plan.to_json()) == plan


def test_guard_plan_resolves_its_roots_and_joins_reopened_names(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    plan = guard_plan([tmp_path / "link"], reopened=[".envrc"], own=None)
    assert plan is not None
    assert plan.roots == (str(real),) and plan.allowed == (f"{real}/.envrc",)
    assert guard_plan([]) is None


def test_workspace_write_guards_the_workspace_and_a_read_only_workspace_is_not_guarded(
    tmp_path: Path,
) -> None:
    common = {"home": tmp_path / "home", "package_id": "p", "package_root": None,
              "workspace": tmp_path, "limits": None}  # fmt: skip
    writable = package_sandbox(grants=grants_from(["workspace.write"]), **common)  # type: ignore[arg-type]
    readable = package_sandbox(grants=grants_from([]), **common)  # type: ignore[arg-type]
    assert writable.policy.guarded == (tmp_path,)
    assert readable.policy.guarded == () and SandboxPolicy().guarded == ()
