import { callRunner } from "./callRunner.js";
import { commandRunner } from "./commandRunner.js";
import { httpRunner } from "./httpRunner.js";
import { inProcessRunner } from "./inProcessRunner.js";
import type { Runner } from "./runner.js";
import type { SelectedHook } from "../../core/hookDescriptor.js";

export type { Runner, RunRequest } from "./runner.js";

/** The runner of a hook's handler type: one per type, each in its own file. */
export function runnerFor(spec: SelectedHook): Runner {
  switch (spec.kind) {
    case "in-process":
      return inProcessRunner;
    case "command":
      return commandRunner;
    case "http":
      return httpRunner;
    case "prompt":
    case "agent":
    case "mcp_tool":
      return callRunner;
  }
}
