/**
 * Just enough of the POSIX shell's word rules to tell which files a hook's command names: simple commands split at
 * `;`, `&`, `|`, parentheses and line breaks; quotes removed; a few variables filled in. A word whose value only the
 * shell can know at run time (another variable, `$(...)`, a glob, brace expansion) is `null`: nothing is guessed.
 * This is not a shell parser, and never decides what runs: the shell does. It only finds files worth pinning.
 *
 * Over 300 lines on purpose: simpleCommands is one scanner over the command's characters, whose quoting states
 * share the position and the word being built; split into files, each state would have to carry them all.
 */

/** One word of a simple command, after quote removal. */
export interface ShellWord {
  /** The word's value; null when it depends on the shell at run time. */
  readonly text: string | null;
  /** `NAME=value` before the command (an environment assignment, not an argument). */
  readonly assignment: boolean;
  /** Where the word is written in the source: `source.slice(start, end)`, quotes included. */
  readonly start: number;
  readonly end: number;
}

/** Where a simple command's standard input comes from, when the command line says. */
export type StdinSource =
  /** `< file`: the file's path, null when only the shell knows it. */
  | { readonly kind: "file"; readonly path: string | null }
  /** A here-document's body or a here-string's word: text written in the command itself (null: not known). */
  | { readonly kind: "text"; readonly text: string | null };

/** One simple command: its words, where its stdin comes from, and the code nested in it. */
export interface SimpleCommand {
  readonly words: readonly ShellWord[];
  /** The last `<`, `<<` or `<<<` redirection of its standard input; null when none. */
  readonly stdin: StdinSource | null;
  /** Its standard input is the output of the command before it in a pipeline (`a | b`). */
  readonly piped: boolean;
  /** The sources of the command substitutions in it (`$(…)`, `` `…` ``): code the shell runs too. */
  readonly nested: readonly string[];
}

export interface WordContext {
  /** Values of the variables the command may use (`CLAUDE_PROJECT_DIR`...); any other `$NAME` makes a word null. */
  readonly vars: Readonly<Record<string, string>>;
  /** What a leading `~/` means. */
  readonly home: string;
}

/** Commands longer than this are read up to here only (a hook command is a line, not a program). */
export const MAX_SCANNED = 16_384;

const SEPARATORS = new Set([";", "&", "|", "(", ")", "\n"]);
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The simple commands of `source`, each with its words. The code inside command substitutions is handed back as
 * text (`nested`), to be read as commands in turn; a here-document's body is its command's stdin, not code here.
 */
