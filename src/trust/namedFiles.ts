import type { RunSite } from "../core/runSite.js";
import { basename, isAbsolute, relative, resolve, sep } from "node:path";
import { MAX_SCANNED, simpleCommands, type ShellWord, type SimpleCommand } from "./shellWords.js";
import { parseWrapper, WRAPPERS } from "./wrappers.js";
import { DATA_TOOLS, interpreterOf, SOURCE, type Interpreter } from "./interpreters.js";

/** Where a hook runs, which decides what its command's words mean. */
export interface CommandPlace {
  /** The hook's working directory and `$CLAUDE_PROJECT_DIR`. */
  readonly projectDir: string;
  readonly homeDir: string;
  /** A plugin hook's folder (`$CLAUDE_PLUGIN_ROOT`), else null. */
  readonly pluginRoot: string | null;
  readonly pluginData: string | null;
  /** Folders whose files are pinned: the project (and its real path), and a plugin hook's folder. */
  readonly roots: readonly string[];
}

/** What a command runs, as trust sees it. */
export interface CommandFiles {
  /** The project's (or plugin's) files it runs or names, absolute, in order. */
  readonly files: readonly string[];
  /**
   * Why qhooks cannot tell what the command runs (a script whose path only the shell knows, a `cd` to such a
   * place...): such a hook cannot be trusted. null when every file it runs is known.
   */
  readonly unresolved: string | null;
  /** Where the top-level command runs a pinned file directly: what the spawn makes run from the verified bytes. */
  readonly sites: readonly RunSite[];
}

export type { RunSite };

/** More named files than this in one command cannot be pinned (a command is one line; this bounds the work). */
const MAX_FILES = 64;
/** Code nested this deep (`sh -c "$(bash -c '…')"`) is not read further: the hook cannot be trusted. */
const MAX_DEPTH = 8;

/** Words before the program that are not the program. */
const KEYWORDS = new Set(["if", "then", "else", "elif", "do", "while", "until", "!", "{", "time"]);

/**
 * The files of the project (or of the hook's plugin) that a hook's command runs, as absolute paths, in order, or
 * why they cannot be known. The recognised forms are listed in docs/trust.md ("What a pin covers"); in short:
 * - the program, written as a path (`./scripts/guard.sh`, `$CLAUDE_PROJECT_DIR/.qoder/hooks/x.sh`);
 * - past assignments, keywords and wrappers with all their options, short or long (`env -u X`, `env --unset X`,
 *   `timeout --signal KILL 5`, `nice -n 5`, `exec -a name`...);
 * - an interpreter's script (`bash x.sh`, `python3 -u x.py`, `node --require ./r.js x.mjs`), the files its options
 *   name (`--rcfile F`), a module in the project (`python3 -m hooks.guard`), the code it reads from stdin (`sh < x`,
 *   `cat x | bash`, a here-document) and inline shell code (`bash -c '…'`, `eval '…'`), read as commands in turn;
 * - the code of command substitutions (`$(./x.sh)`), and the directories `cd` moves to;
 * - for any other program (`npx`, `make`, `xargs`...), every argument that names a file (it may run it).
 * A word in one of those places whose value only the shell knows (`$(…)/x.sh`, `"$SCRIPT"`) makes the command
 * unresolved: such a hook cannot be trusted, never trusted without its file.
 */
export function resolveCommandFiles(command: string, place: CommandPlace): CommandFiles {
  return new Resolver(place).run(command);
}

/** The files alone (tests, listings); see resolveCommandFiles. */
export function namedFiles(command: string, place: CommandPlace): string[] {
  return [...resolveCommandFiles(command, place).files];
}

class Unresolved extends Error {}

class Resolver {
  private readonly vars: Record<string, string>;
  private readonly files: string[] = [];
  private readonly sites: RunSite[] = [];
  /** Where relative paths may be resolved from: the project, and every directory a `cd` may have moved to. */
  private bases: string[];
  /** A `cd` went where only the shell knows: a relative path after it cannot be resolved. */
  private lostAt: string | null = null;

  constructor(private readonly place: CommandPlace) {
    this.vars = { CLAUDE_PROJECT_DIR: place.projectDir, QODERCN_PROJECT_DIR: place.projectDir, PWD: place.projectDir, HOME: place.homeDir };
    if (place.pluginRoot !== null) this.vars.CLAUDE_PLUGIN_ROOT = place.pluginRoot;
    if (place.pluginData !== null) this.vars.CLAUDE_PLUGIN_DATA = place.pluginData;
    this.bases = [place.projectDir];
  }

  run(command: string): CommandFiles {
    try {
      this.code(command, 0);
      return { files: this.files, unresolved: null, sites: this.sites };
    } catch (e) {
      if (e instanceof Unresolved) return { files: this.files, unresolved: e.message, sites: [] };
      throw e;
    }
  }

