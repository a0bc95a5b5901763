"""Start the plugin host: ``python -P -m adapters.plugin_host --config FILE``."""

import sys

from adapters.plugin_host._main import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
