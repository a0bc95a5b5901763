"""The diagnostic codes ``gateway.base`` raises: a flood of diagnostics, text for the model
that reads like instructions, an unusable ``GATEWAY_HOME``.

Every package declares the codes it raises in its own ``_codes.py``; the catalogue
(``gateway.base.codes``) finds them and ``docs/diagnostics.md`` is generated from it.
"""

from __future__ import annotations

from gateway.base.diagnostics import Severity, define_code

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO  # noqa: E741

DIAGNOSTICS_REPEATED = define_code(
    "diagnostics.repeated",
    I,
    "More diagnostics of one code about one package arrived than are kept (a flood: e.g. an "
    "extension writing thousands of lines that are not JSON).",
    "Look at the first ones kept; the rest are counted (Diagnostics.suppressed).",
)

MODEL_INSTRUCTIONS = define_code(
    "package.model_instructions",
    W,
    "Text a package gives the model to read — a tool's or command's description, a skill, a "
    "prompt template — holds instruction-like text: telling it to override its instructions "
    "or hand over secrets, piping a download into a shell, characters the user cannot see, a "
    "long encoded blob, or a data-collection endpoint. A heuristic over text; the message "
    "quotes where.",
    "Read the quoted text before trusting the package. `gateway list --strict` and `gateway "
    "serve --mcp --strict` withhold flagged descriptions from the model.",
)

HOME_UNUSABLE = define_code(
    "home.unusable",
    E,
    "GATEWAY_HOME cannot be used: it is a file, it cannot be created, or it is not "
    "writable (a read-only file system, another user's folder). Nothing was run.",
    "Point GATEWAY_HOME at a folder you can write (default ~/.gateway).",
)
