import { Option } from "commander";
import { QhooksError } from "../../errors.js";
import { flagsGiven, flagsOf, parentOpts, type CommandSpec } from "../commandSpec.js";
import { collect } from "../filterOptions.js";
import { cliContext } from "../globals.js";

export const testAdd: CommandSpec = {
  path: ["test", "add"],
  description: "save a logged event as a hook test: its event, its payload and the decision to expect (the logged one unless --expect)",
  define: (c) =>
    c
      .argument("<seq>", "the event's SEQ, as qhooks log shows it")
      .addOption(new Option("--expect <decision>", "the decision to expect instead of the logged one").choices(["allow", "deny", "ask", "block", "none"]))
      .option("--name <name>", "the case's name (default: the seq, event and tool)")
      .option("--reason <text>", "also expect the outcome's reason to contain this text")
      .option("--ran <hook>", "also expect this hook (by name) to run (repeatable)", collect)
      .option("--not-ran <hook>", "also expect this hook not to run (repeatable)", collect)
      .option("--file <path>", "the test file to add to (default: the one qhooks test reads)"),
  action: async ({ args: [seq], opts, command }) => {
    // Commander gives `qhooks test`'s own flags to it, even after `add`: its --file is the same file here; the
    // others mean nothing to add.
    const { file, ...stray } = parentOpts(command);
    const names = flagsGiven(stray);
    if (names.length) throw new QhooksError("usage", `test add: ${names.join(", ")} belongs to qhooks test, not to test add`);
    const { testAddCommand, TestAddFlagsSchema } = await import("../commands/test.js");
    return testAddCommand(seq!, flagsOf(TestAddFlagsSchema, { ...opts, file: opts.file ?? file }), cliContext(command));
  },
};
