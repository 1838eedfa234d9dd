/**
 * Errors a user can cause and fix: bad usage, an invalid payload, an unreadable file. Anything else that escapes is
 * a bug in qhooks and is reported as one. Expected hook outcomes (block, timeout, bad JSON) are never errors.
 */
export type QhooksErrorCode =
  | "usage" // bad flags or arguments
  | "invalid-payload" // the event payload failed validation
  | "recursion" // a hook called qhooks in a cycle
  | "io" // a file could not be read or written
  | "log" // the event log could not be opened or written
  | "integrity" // the log's hash chain is broken
  | "closed"; // the bus was used after close()

export class QhooksError extends Error {
  override readonly name = "QhooksError";
  constructor(
    readonly code: QhooksErrorCode,
    /** One line, no trailing period, no stack, no `qhooks:` prefix (main.ts adds it): shown to the user as is. */
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export const isQhooksError = (e: unknown): e is QhooksError => e instanceof QhooksError;

/** Exit status of the CLI for each kind of failure. Blocked `run`s exit 2, decided elsewhere. */
export const EXIT = { ok: 0, failure: 1, blocked: 2, integrity: 3 } as const;

export function exitCodeFor(error: unknown): number {
  return isQhooksError(error) && error.code === "integrity" ? EXIT.integrity : EXIT.failure;
}

/** The first line of an unknown thrown value, for messages that must stay one line. */
export function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split("\n", 1)[0]!.trim();
}

/**
 * A failure as the CLI says it (one place for the words; cli/main.ts turns them into the process's output): a
 * qhooks error's line with `qhooks: ` once (a hook's own qhooks, quoted, does not get it twice), anything else as an
 * internal error on one line, with the stack trace under QHOOKS_DEBUG.
 */
export function failureLines(error: unknown, debug: boolean): { readonly lines: readonly string[]; readonly exitCode: number } {
  if (isQhooksError(error)) return { lines: [errorLine(error.message)], exitCode: exitCodeFor(error) };
  const lines = [errorLine(`internal error: ${messageOf(error)} (set QHOOKS_DEBUG=1 for a stack trace)`)];
  if (debug) lines.push(error instanceof Error ? (error.stack ?? "") : String(error));
  return { lines, exitCode: EXIT.failure };
}

/** An error's line on stderr: `qhooks: ` once. */
export const errorLine = (message: string): string => `qhooks: ${message.replace(/^qhooks: /, "")}`;