export function simpleCommands(source: string, context: WordContext): SimpleCommand[] {
  const src = source.length > MAX_SCANNED ? source.slice(0, MAX_SCANNED) : source;
  type Building = { words: ShellWord[]; stdin: StdinSource | null; piped: boolean; nested: string[] };
  const commands: SimpleCommand[] = [];
  let command: Building = { words: [], stdin: null, piped: false, nested: [] };
  let pipeNext = false;
  /** Here-documents opened on the current line, read once it ends; each is its command's stdin (or another fd's). */
  let pendingDocs: {
    readonly delimiter: string;
    readonly stripTabs: boolean;
    readonly expands: boolean;
    readonly owner: Building;
    readonly isStdin: boolean;
  }[] = [];
  let text = "";
  let started = false;
  let wordStart = 0;
  let resolvable = true;
  let quoted = false;
  let assignment = false;
  let braced = false;
  let globbing = false;
  // The word after a redirection is its target (`> log.txt`), not an argument of the command; `<` and `<<<` name
  // its stdin.
  let redirectTarget: "out" | "in" | "string" | null = null;

  const endWord = () => {
    if (!started) return;
    // Brace expansion (`{a,b}.sh`) makes several words; a lone `{` or `}` is a group keyword.
    if (braced && text !== "{" && text !== "}") resolvable = false;
    // A glob names whatever matches it at run time; a lone `[` or `[[` is the test command.
    if (globbing && text !== "[" && text !== "[[") resolvable = false;
    const value = resolvable ? text : null;
    if (redirectTarget === "in") command.stdin = { kind: "file", path: value };
    else if (redirectTarget === "string") command.stdin = { kind: "text", text: value };
    if (redirectTarget !== null) redirectTarget = null;
    else command.words.push({ text: value, assignment, start: wordStart, end: i });
    text = "";
    started = false;
    resolvable = true;
    quoted = false;
    assignment = false;
    braced = false;
    globbing = false;
  };
  const endCommand = () => {
    endWord();
    // A redirection without a target (`cat <(…)`, `a >`) does not swallow the next command's first word.
    redirectTarget = null;
    if (command.words.length || command.stdin !== null || command.nested.length) commands.push(command);
    command = { words: [], stdin: null, piped: pipeNext, nested: [] };
    pipeNext = false;
  };
  /** Reads the bodies of the here-documents opened on the line that ends at `at` (a line break); returns where code resumes. */
  const readDocs = (at: number): number => {
    let i = at + 1;
    for (const doc of pendingDocs) {
      const lines: string[] = [];
      for (;;) {
        if (i >= src.length) break;
        const eol = src.indexOf("\n", i);
        const raw = src.slice(i, eol === -1 ? src.length : eol);
        i = eol === -1 ? src.length : eol + 1;
        const line = doc.stripTabs ? raw.replace(/^\t+/, "") : raw;
        if (line === doc.delimiter) break;
        lines.push(line);
      }
      const body = lines.length ? `${lines.join("\n")}\n` : "";
      if (doc.isStdin) doc.owner.stdin = { kind: "text", text: body };
      // An unquoted delimiter: the body is expanded like a double-quoted word, its command substitutions run.
      if (doc.expands) doc.owner.nested.push(...substitutionsIn(body));
    }
    pendingDocs = [];
    return i;
  };

  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (!started) wordStart = i;
    if (c === " " || c === "\t") {
      endWord();
      i++;
    } else if (c === "#" && !started) {
      while (i < src.length && src[i] !== "\n") i++;
    } else if (SEPARATORS.has(c)) {
      // `a | b` (and `|&`) feeds b; `||` does not.
      if (c === "|" && src[i + 1] !== "|" && src[i - 1] !== "|") pipeNext = true;
      endCommand();
      i = c === "\n" && pendingDocs.length ? readDocs(i) : i + 1;
    } else if (c === "<" || c === ">") {
      // `2>file`: the digits before the operator name a descriptor, not an argument.
      let fd: string | null = null;
      if (started && !quoted && resolvable && /^\d+$/.test(text)) {
        fd = text;
        text = "";
        started = false;
      } else endWord();
      if (c === "<" && src[i + 1] === "<" && src[i + 2] === "<") {
        i += 3;
        redirectTarget = fd === null || fd === "0" ? "string" : "out";
        continue;
      }
      if (c === "<" && src[i + 1] === "<") {
        const stripTabs = src[i + 2] === "-";
        i += stripTabs ? 3 : 2;
        while (src[i] === " " || src[i] === "\t") i++;
        // The delimiter: a word whose quotes are removed (quoting it only stops expansions in the body).
        let delimiter = "";
        let expands = true;
        while (i < src.length && !" \t\n;&|()<>".includes(src[i]!)) {
          const d = src[i]!;
          if (d === "'" || d === '"') {
            expands = false;
            const close = src.indexOf(d, i + 1);
            const end = close === -1 ? src.length : close;
            delimiter += src.slice(i + 1, end);
            i = end + 1;
          } else if (d === "\\") {
            expands = false;
            delimiter += src[i + 1] ?? "";
            i += 2;
          } else {
            delimiter += d;
            i++;
          }
        }
        pendingDocs.push({ delimiter, stripTabs, expands, owner: command, isStdin: fd === null || fd === "0" });
        continue;
      }
      const input = c === "<" && src[i + 1] !== "&" && src[i + 1] !== ">" && (fd === null || fd === "0");
      i++;
      while (src[i] === ">" || src[i] === "&" || src[i] === "|") i++;
      redirectTarget = input ? "in" : "out";
    } else if (c === "'") {
      started = quoted = true;
      const end = src.indexOf("'", i + 1);
      if (end === -1) {
        resolvable = false;
        i = src.length;
      } else {
        text += src.slice(i + 1, end);
        i = end + 1;
      }
    } else if (c === '"') {
      started = quoted = true;
      i++;
      while (i < src.length && src[i] !== '"') {
        const d = src[i]!;
        if (d === "\\" && i + 1 < src.length && '$`"\\\n'.includes(src[i + 1]!)) {
          if (src[i + 1] !== "\n") text += src[i + 1];
          i += 2;
        } else if (d === "$") {
          const { value, end, code } = expandDollar(src, i, context);
          if (code !== null) command.nested.push(code);
          if (value === null) resolvable = false;
          else text += value;
          i = end;
        } else if (d === "`") {
          resolvable = false;
          const end = skipBackquoted(src, i);
          command.nested.push(src.slice(i + 1, end - 1));
          i = end;
        } else {
          text += d;
          i++;
        }
      }
      if (i >= src.length) resolvable = false;
      i++;
    } else if (c === "\\") {
      if (src[i + 1] === "\n") i += 2;
      else {
        started = quoted = true;
        text += src[i + 1] ?? "";
        i += 2;
      }
    } else if (c === "$") {
      started = true;
      const { value, end, code } = expandDollar(src, i, context);
      if (code !== null) command.nested.push(code);
      if (value === null) resolvable = false;
      else text += value;
      i = end;
    } else if (c === "`") {
      started = true;
      resolvable = false;
      const end = skipBackquoted(src, i);
      command.nested.push(src.slice(i + 1, end - 1));
      i = end;
    } else {
      if (c === "~" && !started && (i + 1 >= src.length || "/ \t;&|()\n".includes(src[i + 1]!))) {
        started = true;
        text += context.home;
        i++;
        continue;
      }
      if (c === "~" && !started) resolvable = false; // ~user
      if (c === "*" || c === "?" || c === "[") globbing = true;
      if (c === "{" || c === "}") braced = true;
      if (c === "=" && !quoted && !assignment && command.words.every((w) => w.assignment) && NAME.test(text)) assignment = true;
      started = true;
      text += c;
      i++;
    }
  }
  endCommand();
  return commands;
}

