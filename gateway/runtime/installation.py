"""Where an installation of the gateway keeps what ``gateway setup`` makes for it.

Two installations on one machine (a pipx one and a project venv, a clone and a wheel) share
the user's ``GATEWAY_HOME``, so nothing tied to one installation's files may live there:
the private Node environment runs that installation's Node, the Node sidecar's modules were
installed by it for its own sources. Both live in ``share/extension-gateway/`` under the
installation's data folder — ``sys.prefix`` of a venv (a pipx venv, a clone's ``.venv``), the
user base for ``pip install --user`` — never inside site-packages, and go when the
installation does.
"""

from __future__ import annotations

import site
import sys
import sysconfig
from pathlib import Path

__all__ = ["SHARE", "install_share_dir"]

SHARE = Path("share") / "extension-gateway"
"""The folder, under the installation's data folder, of what setup makes for it."""


def install_share_dir(anchor: Path) -> Path:
    """``share/extension-gateway`` of the installation scheme whose site-packages hold
    ``anchor`` (an installed package's folder); ``sys.prefix`` for anything else (a
    checkout, an editable install)."""
    anchor = anchor.resolve()
    user_site = Path(site.getusersitepackages()).resolve()
    if anchor.is_relative_to(user_site):
        return Path(site.getuserbase()) / SHARE
    for scheme_path in ("purelib", "platlib"):
        if anchor.is_relative_to(Path(sysconfig.get_path(scheme_path)).resolve()):
            return Path(sysconfig.get_path("data")) / SHARE
    return Path(sys.prefix) / SHARE
