/** What went wrong with $CLAUDE_ENV_FILE, as a value: the outcome's warning says it (envFileProblemText). */
export type EnvFileProblem =
  /** The file could not be made: the hooks ran without one. */
  | { readonly problem: "not-created"; readonly why: string }
  /** A hook replaced it with something else than a regular file (a FIFO, a directory, a device): not read. */
  | { readonly problem: "not-regular"; readonly what: string }
  | { readonly problem: "unreadable"; readonly code: string }
  /** More than MAX_ENV_FILE_BYTES: the rest is ignored. */
  | { readonly problem: "too-large"; readonly limit: number }
  /** The line the limit cut in two: not set, since its value would be a part of what the hook wrote. */
  | { readonly problem: "cut-line"; readonly line: number; readonly limit: number }
  | { readonly problem: "not-assignment"; readonly line: number };

export function envFileProblemText(p: EnvFileProblem): string {
  switch (p.problem) {
    case "not-created":
      return `no $CLAUDE_ENV_FILE for this SessionStart: ${p.why}`;
    case "not-regular":
      return `$CLAUDE_ENV_FILE was replaced by ${p.what}, not a regular file: not read, no variable set`;
    case "unreadable":
      return `$CLAUDE_ENV_FILE could not be read (${p.code}): no variable set`;
    case "too-large":
      return `$CLAUDE_ENV_FILE: more than ${p.limit} bytes; the rest is ignored`;
    case "cut-line":
      return `$CLAUDE_ENV_FILE line ${p.line}: cut by the ${p.limit}-byte limit, not set`;
    case "not-assignment":
      return `$CLAUDE_ENV_FILE line ${p.line}: not an export K=V assignment, ignored`;
  }
}
