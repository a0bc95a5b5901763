"""Content hashing of package trees: what the hash covers and when the cache is trusted."""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.store import ContentHashError, HashCache, _hashing, content_hash, fingerprint_changed


def make_tree(root: Path, files: dict[str, bytes]) -> Path:
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return root


TREE = {
    "package.json": b'{"name": "demo"}',
    "index.js": b"export default 1;\n",
    "node_modules/dep/index.js": b"module.exports = 2;\n",
    "node_modules/dep/big.bin": bytes(range(256)) * 64,
}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return make_tree(tmp_path / "pkg", TREE)


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Record every file whose contents the hasher reads."""
    seen: list[Path] = []
    real = _hashing._file_sha256

    def counting(path: Path) -> tuple[str, os.stat_result]:
        seen.append(path)
        return real(path)

    monkeypatch.setattr(_hashing, "_file_sha256", counting)
    return seen


@pytest.fixture
def settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pretend every scan happens a minute from now, so no file counts as just-modified."""
    monkeypatch.setattr(_hashing, "_now_ns", lambda: time.time_ns() + 60 * 10**9)


def test_hash_format_and_determinism(tree: Path) -> None:
    first, _ = content_hash(tree)
    second, _ = content_hash(tree)
    assert first == second
    assert first.startswith("sha256:") and len(first) == len("sha256:") + 64


def test_hash_does_not_depend_on_location(tmp_path: Path) -> None:
    a = make_tree(tmp_path / "a", TREE)
    b = make_tree(tmp_path / "b", dict(reversed(TREE.items())))
    assert content_hash(a)[0] == content_hash(b)[0]


@pytest.mark.usefixtures("settled")
def test_second_hash_of_unchanged_tree_reads_no_file(tree: Path, reads: list[Path]) -> None:
    first, cache = content_hash(tree)
    assert len(reads) == len(TREE)
    reads.clear()
    second, cache2 = content_hash(tree, cache)
    assert reads == []
    assert second == first
    assert cache2 == cache


@pytest.mark.usefixtures("settled")
def test_changed_file_changes_hash_and_only_it_is_reread(tree: Path, reads: list[Path]) -> None:
    first, cache = content_hash(tree)
    reads.clear()
    (tree / "index.js").write_bytes(b"export default 42;\n")
    second, _ = content_hash(tree, cache)
    assert second != first
    assert reads == [tree / "index.js"]


def test_same_size_rewrite_with_restored_mtime_is_detected(tree: Path) -> None:
    # What `cp -p` or a careful attacker does: same size, mtime put back.
    target = tree / "node_modules/dep/index.js"
    first, cache = content_hash(tree)
    before = target.stat()
    target.write_bytes(b"module.exports = 3;\n")
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert target.stat().st_size == before.st_size
    assert content_hash(tree, cache)[0] != first


