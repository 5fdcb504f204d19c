// Shell completion for bash and zsh, generated from the command tree itself: every command,
// subcommand and option `paykit --help` knows.
import type { Command } from 'commander';
import { UsageError } from './errors.ts';

/** "path words" → completions, e.g. "" → top-level commands, "webhooks" → its subcommands and options. */
function table(program: Command): Map<string, string[]> {
  const entries = new Map<string, string[]>();
  const walk = (command: Command, prefix: string[]) => {
    const words = [
      ...command.commands.map((c) => c.name()),
      ...command.options.map((o) => o.long).filter((o): o is string => o !== undefined),
    ];
    entries.set(prefix.join(' '), words);
    for (const child of command.commands) walk(child, [...prefix, child.name()]);
  };
  walk(program, []);
  return entries;
}

/** The script for `bin` (the name the binary was invoked as, so a renamed or linked binary completes too). */
export function completionScript(shell: string, program: Command, bin = 'paykit'): string {
  const entries = table(program);
  const globals = program.options
    .map((o) => o.long)
    .filter(Boolean)
    .join(' ');
  const cases = [...entries]
    .map(([key, words]) => `    "${key}") words="${[...words, ...(key ? globals.split(' ') : [])].join(' ')}" ;;`)
    .join('\n');
  const body = `__paykit_words() {
  local path="" word
  for word in "$@"; do
    case "$word" in -*) ;; *) if [ -z "$path" ]; then candidate="$word"; else candidate="$path $word"; fi
      case "$candidate" in
${[...entries.keys()]
  .filter(Boolean)
  .map((key) => `        "${key}") path="$candidate" ;;`)
  .join('\n')}
      esac ;;
    esac
  done
  case "$path" in
${cases}
    *) words="" ;;
  esac
  echo "$words"
}
`;
  if (shell === 'bash') {
    return `# ${bin} completion for bash: source <(${bin} completion bash)
${body}
_paykit() {
  local cur="\${COMP_WORDS[COMP_CWORD]}"
  COMPREPLY=( $(compgen -W "$(__paykit_words "\${COMP_WORDS[@]:1:COMP_CWORD-1}")" -- "$cur") )
}
# Registered only for a ${bin} the shell can run: completion for a command that is not there misleads.
if command -v ${bin} >/dev/null 2>&1; then
  complete -F _paykit ${bin}
else
  echo "${bin} completion: ${bin} is not on the PATH, nothing registered (add node_modules/.bin to PATH, or link the bin)" >&2
fi
`;
  }
  if (shell === 'zsh') {
    return `#compdef ${bin}
# ${bin} completion for zsh: source <(${bin} completion zsh)
${body}
_paykit() {
  local -a candidates
  candidates=(\${(s: :)$(__paykit_words "\${(@)words[2,CURRENT-1]}")})
  compadd -- $candidates
}
if (( $+commands[${bin}] )); then
  compdef _paykit ${bin}
else
  echo "${bin} completion: ${bin} is not on the PATH, nothing registered (add node_modules/.bin to PATH, or link the bin)" >&2
fi
`;
  }
  throw new UsageError(`completion supports bash and zsh (got "${shell}").`);
}
