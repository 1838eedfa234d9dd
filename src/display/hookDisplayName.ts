/**
 * Short names for hooks in tables. A hook without `name` is named by its whole command (a plugin's hook by the plugin
 * and its command as written), which fills a column with paths and flags: `/home/me/.claude/hooks/check.sh
 * --strict`. A table shows such a name as the script's file name (`check.sh`, `my-plugin: check.sh`). Only the
 * display changes: the log keeps the whole name, so `--hook`, hook tests, stats history, JSON and tab-separated output
 * are as before. Two hooks of one table whose short names would be the same are shown whole, so a short name never
 * stands for two hooks.
 */

/** Files a hook command runs as a script, by their extension. */
const SCRIPT = /\.(sh|bash|zsh|js|mjs|cjs|ts|mts|py|rb|pl|php|ps1)$/i;

interface Named {
  readonly name: string;
  readonly command: string | null;
}

/** The short name of each hook among `hooks`, unique among them; a name that is not a command is kept. */
export function hookDisplayNames(hooks: Iterable<Named>): (name: string) => string {
  const shortOf = new Map<string, string>();
  for (const h of hooks) if (!shortOf.has(h.name)) shortOf.set(h.name, shortHookName(h.name, h.command));
  const owners = new Map<string, Set<string>>();
  for (const [name, short] of shortOf) owners.set(short, (owners.get(short) ?? new Set()).add(name));
  return (name) => {
    const short = shortOf.get(name);
    return short !== undefined && owners.get(short)!.size === 1 ? short : name;
  };
}

/** `check.sh` for a hook named by its command, `plugin: check.sh` for a plugin's; any other name as it is. */
export function shortHookName(name: string, command: string | null): string {
  if (name === command) return scriptName(name) ?? name;
  // A plugin's default name: `plugin: command as written`.
  const plugin = /^([^:\s]+): (.+)$/s.exec(name);
  if (plugin) {
    const script = scriptName(plugin[2]!);
    if (script !== null) return `${plugin[1]}: ${script}`;
  }
  return name;
}

/** The file name of the script a command runs (the first word with a script's extension, else the first path), or null. */
function scriptName(command: string): string | null {
  const words = command
    .split(/\s+/)
    .map((w) => w.replace(/["']/g, ""))
    .filter((w) => w !== "");
  const word = words.find((w) => SCRIPT.test(w)) ?? words.find((w) => w.includes("/"));
  if (word === undefined) return null;
  const base = word.slice(word.lastIndexOf("/") + 1);
  return base === "" ? null : base;
}
