import { basename, isAbsolute, relative, resolve, sep } from "node:path";
import { simpleCommands, type ShellWord } from "./shellWords.js";

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

/** More named files than this in one command are not pinned (a command is one line; this bounds the work). */
const MAX_FILES = 32;

/** Words before the program that are not the program: shell keywords, and commands that run the next word. */
const KEYWORDS = new Set(["if", "then", "else", "elif", "do", "while", "until", "!", "{", "time"]);
const WRAPPERS = new Set(["exec", "command", "nohup", "env", "timeout"]);

/**
 * Programs that run a file named by their first argument that is not an option, and the options after which the
 * code is inline (nothing to pin) or that take a value (skipped with it).
 */
interface Interpreter {
  readonly inline: RegExp;
  readonly withValue: ReadonlySet<string>;
}
const SHELL: Interpreter = { inline: /^-[A-Za-z]*[cs][A-Za-z]*$/, withValue: new Set(["-o", "+o", "-O", "+O"]) };
const PYTHON: Interpreter = { inline: /^-[A-Za-z]*[cm]/, withValue: new Set(["-W", "-X", "-Q"]) };
const NODE: Interpreter = { inline: /^(-e|-p|--eval|--print|-pe)$|^--(eval|print)=/, withValue: new Set(["-r", "--require", "--import", "--loader", "--experimental-loader", "-C", "--conditions", "--env-file"]) };
const PERL: Interpreter = { inline: /^-[A-Za-z]*[eE]/, withValue: new Set(["-I", "-M", "-m"]) };
const RUBY: Interpreter = { inline: /^-[A-Za-z]*e/, withValue: new Set(["-I", "-r"]) };
const PHP: Interpreter = { inline: /^-[A-Za-z]*r/, withValue: new Set(["-c", "-d"]) };
const NONE: Interpreter = { inline: /^$/, withValue: new Set() };

function interpreterOf(program: string): Interpreter | null {
  const name = basename(program);
  if (/^(sh|bash|dash|zsh|ksh|mksh|fish)$/.test(name)) return SHELL;
  if (/^(python|pypy)[0-9.]*$/.test(name)) return PYTHON;
  if (/^(node|nodejs|deno|bun|tsx|ts-node)$/.test(name)) return NODE;
  if (/^perl[0-9.]*$/.test(name)) return PERL;
  if (/^ruby[0-9.]*$/.test(name)) return RUBY;
  if (/^php[0-9.]*$/.test(name)) return PHP;
  if (name === "source" || name === "." || /^lua[0-9.]*$/.test(name)) return NONE;
  return null;
}

/**
 * The files of the project (or of the hook's plugin) that a hook's command runs, as absolute paths, in order:
 * for each simple command, its program when written as a path (`./scripts/guard.sh`,
 * `$CLAUDE_PROJECT_DIR/.qoder/hooks/x.sh`), and, when the program is an interpreter (`bash`, `python3`, `node`,
 * `source`...), its script: the first argument that is not an option. Paths are resolved against the project
 * directory, the hook's working directory. A `cd` inside the command, the files a script reads or sources in turn,
 * and words whose value only the shell knows are not followed (see docs/trust.md, "Which files a command runs").
 */
export function namedFiles(command: string, place: CommandPlace): string[] {
  const vars: Record<string, string> = {
    CLAUDE_PROJECT_DIR: place.projectDir,
    QODERCN_PROJECT_DIR: place.projectDir,
    PWD: place.projectDir,
    HOME: place.homeDir,
  };
  if (place.pluginRoot !== null) vars.CLAUDE_PLUGIN_ROOT = place.pluginRoot;
  if (place.pluginData !== null) vars.CLAUDE_PLUGIN_DATA = place.pluginData;
  const files: string[] = [];
  const add = (word: string) => {
    const path = isAbsolute(word) ? resolve(word) : resolve(place.projectDir, word);
    if (files.length < MAX_FILES && !files.includes(path) && place.roots.some((root) => isInside(path, root))) files.push(path);
  };
  for (const words of simpleCommands(command, { vars, home: place.homeDir })) {
    const program = programIndex(words);
    const word = program === -1 ? null : words[program]!.text;
    if (word === null) continue;
    // A bare name is looked up in PATH, never in the project.
    if (word.includes("/")) add(word);
    const interpreter = interpreterOf(word);
    if (interpreter === null) continue;
    const script = scriptArgument(words, program + 1, interpreter, basename(word));
    if (script !== null) add(script);
  }
  return files;
}

/** Index of the word that is the program, past assignments, keywords and wrappers (`env -i X=1 ./x.sh`); -1 if none. */
function programIndex(words: readonly ShellWord[]): number {
  let k = 0;
  while (k < words.length) {
    const w = words[k]!;
    if (w.assignment) k++;
    else if (w.text === null) return k;
    else if (KEYWORDS.has(w.text)) k++;
    else if (WRAPPERS.has(basename(w.text))) k = pastWrapper(words, k);
    else return k;
  }
  return -1;
}

/** The index after a wrapper's own options (and `timeout`'s duration). */
function pastWrapper(words: readonly ShellWord[], at: number): number {
  const name = basename(words[at]!.text!);
  let k = at + 1;
  for (let text; k < words.length && (text = words[k]!.text) !== null; ) {
    if (name === "env" && /^[A-Za-z_][A-Za-z0-9_]*=/.test(text)) k++;
    else if (text.startsWith("-")) {
      k++;
      if ((name === "env" && (text === "-u" || text === "-C")) || (name === "timeout" && (text === "-s" || text === "-k"))) k++;
    } else break;
  }
  return name === "timeout" ? k + 1 : k;
}

function scriptArgument(words: readonly ShellWord[], from: number, interpreter: Interpreter, name: string): string | null {
  for (let j = from; j < words.length; j++) {
    const text = words[j]!.text;
    if (text === null) return null;
    if ((name === "deno" || name === "bun") && j === from && text === "run") continue;
    if (text === "--") return words[j + 1]?.text ?? null;
    if ((text.startsWith("-") || text.startsWith("+")) && text !== "-") {
      if (interpreter.inline.test(text)) return null;
      if (interpreter.withValue.has(text)) j++;
      continue;
    }
    return text === "-" ? null : text;
  }
  return null;
}

/** `path` is `root` or below it (lexically: `..` was resolved away already). */
export function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}
