"""``python -m adapters.pi.runtime`` is the clone's ``gateway setup`` (README): it must run
without Python warning that the module was imported before it ran as ``__main__``."""

from __future__ import annotations

import subprocess
import sys


def test_importing_the_pi_adapter_package_leaves_its_runtime_module_unimported():
    probe = "import sys, adapters.pi; print('adapters.pi.runtime' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-W", "error", "-c", probe], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"
    assert out.stderr == ""
