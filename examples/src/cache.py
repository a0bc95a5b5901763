"""The project the example workspace is about: a tiny cache (what the agent works on)."""

_entries: dict[str, str] = {}


def get(key: str) -> str | None:
    return _entries.get(key)


def put(key: str, value: str) -> None:
    # TODO: expire entries; the cache grows without bound.
    _entries[key] = value
