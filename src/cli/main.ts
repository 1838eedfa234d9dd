#!/usr/bin/env node
import { CommanderError } from "commander";
import { EXIT, errorLine, failureLines, messageOf } from "../errors.js";
import { killAllGroupsNow } from "../exec/processGroups.js";
import { err } from "./io.js";
import { buildProgram } from "./program.js";
import { COMMANDS } from "./registry/index.js";

/**
 * Whether the command's exit status is its answer (`run`: the decision; `record`: whether it was logged): then a
 * closed or failing stdout or stderr must not change it, and the command finishes as if it had been read. The other
 * commands print listings, and a reader that stops early (`qhooks log | head`) has seen all it wanted.
 */
let exitStatusIsTheAnswer = false;

/** The one place that turns errors into a line on stderr and an exit status. */
async function main(argv: readonly string[]): Promise<number> {
  let code: number = EXIT.ok;
  const program = buildProgram(COMMANDS, {
    setExit: (c) => (code = c),
    statusIsTheAnswer: () => (exitStatusIsTheAnswer = true),
  });
  try {
    await program.parseAsync(argv as string[]);
    return code;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) return EXIT.ok; // --help, --version
      // Commander puts its "(Did you mean --settings?)" on a line of its own: keep the message on one line.
      err(errorLine(error.message.replace(/^error: /, "").replace(/\s*\n\s*/g, " ")));
      return EXIT.failure;
    }
    const failure = failureLines(error, Boolean(process.env.QHOOKS_DEBUG));
    for (const line of failure.lines) err(line);
    return failure.exitCode;
  }
}

process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  if (exitStatusIsTheAnswer) return;
  if (e.code === "EPIPE") process.exit(EXIT.ok);
  // Anything else (a full disk under `> file`) means the listing was not written.
  process.stderr.write(`qhooks: cannot write the output: ${e.code ?? messageOf(e)}\n`);
  process.exit(EXIT.failure);
});
// Nowhere is left to report a failing stderr: what was to be said there is lost, the exit status is not.
process.stderr.on("error", () => undefined);
// Stopped from outside: the hooks go down with the engine (their arrival stays in the log, as unfinished), then the
// signal is raised again so that whoever started qhooks sees it die of that signal.
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
  process.once(signal, () => {
    killAllGroupsNow();
    process.kill(process.pid, signal);
  });
}

void main(process.argv).then((code) => {
  process.exitCode = code;
});