/**
 * `$NAME`, `${NAME}`: a known variable's value; anything else (`$(…)`, `$1`, `${X:-y}`, `$'…'`) is unknown. A
 * command substitution's code is handed back (`code`): the shell runs it.
 */
function expandDollar(src: string, at: number, context: WordContext): { value: string | null; end: number; code: string | null } {
  const next = src[at + 1];
  if (next === undefined || ' \t\n;&|)"'.includes(next)) return { value: "$", end: at + 1, code: null };
  if (next === "{") {
    const close = src.indexOf("}", at + 2);
    if (close === -1) return { value: null, end: src.length, code: null };
    const name = src.slice(at + 2, close);
    return { value: NAME.test(name) ? (context.vars[name] ?? null) : null, end: close + 1, code: null };
  }
  if (next === "(") {
    const end = skipParenthesised(src, at + 1);
    return { value: null, end, code: src.slice(at + 2, src[end - 1] === ")" ? end - 1 : end) };
  }
  if (next === "'") {
    const close = src.indexOf("'", at + 2);
    return { value: null, end: close === -1 ? src.length : close + 1, code: null };
  }
  const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(at + 1, at + 257))?.[0];
  if (name === undefined) return { value: null, end: at + 2, code: null }; // $1, $@, $?, $$...
  return { value: context.vars[name] ?? null, end: at + 1 + name.length, code: null };
}

/** The code of each command substitution in text expanded like a double-quoted word (a here-document's body). */
function substitutionsIn(text: string): string[] {
  const codes: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") i++;
    else if (c === "$" && text[i + 1] === "(") {
      const end = skipParenthesised(text, i + 1);
      codes.push(text.slice(i + 2, text[end - 1] === ")" ? end - 1 : end));
      i = end - 1;
    } else if (c === "`") {
      const end = skipBackquoted(text, i);
      codes.push(text.slice(i + 1, end - 1));
      i = end - 1;
    }
  }
  return codes;
}

/** The end of `(…)` starting at `open`, nested parentheses and quotes respected roughly; the end of input if open. */
function skipParenthesised(src: string, open: number): number {
  let depth = 0;
  for (let i = open; i < src.length; i++) {
    const c = src[i];
    if (c === "\\") i++;
    else if (c === "'") {
      const close = src.indexOf("'", i + 1);
      if (close === -1) return src.length;
      i = close;
    } else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i + 1;
  }
  return src.length;
}

function skipBackquoted(src: string, open: number): number {
  for (let i = open + 1; i < src.length; i++) {
    if (src[i] === "\\") i++;
    else if (src[i] === "`") return i + 1;
  }
  return src.length;
}
