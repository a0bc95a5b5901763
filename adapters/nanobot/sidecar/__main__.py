"""Start the sidecar: ``python -m adapters.nanobot.sidecar --package ROOT … --data-dir DIR``.

The launch plan runs this file directly (``python -P …/sidecar/__main__.py``) instead of
``-m``: ``-m`` imports ``adapters/__init__.py`` and with it the gateway (≈0.5 s of a
≤ 150 ms start budget). Run as a file, this folder is loaded as the package
``adapters.nanobot.sidecar`` on its own, so its relative imports work and nothing else of
``adapters`` or ``gateway`` is imported.
"""

import sys

if not __package__:
    import importlib.util
    import os

    _here = os.path.dirname(os.path.abspath(__file__))
    _spec = importlib.util.spec_from_file_location(
        "adapters.nanobot.sidecar",
        os.path.join(_here, "__init__.py"),
        submodule_search_locations=[_here],
    )
    assert _spec is not None and _spec.loader is not None
    _package = importlib.util.module_from_spec(_spec)
    sys.modules[_spec.name] = _package
    _spec.loader.exec_module(_package)

from adapters.nanobot.sidecar._main import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