  private code(source: string, depth: number): void {
    // The scan reads this much of a command; what lies past it would run unpinned.
    if (source.length > MAX_SCANNED) throw new Unresolved(`its command is longer than ${MAX_SCANNED / 1024} KiB`);
    if (depth > MAX_DEPTH) throw new Unresolved(`its command nests code more than ${MAX_DEPTH} levels deep`);
    let pipeline: SimpleCommand[] = [];
    for (const command of simpleCommands(source, { vars: this.vars, home: this.place.homeDir })) {
      if (!command.piped) pipeline = [];
      for (const inner of command.nested) this.code(inner, depth + 1);
      this.simple(command, pipeline, depth);
      pipeline.push(command);
    }
  }

  /** One simple command; `upstream` are the commands before it in its pipeline. */
  private simple(command: SimpleCommand, upstream: readonly SimpleCommand[], depth: number): void {
    let words = command.words;
    let k = 0;
    let base: string | null = null; // `env -C dir`
    while (k < words.length) {
      const w = words[k]!;
      if (w.assignment || (w.text !== null && KEYWORDS.has(w.text))) k++;
      else if (w.text !== null && WRAPPERS.has(basename(w.text))) {
        const wrapped = parseWrapper(words, k, this.vars, this.place.homeDir);
        if (wrapped === null) return this.everyFile(words.slice(k + 1), base);
        if (wrapped.chdir !== undefined) {
          if (wrapped.chdir === null) throw new Unresolved(`it runs a program in a directory only the shell knows (${basename(w.text)} -C)`);
          base = this.pathOf(wrapped.chdir, base);
        }
        words = wrapped.words;
        k = wrapped.next;
      } else break;
    }
    if (k >= words.length) return this.stdinCode(command, upstream, depth, true);
    const program = words[k]!.text;
    const args = words.slice(k + 1);
    if (program === null)
      throw new Unresolved("it runs a program whose path only the shell knows at run time; write it as a path (./x.sh, $CLAUDE_PROJECT_DIR/x.sh)");
    if (program === "cd" || program === "pushd") return this.cd(args);
    if (program === "eval") {
      if (args.some((a) => a.text === null)) throw new Unresolved("it evaluates code only the shell knows at run time (eval)");
      return this.code(args.map((a) => a.text).join(" "), depth + 1);
    }
    // A bare name is looked up in PATH, never in the project.
    const own = program.includes("/") && this.add(program, base);
    // Sites only where the word's place in the text and its one meaning are certain.
    const sure = depth === 0 && words === command.words && base === null && this.bases.length === 1;
    const interpreter = interpreterOf(program);
    if (own && interpreter === null && sure) this.site(words[k]!, program, "program");
    if (interpreter !== null) return this.interpreted(command, interpreter, basename(program), args, upstream, depth, base, sure);
    // A script of the project's is pinned, and what it does with its arguments is in it, for review; a program
    // qhooks does not know may run any file it is given.
    if (!own && !DATA_TOOLS.has(basename(program))) this.everyFile(args, base);
  }

  private interpreted(
    command: SimpleCommand,
    interpreter: Interpreter,
    name: string,
    args: readonly ShellWord[],
    upstream: readonly SimpleCommand[],
    depth: number,
    base: string | null,
    sure: boolean,
  ): void {
    let readsStdin = false;
    for (let j = 0; j < args.length; j++) {
      const text = args[j]!.text;
      if (text === null) throw new Unresolved(`it runs a ${name} script whose path only the shell knows at run time`);
      if ((name === "deno" || name === "bun") && j === 0 && text === "run") continue;
      if (text === "--") {
        const script = args[j + 1];
        if (script === undefined) break;
        if (script.text === null) throw new Unresolved(`it runs a ${name} script whose path only the shell knows at run time`);
        return void this.add(script.text, base);
      }
      if ((text.startsWith("-") || text.startsWith("+")) && text !== "-") {
        const [option, attached] =
          text.startsWith("--") && text.includes("=") ? [text.slice(0, text.indexOf("=")), text.slice(text.indexOf("=") + 1)] : [text, undefined];
        if (interpreter.inline.test(text)) {
          if (!interpreter.shell) return; // code in another language: pinned as the command's text
          const code = args[j + 1];
          if (code === undefined) return;
          if (code.text === null) throw new Unresolved(`it runs ${name} -c with code only the shell knows at run time`);
          return this.code(code.text, depth + 1);
        }
        if (interpreter.module !== undefined && option.startsWith(interpreter.module)) {
          const mod = option.length > interpreter.module.length ? option.slice(interpreter.module.length) : args[j + 1]?.text;
          if (mod === null) throw new Unresolved(`it runs a ${name} module whose name only the shell knows at run time`);
          if (mod !== undefined) this.module(mod, base);
          return;
        }
        if (interpreter.stdin.test(text)) readsStdin = true;
        if (interpreter.fileValue.has(option)) {
          const value = attached ?? args[++j]?.text;
          if (value === null) throw new Unresolved(`it gives ${name} ${option} a file only the shell knows at run time`);
          if (value !== undefined) this.add(value, base);
        } else if (interpreter.withValue.has(option) && attached === undefined) j++;
        continue;
      }
      if (text === "-" || readsStdin) break;
      if (this.add(text, base) && sure && interpreter.shell && interpreter !== SOURCE) this.site(args[j]!, text, "shell-script");
      return;
    }
    // No script: the code is read from stdin.
    this.stdinCode(command, upstream, depth, interpreter.shell);
  }

