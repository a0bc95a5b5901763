"""Start the sidecar: ``python -P -m adapters.nanobot.sidecar --package ROOT … --data-dir DIR``.

``-P`` keeps the workspace (the child's working directory) off ``sys.path``. The packages
above this one import nothing eagerly, so starting it as a module loads only the sidecar
and the core's vocabulary (``gateway.base.names``, ``gateway.wire.features``, the diagnostic codes).
"""

import sys

from adapters.nanobot.sidecar._main import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
