/**
 * A `qhooks run` command line that may be forwarded to `qhooks serve`, read without commander (the forward client
 * loads nothing heavy): the event, `--format hook`, and only the options whose meaning the server reproduces. Any
 * other word, option or form gives null, and the run is judged in its own process, where commander reads it.
 */
export interface ForwardArgs {
  readonly event: string;
  readonly settings: readonly string[];
  readonly plugins: readonly string[];
  readonly log: boolean;
  readonly hooks: boolean;
  readonly failClosed: boolean;
  readonly globals: { readonly db?: string; readonly projectDir?: string; readonly dialect?: string; readonly host?: string };
}

/** Options that take a value (`--x v` or `--x=v`); global ones may stand before or after `run`, as commander takes them. */
const VALUED = new Set(["--settings", "--plugin", "--format", "--db", "--project-dir", "--dialect", "--host", "--color"]);
/** Switches of `run`; `--ensure-server` has nothing to do when a server answers. */
const SWITCHES = new Set(["--no-log", "--no-hooks", "--fail-closed", "--ensure-server"]);

/** The words after `node qhooks`; null when they are not a forwardable `qhooks run <event> --format hook ...`. */
export function parseForwardArgs(words: readonly string[]): ForwardArgs | null {
  const positionals: string[] = [];
  const values = new Map<string, string[]>();
  const switches = new Set<string>();
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (!word.startsWith("-")) {
      positionals.push(word);
      continue;
    }
    if (SWITCHES.has(word)) {
      switches.add(word);
      continue;
    }
    const eq = word.indexOf("=");
    const name = eq === -1 ? word : word.slice(0, eq);
    if (!VALUED.has(name)) return null;
    let value: string | undefined;
    if (eq !== -1) value = word.slice(eq + 1);
    else {
      value = words[++i];
      // Commander would take a following option as a missing value's error: leave that to it.
      if (value === undefined || value.startsWith("-")) return null;
    }
    values.set(name, [...(values.get(name) ?? []), value]);
  }
  // Global options given before `run` are commander's too, but a command name must come first among the words.
  if (positionals.length !== 2 || positionals[0] !== "run") return null;
  const last = (name: string): string | undefined => values.get(name)?.at(-1);
  // Commander checks each value of a choice: one that is not a choice is its error to give.
  if (!(values.get("--format") ?? []).every((f) => f === "hook") || last("--format") !== "hook") return null;
  if (!(values.get("--color") ?? []).every((c) => c === "auto" || c === "always" || c === "never")) return null;
  if ([...values.values()].flat().some((v) => v === "")) return null;
  const settings = values.get("--settings") ?? [];
  const plugins = values.get("--plugin") ?? [];
  const globals: { db?: string; projectDir?: string; dialect?: string; host?: string } = {};
  const db = last("--db");
  const projectDir = last("--project-dir");
  const dialect = last("--dialect");
  const host = last("--host");
  if (db !== undefined) globals.db = db;
  if (projectDir !== undefined) globals.projectDir = projectDir;
  if (dialect !== undefined) globals.dialect = dialect;
  if (host !== undefined) globals.host = host;
  return {
    event: positionals[1]!,
    settings,
    plugins,
    log: !switches.has("--no-log"),
    hooks: !switches.has("--no-hooks"),
    failClosed: switches.has("--fail-closed"),
    globals,
  };
}
