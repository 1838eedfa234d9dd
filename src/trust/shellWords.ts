/**
 * Just enough of the POSIX shell's word rules to tell which files a hook's command names: simple commands split at
 * `;`, `&`, `|`, parentheses and line breaks; quotes removed; a few variables filled in. A word whose value only the
 * shell can know at run time (another variable, `$(...)`, a glob, brace expansion) is `null`: nothing is guessed.
 * This is not a shell parser, and never decides what runs: the shell does. It only finds files worth pinning.
 */

/** One word of a simple command, after quote removal. */
export interface ShellWord {
  /** The word's value; null when it depends on the shell at run time. */
  readonly text: string | null;
  /** `NAME=value` before the command (an environment assignment, not an argument). */
  readonly assignment: boolean;
}

export interface WordContext {
  /** Values of the variables the command may use (`CLAUDE_PROJECT_DIR`...); any other `$NAME` makes a word null. */
  readonly vars: Readonly<Record<string, string>>;
  /** What a leading `~/` means. */
  readonly home: string;
}

/** Commands longer than this are read up to here only (a hook command is a line, not a program). */
const MAX_SCANNED = 16_384;

const SEPARATORS = new Set([";", "&", "|", "(", ")", "\n"]);
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The simple commands of `source`, each as its words. A here-document ends the scan (its body is not code). */
export function simpleCommands(source: string, context: WordContext): ShellWord[][] {
  const src = source.length > MAX_SCANNED ? source.slice(0, MAX_SCANNED) : source;
  const commands: ShellWord[][] = [];
  let words: ShellWord[] = [];
  let text = "";
  let started = false;
  let resolvable = true;
  let quoted = false;
  let assignment = false;
  let braced = false;
  let globbing = false;
  // The word after a redirection is its target (`> log.txt`), not an argument of the command.
  let redirectTarget = false;

  const endWord = () => {
    if (!started) return;
    // Brace expansion (`{a,b}.sh`) makes several words; a lone `{` or `}` is a group keyword.
    if (braced && text !== "{" && text !== "}") resolvable = false;
    // A glob names whatever matches it at run time; a lone `[` or `[[` is the test command.
    if (globbing && text !== "[" && text !== "[[") resolvable = false;
    if (redirectTarget) redirectTarget = false;
    else words.push({ text: resolvable ? text : null, assignment });
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
    if (words.length) commands.push(words);
    words = [];
  };

  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === " " || c === "\t") {
      endWord();
      i++;
    } else if (c === "#" && !started) {
      while (i < src.length && src[i] !== "\n") i++;
    } else if (SEPARATORS.has(c)) {
      endCommand();
      i++;
    } else if (c === "<" || c === ">") {
      // `2>file`: the digits before the operator name a descriptor, not an argument.
      if (started && !quoted && resolvable && /^\d+$/.test(text)) {
        text = "";
        started = false;
      } else endWord();
      if (c === "<" && src[i + 1] === "<") {
        endCommand();
        return commands;
      }
      i++;
      while (src[i] === ">" || src[i] === "&" || src[i] === "|") i++;
      redirectTarget = true;
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
          const { value, end } = expandDollar(src, i, context);
          if (value === null) resolvable = false;
          else text += value;
          i = end;
        } else if (d === "`") {
          resolvable = false;
          i = skipBackquoted(src, i);
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
      const { value, end } = expandDollar(src, i, context);
      if (value === null) resolvable = false;
      else text += value;
      i = end;
    } else if (c === "`") {
      started = true;
      resolvable = false;
      i = skipBackquoted(src, i);
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
      if (c === "=" && !quoted && !assignment && words.every((w) => w.assignment) && NAME.test(text)) assignment = true;
      started = true;
      text += c;
      i++;
    }
  }
  endCommand();
  return commands;
}

/** `$NAME`, `${NAME}`: a known variable's value; anything else (`$(…)`, `$1`, `${X:-y}`, `$'…'`) is unknown. */
function expandDollar(src: string, at: number, context: WordContext): { value: string | null; end: number } {
  const next = src[at + 1];
  if (next === undefined || " \t\n;&|)\"".includes(next)) return { value: "$", end: at + 1 };
  if (next === "{") {
    const close = src.indexOf("}", at + 2);
    if (close === -1) return { value: null, end: src.length };
    const name = src.slice(at + 2, close);
    return { value: NAME.test(name) ? (context.vars[name] ?? null) : null, end: close + 1 };
  }
  if (next === "(") return { value: null, end: skipParenthesised(src, at + 1) };
  if (next === "'") {
    const close = src.indexOf("'", at + 2);
    return { value: null, end: close === -1 ? src.length : close + 1 };
  }
  const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(at + 1, at + 257))?.[0];
  if (name === undefined) return { value: null, end: at + 2 }; // $1, $@, $?, $$...
  return { value: context.vars[name] ?? null, end: at + 1 + name.length };
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