def test_just_modified_files_are_not_vouched_for(
    tree: Path, reads: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A scan in the same clock tick as a write cannot tell a later same-tick write apart,
    # so such entries are cached without a digest and read again next time.
    newest = max(p.stat().st_ctime_ns for p in tree.rglob("*"))
    monkeypatch.setattr(_hashing, "_now_ns", lambda: newest)
    first, cache = content_hash(tree)
    assert all(e.digest is None for e in cache.entries.values() if e.kind == "f")
    assert fingerprint_changed(tree, cache)
    reads.clear()
    monkeypatch.setattr(_hashing, "_now_ns", lambda: newest + 60 * 10**9)
    assert content_hash(tree, cache)[0] == first
    assert len(reads) == len(TREE)


@pytest.mark.parametrize(
    "change",
    [
        lambda root: (root / "index.js").chmod(0o755),
        lambda root: (root / "index.js").rename(root / "main.js"),
        lambda root: (root / "empty").mkdir(),
        lambda root: (root / "extra.txt").write_bytes(b""),
        lambda root: (root / "node_modules/dep/big.bin").unlink(),
        lambda root: (root / "link").symlink_to("index.js"),
    ],
    ids=["exec-bit", "rename", "empty-dir", "new-empty-file", "removed-file", "new-symlink"],
)
def test_metadata_changes_change_hash(tree: Path, change: Callable[[Path], object]) -> None:
    first, cache = content_hash(tree)
    change(tree)
    assert content_hash(tree, cache)[0] != first
    assert fingerprint_changed(tree, cache)


def test_symlinks_are_hashed_by_target_and_never_followed(tmp_path: Path) -> None:
    outside = make_tree(tmp_path / "outside", {"secret.txt": b"s"})
    root = make_tree(tmp_path / "pkg", {"a.txt": b"a", "b.txt": b"b"})
    (root / "dir-link").symlink_to(outside)
    (root / "file-link").symlink_to("a.txt")
    first, cache = content_hash(root)
    assert set(cache.entries) == {"a.txt", "b.txt", "dir-link", "file-link"}
    assert cache.entries["file-link"].kind == "l"
    assert cache.entries["file-link"].digest == "a.txt"
    (outside / "secret.txt").write_bytes(b"changed")  # outside the tree: irrelevant
    assert content_hash(root)[0] == first
    (root / "file-link").unlink()
    (root / "file-link").symlink_to("b.txt")
    assert content_hash(root)[0] != first


@pytest.mark.usefixtures("settled")
def test_fingerprint_unchanged_tree_reads_nothing(tree: Path, reads: list[Path]) -> None:
    _, cache = content_hash(tree)
    reads.clear()
    assert not fingerprint_changed(tree, cache)
    assert reads == []


@pytest.mark.usefixtures("settled")
def test_fingerprint_sees_content_change_and_missing_root(tree: Path) -> None:
    _, cache = content_hash(tree)
    (tree / "package.json").write_bytes(b'{"name": "evil"}')
    assert fingerprint_changed(tree, cache)
    assert fingerprint_changed(tree / "gone", cache)


def _changes() -> list[tuple[str, Callable[[Path], object]]]:
    def touch(root: Path) -> None:
        stamp = (root / "index.js").stat().st_mtime_ns + 10**9
        os.utime(root / "index.js", ns=(stamp, stamp))

    def retarget(root: Path) -> None:
        (root / "link").unlink()
        (root / "link").symlink_to("package.json")

    return [
        ("nothing", lambda root: None),
        ("content", lambda root: (root / "package.json").write_bytes(b'{"name": "evil"}')),
        ("mtime", touch),
        ("mode", lambda root: (root / "index.js").chmod(0o755)),
        ("new file", lambda root: (root / "extra.js").write_bytes(b"1")),
        ("removed", lambda root: (root / "node_modules/dep/big.bin").unlink()),
        ("link target", retarget),
        ("file for dir", lambda root: (root / "node_modules/dep/index.js").rename(root / "x")),
    ]


@pytest.mark.usefixtures("settled")
@pytest.mark.parametrize(("what", "change"), _changes(), ids=[n for n, _ in _changes()])
def test_a_stored_cache_is_checked_as_the_cache_it_was_made_from(
    tmp_path: Path, what: str, change: Callable[[Path], object]
) -> None:
    """The check of a cache read back from the store compares its stored rows as they are
    (no entry objects made): the same answer as the cache in memory, for every change."""
    root = make_tree(tmp_path / "pkg", TREE)
    (root / "link").symlink_to("index.js")
    _, cache = content_hash(root)
    stored = cache.to_json()
    change(root)
    expected = what != "nothing"
    assert fingerprint_changed(root, cache) is expected
    assert fingerprint_changed(root, HashCache.from_json(stored)) is expected


def test_cache_json_round_trip(tree: Path) -> None:
    (tree / "link").symlink_to("index.js")
    _, cache = content_hash(tree)
    assert HashCache.from_json(cache.to_json()) == cache
    assert repr(cache) == f"HashCache(<{len(TREE) + 3} entries>)"  # + 2 dirs + 1 link


@pytest.mark.parametrize(
    "text",
    ["", "not json", "[]", '{"format": 99, "entries": {}}', '{"format": 1, "entries": {"a": [1]}}'],
)
def test_unreadable_cache_is_an_empty_cache(text: str) -> None:
    assert HashCache.from_json(text) == HashCache()


def test_special_files_and_non_directories_are_refused(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "pkg", {"a.txt": b"a"})
    with pytest.raises(ContentHashError, match="not a directory"):
        content_hash(root / "a.txt")
    os.mkfifo(root / "pipe")
    with pytest.raises(ContentHashError, match="not a file, directory or symlink"):
        content_hash(root)
    assert fingerprint_changed(root, HashCache())


names = st.text(alphabet="abcxyz._-", min_size=1, max_size=6).filter(lambda n: n not in {".", ".."})


@settings(max_examples=30, deadline=None)
@given(
    files=st.dictionaries(
        st.lists(names, min_size=1, max_size=3).map("/".join),
        st.binary(max_size=64),
        min_size=1,
        max_size=6,
    ),
    data=st.data(),
)
def test_hash_tracks_any_single_file_change(files: dict[str, bytes], data: st.DataObject) -> None:
    # A path cannot be both a file and a directory; drop entries that are prefixes of others.
    files = {p: b for p, b in files.items() if not any(o.startswith(p + "/") for o in files)}
    victim = data.draw(st.sampled_from(sorted(files)))
    with tempfile.TemporaryDirectory() as tmp:
        a = make_tree(Path(tmp) / "a", files)
        b = make_tree(Path(tmp) / "b", {**files, victim: files[victim] + b"!"})
        assert content_hash(a)[0] == content_hash(make_tree(Path(tmp) / "c", files))[0]
        assert content_hash(a)[0] != content_hash(b)[0]
