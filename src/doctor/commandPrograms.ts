import { basename, isAbsolute, resolve } from "node:path";
import { simpleCommands, type ShellWord } from "../trust/shellWords.js";
import { parseWrapper, WRAPPERS } from "../trust/wrappers.js";
import { interpreterOf } from "../trust/interpreters.js";

/** What one program position of a command names, as doctor checks it. */
export type ProgramRef =
  /** A word only the shell knows at run time (`"$TOOL"`, `$(which x)`): not checked, never guessed. */
  | { readonly kind: "unknown"; readonly written: string; readonly why: string }
  /** A shell builtin or keyword: always there. */
  | { readonly kind: "builtin"; readonly name: string }
  /** A bare name: looked up on PATH. */
  | { readonly kind: "name"; readonly name: string }
  /** A path: the program itself, or the script an interpreter runs (`bash x.sh`: read, not executed). */
  | { readonly kind: "path"; readonly written: string; readonly path: string; readonly role: "program" | "script" };

export interface CommandPlace {
  readonly projectDir: string;
  readonly homeDir: string;
  readonly pluginRoot: string | null;
  readonly pluginData: string | null;
}

/** Simple commands read per hook command: a hook command is a line, and this bounds the work of a hostile one. */
const MAX_COMMANDS = 16;

const BUILTINS = new Set(
  (
    "cd echo printf exit true false test [ [[ : . source exec eval export set unset read shift return trap wait umask pwd type command " +
    "kill alias times ulimit getopts hash break continue local readonly"
  ).split(" "),
);
const KEYWORDS = new Set(["if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}", "time", "case", "esac", "for", "in"]);

/**
 * The programs a hook command starts at its top level, each simple command's (`cat | jq .x`: cat and jq), past
 * assignments, keywords and wrappers (`env`, `timeout`, `nice`...), with an interpreter's script (`python3 x.py`).
 * Relative paths are resolved against the project directory, where hooks run; `$CLAUDE_PROJECT_DIR`,
 * `$QODERCN_PROJECT_DIR`, `$HOME`, `~` and a plugin's variables are filled in, anything else is `unknown`.
 */
export function commandPrograms(command: string, place: CommandPlace): ProgramRef[] {
  const vars: Record<string, string> = {
    CLAUDE_PROJECT_DIR: place.projectDir,
    QODERCN_PROJECT_DIR: place.projectDir,
    PWD: place.projectDir,
    HOME: place.homeDir,
  };
  if (place.pluginRoot !== null) vars.CLAUDE_PLUGIN_ROOT = place.pluginRoot;
  if (place.pluginData !== null) vars.CLAUDE_PLUGIN_DATA = place.pluginData;
  const refs: ProgramRef[] = [];
  for (const simple of simpleCommands(command, { vars, home: place.homeDir }).slice(0, MAX_COMMANDS)) {
    const program = programOf(simple.words, command, vars, place.homeDir);
    if (program === null) continue;
    if (program.ref.kind !== "unknown" && program.ref.kind !== "builtin") {
      const name = program.ref.kind === "name" ? program.ref.name : program.ref.written;
      const script = interpreterOf(name) !== null ? scriptOf(simple.words, program.at, command, name) : null;
      refs.push(program.ref);
      if (script !== null) refs.push(script.kind === "path" ? { ...script, path: resolvePath(script.written, place.projectDir) } : script);
      continue;
    }
    refs.push(program.ref);
  }
  return refs.map((r) => (r.kind === "path" && r.role === "program" ? { ...r, path: resolvePath(r.written, place.projectDir) } : r));
}

function programOf(words: readonly ShellWord[], source: string, vars: Record<string, string>, home: string): { ref: ProgramRef; at: number } | null {
  let list = words;
  let at = 0;
  while (at < list.length) {
    const word = list[at]!;
    if (word.assignment) {
      at++;
      continue;
    }
    if (word.text === null)
      return { ref: { kind: "unknown", written: source.slice(word.start, word.end), why: "its value is only known to the shell at run time" }, at };
    if (KEYWORDS.has(word.text)) {
      at++;
      continue;
    }
    if (WRAPPERS.has(basename(word.text)) && !word.text.includes("/")) {
      const wrapped = parseWrapper(list, at, vars, home);
      if (wrapped === null) return { ref: { kind: "unknown", written: word.text, why: `a ${word.text} option doctor does not know` }, at };
      list = wrapped.words;
      at = wrapped.next;
      continue;
    }
    if (BUILTINS.has(word.text)) return { ref: { kind: "builtin", name: word.text }, at };
    if (word.text.includes("/")) return { ref: { kind: "path", written: word.text, path: word.text, role: "program" }, at };
    return { ref: { kind: "name", name: word.text }, at };
  }
  return null;
}

/** The script an interpreter runs (`bash -e x.sh`); null when it runs inline code or reads stdin. */
function scriptOf(words: readonly ShellWord[], at: number, source: string, program: string): ProgramRef | null {
  const interpreter = interpreterOf(program)!;
  for (let k = at + 1; k < words.length; k++) {
    const word = words[k]!;
    if (word.text === null) return { kind: "unknown", written: source.slice(word.start, word.end), why: "its value is only known to the shell at run time" };
    const text = word.text;
    if (interpreter.inline.test(text) || interpreter.stdin.test(text) || (interpreter.module !== undefined && text === interpreter.module)) return null;
    if (interpreter.withValue.has(text) || interpreter.fileValue.has(text)) {
      k++;
      continue;
    }
    if (text.startsWith("-")) continue;
    return { kind: "path", written: text, path: text, role: "script" };
  }
  return null;
}

const resolvePath = (written: string, projectDir: string): string => (isAbsolute(written) ? written : resolve(projectDir, written));
