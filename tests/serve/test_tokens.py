"""``TokenStore``: what ``gateway token`` keeps and what ``serve --http`` accepts."""

from __future__ import annotations

import re
import stat
from pathlib import Path

import pytest

from gateway.serve import TokenError, TokenStore
from gateway.serve._tokens import parse_duration


def test_the_file_keeps_only_a_hash_of_the_token_and_is_private(tmp_path: Path) -> None:
    token, _ = TokenStore(tmp_path).create("ci")
    path = tmp_path / "tokens.json"
    assert token not in path.read_text()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_made_token_is_verified_with_its_scope(tmp_path: Path) -> None:
    store = TokenStore(tmp_path)
    token, _ = store.create("ci", ("alpha",))
    record = store.verify(token)
    assert record is not None and record.packages == ("alpha",)


def test_an_expired_token_is_not_verified(tmp_path: Path) -> None:
    store = TokenStore(tmp_path)
    token, _ = store.create("ci", expires_in=1)
    path = tmp_path / "tokens.json"
    path.write_text(re.sub(r'"expires": [0-9.]+', '"expires": 1.0', path.read_text()))
    assert store.verify(token) is None


def test_a_revoked_token_is_not_verified_by_a_store_that_read_it_before(tmp_path: Path) -> None:
    running, token = TokenStore(tmp_path), TokenStore(tmp_path).create("ci")[0]
    assert running.verify(token) is not None
    TokenStore(tmp_path).revoke("ci")
    assert running.verify(token) is None


def test_a_duplicate_name_is_refused_with_its_code(tmp_path: Path) -> None:
    TokenStore(tmp_path).create("ci")
    with pytest.raises(TokenError) as refused:
        TokenStore(tmp_path).create("ci")
    assert refused.value.diagnostic.code == "serve.token_exists"


@pytest.mark.parametrize("text", ["", "3x", "0d", "-1h", "99999w"])
def test_a_bad_duration_is_refused_with_its_code(text: str) -> None:
    with pytest.raises(TokenError) as refused:
        parse_duration(text)
    assert refused.value.diagnostic.code == "serve.token_invalid"


def test_a_corrupt_token_file_is_refused_with_its_code(tmp_path: Path) -> None:
    (tmp_path / "tokens.json").write_text("{not json")
    with pytest.raises(TokenError) as refused:
        TokenStore(tmp_path).records()
    assert refused.value.diagnostic.code == "serve.tokens_unreadable"
