import { z } from "zod";
import { EXIT, QhooksError } from "../../errors.js";
import { PAYLOAD_SCHEMAS, type EventName } from "../../schema/events.js";
import { ExplanationSchema } from "../../schema/explanation.js";
import { HookTestCaseSchema } from "../../schema/hookTest.js";
import { OutcomeSchema } from "../../schema/outcome.js";
import { SettingsDocumentSchema } from "../../schema/settingsDocument.js";
import { oneLineText } from "../../text/oneLine.js";
import { out } from "../io.js";

const WHAT = ["settings", "outcome", "payload", "hook-test", "explanation"] as const;

/**
 * `qhooks schema [settings|outcome|payload EVENT|hook-test]`: JSON Schema made by zod's own converter from the schemas qhooks
 * itself validates with, so that it cannot drift from what qhooks does. Settings, payloads and hook tests are
 * described as they are written (input), the outcome as qhooks prints it (output).
 */
export function schemaCommand(what: string, event: EventName | undefined): number {
  if (!(WHAT as readonly string[]).includes(what)) {
    throw new QhooksError("usage", `schema: unknown schema "${oneLineText(what, 40)}"; one of ${WHAT.join(", ")} (payload takes an event)`);
  }
  if (what === "payload" && event === undefined) throw new QhooksError("usage", "schema payload needs an event, e.g. qhooks schema payload PreToolUse");
  if (what !== "payload" && event !== undefined) throw new QhooksError("usage", `schema ${what} takes no event`);
  const schema =
    what === "settings"
      ? z.toJSONSchema(SettingsDocumentSchema, { io: "input" })
      : what === "outcome"
        ? z.toJSONSchema(OutcomeSchema.meta({ title: "qhooks outcome", description: "What qhooks run prints and dispatch() resolves to." }), { io: "output" })
        : what === "explanation"
          ? z.toJSONSchema(
              ExplanationSchema.meta({
                title: "qhooks explanation",
                description: "What qhooks explain --json prints: every hook of the configuration with its verdict, and how the outcome was formed.",
              }),
              { io: "output" },
            )
          : what === "hook-test"
            ? z.toJSONSchema(
                HookTestCaseSchema.meta({
                  title: "qhooks hook test",
                  description: "One line of a hook test file (hook-tests.jsonl in the host's project folder, .claude/ or .qoder/...): what qhooks test judges.",
                }),
                { io: "input" },
              )
            : z.toJSONSchema(
                PAYLOAD_SCHEMAS[event!].meta({
                  title: `qhooks ${event} payload`,
                  description: `What an agent sends for ${event}, and what its hooks read on stdin.`,
                }),
                { io: "input" },
              );
  out(JSON.stringify(schema, null, 2));
  return EXIT.ok;
}
