"""The completion scripts of ``gateway completion``: bash, zsh and fish, from the verbs'
words (``VerbWords``, from ``gateway.cli._completion.verb_words``). Every dynamic word comes from
``gateway __complete ids|prefer``."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["VerbWords", "script"]

_NAMES = "command gateway __complete {} 2>/dev/null"
_NONE = "''"
_Q, _Q_ZSH, _Q_FISH = "'", "'\\''", "\\'"


@dataclass
class VerbWords:
    """What completes after one verb."""

    name: str
    help: str
    options: list[str] = field(default_factory=list)
    words: list[str] = field(default_factory=list)
    """Fixed positional values (``secret set|unset|list``, ``completion bash|zsh|fish``)."""
    names: str = ""
    """The ``gateway __complete`` list its positionals take (``ids``, ``prefer``); ``""``
    none."""
    files: bool = False


def script(shell: str, verbs: list[VerbWords]) -> str:
    return {"bash": _bash, "zsh": _zsh, "fish": _fish}[shell](verbs)


def _bash_case(verb: VerbWords) -> str:
    return (
        f'        {verb.name}) opts="{" ".join(verb.options)}"; words="{" ".join(verb.words)}"; '
        f"names={verb.names or _NONE}; files={int(verb.files)} ;;"
    )


def _bash(verbs: list[VerbWords]) -> str:
    names = " ".join(verb.name for verb in verbs)
    cases = "\n".join(_bash_case(verb) for verb in verbs)
    return f"""# bash completion for gateway: `gateway completion bash` wrote it.
_gateway() {{
    local cur="${{COMP_WORDS[COMP_CWORD]}}" verb="" i
    for ((i = 1; i < COMP_CWORD; i++)); do
        case "${{COMP_WORDS[i]}}" in -*) ;; *) verb="${{COMP_WORDS[i]}}"; break ;; esac
    done
    if [[ -z "$verb" ]]; then
        COMPREPLY=($(compgen -W "{names} --help --version" -- "$cur"))
        return 0
    fi
    local opts="" words="" names="" files=0
    case "$verb" in
{cases}
    esac
    if [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        return 0
    fi
    if [[ -n "$names" ]]; then
        words="$words $({_NAMES.format('"$names"')})"
    fi
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
    if ((files)); then
        compopt -o filenames 2>/dev/null
        COMPREPLY+=($(compgen -f -- "$cur"))
    fi
    return 0
}}
complete -F _gateway gateway
"""


def _zsh_case(verb: VerbWords) -> str:
    return (
        f"    {verb.name}) opts=({' '.join(verb.options)}); fixed=({' '.join(verb.words)}); "
        f"names={verb.names or _NONE}; files={int(verb.files)} ;;"
    )


def _zsh(verbs: list[VerbWords]) -> str:
    described = "\n".join(f"    '{v.name}:{_quoted(v.help, _Q, _Q_ZSH)}'" for v in verbs)
    cases = "\n".join(_zsh_case(verb) for verb in verbs)
    return f"""#compdef gateway
# zsh completion for gateway: `gateway completion zsh` wrote it.
_gateway() {{
  local verb="" i
  for ((i = 2; i < CURRENT; i++)); do
    if [[ ${{words[i]}} != -* ]]; then verb=${{words[i]}}; break; fi
  done
  if [[ -z $verb ]]; then
    local -a verbs
    verbs=(
{described}
    )
    _describe -t commands 'gateway command' verbs
    return
  fi
  local -a opts fixed more
  local names="" files=0
  case $verb in
{cases}
  esac
  if [[ $PREFIX == -* ]]; then
    compadd -- $opts
    return
  fi
  if [[ -n $names ]]; then
    more=(${{(f)"$({_NAMES.format("$names")})"}})
    fixed+=($more)
  fi
  (( ${{#fixed}} )) && compadd -- $fixed
  (( files )) && _files
  return 0
}}
if [[ "$funcstack[1]" == "_gateway" ]]; then
  _gateway "$@"
else
  compdef _gateway gateway
fi
"""


def _quoted(text: str, quote: str, escaped: str) -> str:
    return text.replace(quote, escaped)


def _fish(verbs: list[VerbWords]) -> str:
    lines = [
        "# fish completion for gateway: `gateway completion fish` wrote it.",
        "complete -c gateway -f",
        "complete -c gateway -n __fish_use_subcommand -l version -d 'show the version'",
    ]
    for verb in verbs:
        text = _quoted(verb.help, _Q, _Q_FISH)
        lines.append(f"complete -c gateway -n __fish_use_subcommand -a {verb.name} -d '{text}'")
        seen = f"-n '__fish_seen_subcommand_from {verb.name}'"
        for option in verb.options:
            flag = f"-l {option[2:]}" if option.startswith("--") else f"-s {option[1:]}"
            lines.append(f"complete -c gateway {seen} {flag}")
        if verb.words:
            lines.append(f"complete -c gateway {seen} -a '{' '.join(verb.words)}'")
        if verb.names:
            lines.append(f"complete -c gateway {seen} -a '({_NAMES.format(verb.names)})'")
        if verb.files:
            lines.append(f"complete -c gateway {seen} -F")
    return "\n".join(lines) + "\n"