  /** Code read from stdin: a file redirected in, a here-document (read as commands when a shell reads it), or what a pipeline feeds. */
  private stdinCode(command: SimpleCommand, upstream: readonly SimpleCommand[], depth: number, shell: boolean): void {
    const stdin = command.stdin;
    if (stdin?.kind === "file") {
      if (stdin.path === null) throw new Unresolved("it runs code from a file only the shell knows at run time (< …)");
      this.add(stdin.path, null);
    } else if (stdin?.kind === "text") {
      if (stdin.text === null) throw new Unresolved("it runs code only the shell knows at run time (<<< …)");
      if (shell) this.code(stdin.text, depth + 1);
    } else if (command.piped) {
      // `cat x.sh | sh`: whatever the commands before it name may be the code.
      for (const before of upstream) {
        if (before.stdin?.kind === "file" && before.stdin.path !== null) this.add(before.stdin.path, null);
        // Its arguments, past its program (`cat`), which is looked up like any other.
        const program = before.words.findIndex((w) => !w.assignment);
        this.everyFile(before.words.slice(program + 1), null, true);
      }
    }
  }

  /** Every argument that names a file (and `--opt=value`'s value): for programs qhooks does not know. */
  private everyFile(words: readonly ShellWord[], base: string | null, strict = false): void {
    for (const w of words) {
      if (w.text === null) {
        if (strict) throw new Unresolved("it pipes code from a file only the shell knows at run time into a shell");
        continue;
      }
      if (w.assignment) continue;
      const value = w.text.startsWith("-") ? (w.text.includes("=") ? w.text.slice(w.text.indexOf("=") + 1) : "") : w.text;
      if (value !== "" && value !== "-") this.add(value, base, false);
    }
  }

  /** `python3 -m hooks.guard`: the module's file, or its package's `__main__.py`, when in the project. */
  private module(name: string, base: string | null): void {
    const path = name.replaceAll(".", "/");
    this.add(`${path}.py`, base, false);
    this.add(`${path}/__main__.py`, base, false);
    this.add(`${path}/__init__.py`, base, false);
  }

  private cd(args: readonly ShellWord[]): void {
    const target = args.find((a) => a.text === null || !a.text.startsWith("-") || a.text === "-");
    if (target === undefined) return void this.bases.push(this.place.homeDir);
    if (target.text === null || target.text === "-") {
      this.lostAt = target.text === null ? "cd to a directory only the shell knows" : "cd -";
      return;
    }
    const text = target.text;
    // Every place it may be: a `cd` that fails, or one in a subshell, leaves the shell where it was.
    this.bases = [...new Set([...this.bases, ...this.bases.map((b) => resolve(b, text))])].slice(0, 8);
  }

  private site(word: ShellWord, text: string, kind: RunSite["kind"]): void {
    this.sites.push({ path: this.pathOf(text, null), kind, start: word.start, end: word.end });
  }

  private pathOf(word: string, base: string | null): string {
    return isAbsolute(word) ? resolve(word) : resolve(base ?? this.place.projectDir, word);
  }

  /**
   * Adds a named file (resolved from every possible working directory); `mustResolve`: a run position. Whether
   * the word names a path inside the project or the plugin.
   */
  private add(word: string, base: string | null, mustResolve = true): boolean {
    let paths: string[];
    if (isAbsolute(word)) paths = [resolve(word)];
    else if (base !== null) paths = [resolve(base, word)];
    else if (this.lostAt !== null) {
      if (!mustResolve) return false;
      throw new Unresolved(`it runs ${word} after a ${this.lostAt}: where that is, only the shell knows`);
    } else paths = this.bases.map((b) => resolve(b, word));
    let inside = false;
    for (const path of paths) {
      if (!this.place.roots.some((root) => isInside(path, root))) continue;
      inside = true;
      // The project's own folder (`npx eslint .`) is not a file.
      if (this.files.includes(path) || this.place.roots.includes(path)) continue;
      if (this.files.length >= MAX_FILES) throw new Unresolved(`its command names more than ${MAX_FILES} files`);
      this.files.push(path);
    }
    return inside;
  }
}

/** `path` is `root` or below it (lexically: `..` was resolved away already). */
export function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}
