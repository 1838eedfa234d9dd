import { flagsOf, type CommandSpec } from "../commandSpec.js";
import { collect } from "../filterOptions.js";
import { cliContext } from "../globals.js";

export const test: CommandSpec = {
  path: ["test"],
  description: "run the project's hook tests: each saved event judged with the settings in force (hooks run, with QHOOKS_TEST=1); exit 1 on a failure",
  define: (c) =>
    c
      .option("--settings <file>", "judge with exactly this settings file instead of the user/project/local ones (repeatable)", collect)
      .option("--plugin <dir>", "also run the hooks of this plugin folder (repeatable)", collect)
      .option(
        "--file <path>",
        "the test file (default: hook-tests.jsonl in the host's project folder: <project>/.claude/ with --dialect claude, .qoder/ with qoder...)",
      )
      .option("--junit <file>", "also write the results as JUnit XML, for CI")
      .addHelpText(
        "after",
        `
A test file has one case per line (JSON): the event, its payload, and what to expect of the outcome: the decision,
and optionally a substring of the reason, hooks that must have run and hooks that must not. Nothing is logged.

Examples:
  qhooks log --blocked                         # find the event to keep, by its SEQ
  qhooks test add 41 --name "rm -rf is denied" --ran block-rm
  qhooks test                                  # ok    rm -rf is denied (line 1): deny ... 1 passed, 0 failed
  qhooks test --settings new-guards.json --junit reports/hooks.xml`,
      ),
  action: async ({ opts, command }) => {
    const { testCommand, TestFlagsSchema } = await import("../commands/test.js");
    return testCommand(flagsOf(TestFlagsSchema, opts), cliContext(command));
  },
};
