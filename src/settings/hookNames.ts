/**
 * Default hook names. A hook without `name` used to be named by its whole command (`plugin: command` for a plugin's),
 * which fills logs and messages with paths and flags. Now it is named by the script it runs (`check.sh`,
 * `my-plugin: check.sh`), or the program it runs by path; an inline command (`echo ok`) keeps its text. The old name (the "long name") still selects
 * the hook wherever a user names one (`qhooks.disabled`, `qhooks.replay`, `qhooks.budget`), and the log's `--hook`
 * matches commands as before.
 *
 * Uniqueness, within one loaded configuration: when two hooks with different long names would get the same short
 * name, each of them is named by its long name instead (the old rule). The rule reads only the configuration, so a
 * name is the same on every run of it.
 */

/** Files a hook command runs as a script, by their extension. */
const SCRIPT = /\.(sh|bash|zsh|fish|js|mjs|cjs|ts|mts|cts|py|rb|pl|php|ps1|lua)$/i;
/** `VAR=value` before a command. */
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** The short default name of a hook whose command (as written) is `written`; `plugin`'s name qualifies a plugin's. */
export function shortHookName(written: string, plugin: string | null): string {
  const short = scriptName(written) ?? written;
  return plugin === null ? short : `${plugin}: ${short}`;
}

/** The name hooks had before short names: the command as written, after the plugin's name for a plugin's hook. */
export function longHookName(written: string, plugin: string | null): string {
  return plugin === null ? written : `${plugin}: ${written}`;
}

/**
 * The file name of the script a command's first simple command runs (the first word with a script's extension:
 * `bash x.sh`, `node x.js`, `uv run x.py`), else of its program when run by path (`~/bin/guard --strict`); null for a
 * command that names neither (`echo ok`, `cat /tmp/x; exit 0`): its text says more than the program alone would,
 * and the program alone would not tell two such hooks apart.
 */
export function scriptName(command: string): string | null {
  const first = command.split(/[;|&\n]/)[0] ?? "";
  const words = first
    .split(/\s+/)
    .map((w) => w.replace(/["'()]/g, ""))
    .filter((w) => w !== "" && !ASSIGNMENT.test(w));
  const program = words[0];
  const word = words.find((w) => SCRIPT.test(w)) ?? (program?.includes("/") ? program : undefined);
  if (word === undefined) return null;
  const base = baseName(word);
  return base === "" ? null : base;
}

const baseName = (word: string): string => word.slice(word.lastIndexOf("/") + 1);

interface Nameable {
  readonly name: string;
  /** The name the hook would have had under the old rule (its own `name` when it has one). */
  readonly longName: string;
}

/**
 * The hooks with unique names: a default short name shared by hooks with different long names gives way to the long
 * names. Also the map from each long name to the name now in use, for reading names a user wrote under the old rule.
 */
export function uniqueHookNames<H extends Nameable>(hooks: readonly H[]): { hooks: H[]; aliases: Map<string, string>; shared: Map<string, string[]> } {
  const owners = new Map<string, Set<string>>();
  for (const h of hooks) owners.set(h.name, (owners.get(h.name) ?? new Set()).add(h.longName));
  const named = hooks.map((h) => (h.name !== h.longName && owners.get(h.name)!.size > 1 ? { ...h, name: h.longName } : h));
  const aliases = new Map<string, string>();
  for (const h of named) if (h.longName !== h.name && !aliases.has(h.longName)) aliases.set(h.longName, h.name);
  const shared = new Map<string, string[]>();
  hooks.forEach((h, i) => {
    if (owners.get(h.name)!.size < 2) return;
    const names = shared.get(h.name) ?? [];
    if (!names.includes(named[i]!.name)) names.push(named[i]!.name);
    shared.set(h.name, names);
  });
  return { hooks: named, aliases, shared };
}

/**
 * Every hook a name a user wrote selects now: the one its rename gives (`currentHookName`), or, for a short name that
 * two hooks would share (`shared` of uniqueHookNames, so each is named by its long name now), all of them. A file
 * that adds a hook with the script name of yours must not take your `qhooks.disabled` or `qhooks.budget` entry off
 * your hook: the entry now applies to both.
 */
export const hooksNamed = (aliases: ReadonlyMap<string, string>, shared: ReadonlyMap<string, readonly string[]>, name: string): readonly string[] =>
  shared.get(name) ?? [currentHookName(aliases, name)];

/** A name a user wrote, as the configuration now names that hook. */
export const currentHookName = (aliases: ReadonlyMap<string, string>, name: string): string => aliases.get(name) ?? name;

/**
 * The other names of the hook a user named, by the configuration's renames (`aliases`, long name to name now): its
 * long name when `name` is its name now, its name now when `name` is its long name. The log keeps the names hooks
 * had when they ran, so a hook's older runs are stored under its long name (`kit: ${CLAUDE_PLUGIN_ROOT}/check.sh`)
 * and its newer ones under its short name (`kit: check.sh`): `log --hook` asks for all of them.
 */
export function otherHookNames(aliases: ReadonlyMap<string, string>, name: string): string[] {
  const names = new Set<string>();
  const now = aliases.get(name);
  if (now !== undefined) names.add(now);
  for (const [long, current] of aliases) if (current === name) names.add(long);
  names.delete(name);
  return [...names];
}
