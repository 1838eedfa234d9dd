import { basename } from "node:path";
import { simpleCommands, type ShellWord } from "./shellWords.js";

/**
 * Commands that run the command that follows their own options, with the grammar of those options (GNU and BSD
 * spellings): which short options take a value, which long ones do. An option not listed here makes the wrapper
 * unrecognised, and its command is then pinned as a whole with every file it names.
 */
interface WrapperGrammar {
  readonly shortFlags: string;
  readonly shortWithValue: string;
  readonly longFlags: readonly string[];
  readonly longWithValue: readonly string[];
  /** Long options whose value is optional and only ever given with `=` (`--default-signal[=SIG]`). */
  readonly longOptionalValue?: readonly string[];
  /** Words after the options that are operands, not the command (`timeout`'s duration). */
  readonly operands?: number;
  /** `NAME=value` words after the options are assignments (`env`). */
  readonly assignments?: boolean;
}

const GRAMMARS: Readonly<Record<string, WrapperGrammar>> = {
  env: {
    shortFlags: "i0v",
    shortWithValue: "uCSP",
    longFlags: ["--ignore-environment", "--null", "--debug"],
    longWithValue: ["--unset", "--chdir", "--split-string"],
    longOptionalValue: ["--default-signal", "--ignore-signal", "--block-signal"],
    assignments: true,
  },
  timeout: {
    shortFlags: "v",
    shortWithValue: "sk",
    longFlags: ["--preserve-status", "--foreground", "--verbose"],
    longWithValue: ["--signal", "--kill-after"],
    operands: 1,
  },
  nice: { shortFlags: "", shortWithValue: "n", longFlags: [], longWithValue: ["--adjustment"] },
  nohup: { shortFlags: "", shortWithValue: "", longFlags: [], longWithValue: [] },
  exec: { shortFlags: "cl", shortWithValue: "a", longFlags: [], longWithValue: [] },
  command: { shortFlags: "pvV", shortWithValue: "", longFlags: [], longWithValue: [] },
  builtin: { shortFlags: "", shortWithValue: "", longFlags: [], longWithValue: [] },
  time: {
    shortFlags: "pavlq",
    shortWithValue: "fo",
    longFlags: ["--append", "--verbose", "--portability", "--quiet"],
    longWithValue: ["--format", "--output"],
  },
  stdbuf: { shortFlags: "", shortWithValue: "ioe", longFlags: [], longWithValue: ["--input", "--output", "--error"] },
  setsid: { shortFlags: "cfw", shortWithValue: "", longFlags: ["--ctty", "--fork", "--wait"], longWithValue: [] },
  ionice: { shortFlags: "t", shortWithValue: "cn", longFlags: ["--ignore"], longWithValue: ["--class", "--classdata"] },
};

export const WRAPPERS: ReadonlySet<string> = new Set(Object.keys(GRAMMARS));

export interface Wrapped {
  /** The words, with `env -S`'s string split in place. */
  readonly words: readonly ShellWord[];
  /** The index of the word after the wrapper's options and operands. */
  readonly next: number;
  /** `env -C dir`: the directory the command runs in (null: only the shell knows it). */
  readonly chdir?: string | null;
}

/** The wrapper at `at` read with its grammar; null when an option is not one it has (the form is not recognised). */
export function parseWrapper(words: readonly ShellWord[], at: number, vars: Readonly<Record<string, string>>, home: string): Wrapped | null {
  const name = basename(words[at]!.text!);
  const grammar = GRAMMARS[name]!;
  const list = [...words];
  let chdir: string | null | undefined;
  let k = at + 1;
  /** An option with its value, the next word read at `next`. */
  const take = (option: string, value: string | null, next: number): boolean => {
    k = next;
    if (name === "env" && (option === "-C" || option === "--chdir")) chdir = value;
    if (name === "env" && (option === "-S" || option === "--split-string")) {
      if (value === null) return false;
      // `env -S 'bash -e' ./x.sh`: the string is split into words, read next.
      list.splice(k, 0, ...(simpleCommands(value, { vars, home })[0]?.words ?? []));
    }
    return true;
  };
  while (k < list.length) {
    const text = list[k]!.text;
    // Only the shell knows this word: it is taken as the command (or timeout's duration), never skipped.
    if (text === null) break;
    if (text === "--") {
      k++;
      break;
    }
    if ((grammar.assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(text)) || (name === "env" && text === "-") || (name === "nice" && /^-\d+$/.test(text))) {
      k++;
      continue;
    }
    if (text.startsWith("--")) {
      const eq = text.indexOf("=");
      const option = eq === -1 ? text : text.slice(0, eq);
      if ((grammar.longFlags.includes(option) && eq === -1) || grammar.longOptionalValue?.includes(option)) k++;
      else if (!grammar.longWithValue.includes(option)) return null;
      else if (!(eq === -1 ? take(option, list[k + 1]?.text ?? null, k + 2) : take(option, text.slice(eq + 1), k + 1))) return null;
      continue;
    }
    if (text.startsWith("-") && text.length > 1) {
      let next = k + 1;
      for (let c = 1; c < text.length; c++) {
        const ch = text[c]!;
        if (grammar.shortFlags.includes(ch)) continue;
        if (!grammar.shortWithValue.includes(ch)) return null;
        // `-sKILL` or `-s KILL`, also at the end of a cluster (`-vs KILL`).
        const attached = text.slice(c + 1);
        const value = attached !== "" ? attached : (list[k + 1]?.text ?? null);
        next = attached !== "" ? k + 1 : k + 2;
        if (!take(`-${ch}`, value, next)) return null;
        break;
      }
      k = Math.max(k, next);
      continue;
    }
    break;
  }
  k += grammar.operands ?? 0;
  return { words: list, next: k, ...(chdir !== undefined ? { chdir } : {}) };
}
