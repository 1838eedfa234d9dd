import type { HookSpec } from "../../core/stages.js";
import { callRunner } from "./callRunner.js";
import { commandRunner } from "./commandRunner.js";
import { httpRunner } from "./httpRunner.js";
import { inProcessRunner } from "./inProcessRunner.js";
import type { Runner } from "./runner.js";

export type { Runner, RunRequest } from "./runner.js";

/** The runner of a hook's handler type: one per type, each in its own file. */
export function runnerFor(spec: HookSpec): Runner {
  if (spec.kind === "in-process") return inProcessRunner;
  switch (spec.handler?.type ?? "command") {
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
