import { z } from "zod";
import { EventNameSchema } from "./events.js";
import { GroupSettingSchema, HandlerSettingSchema } from "./settings.js";

/**
 * A settings file as an editor should check it (`qhooks schema settings`). Built from the schemas qhooks reads
 * settings with; stricter where qhooks only warns (an unknown event, handler key or group key is a warning to
 * qhooks and a mistake to underline in an editor). Other top-level keys belong to other features and pass.
 */
const HandlerDocumentSchema = z.strictObject({
  ...HandlerSettingSchema.shape,
  type: HandlerSettingSchema.shape.type.describe('The kind of handler: "command", a shell command.'),
  command: HandlerSettingSchema.shape.command.describe(
    "Run as /bin/sh -c in the project directory, with the event's JSON on stdin. Exit 0: go on (stdout may be JSON); exit 2: block, stderr is the reason; anything else: a non-blocking error.",
  ),
  timeout: HandlerSettingSchema.shape.timeout.describe("Seconds before the hook's process group is stopped (default 60)."),
  name: HandlerSettingSchema.shape.name.describe("A label for logs and messages (default: the command)."),
  mode: HandlerSettingSchema.shape.mode.describe(
    'shadow: the hook runs and its verdict is logged, but it never changes the outcome (no block, stop or input rewrite); enforce (the default): it counts.',
  ),
});

const GroupDocumentSchema = z.strictObject({
  ...GroupSettingSchema.shape,
  matcher: GroupSettingSchema.shape.matcher.describe(
    "Which tool names (or sources, agent types...) the hooks apply to: missing, empty or * for all; Write|Edit for a list of names; anything else is a regular expression (mcp__.*).",
  ),
  hooks: z.array(HandlerDocumentSchema).describe("The handlers of this group; all matching handlers of an event run at once."),
});

export const SettingsDocumentSchema = z
  .looseObject({
    $schema: z.string().optional().describe("Where an editor finds this schema, e.g. ./settings.schema.json."),
    hooks: z
      .partialRecord(EventNameSchema, z.array(GroupDocumentSchema))
      .optional()
      .describe("Hooks by event: each event has a list of matcher groups."),
  })
  .meta({ title: "qhooks settings", description: "A settings file of qhooks: user, project or local level, or one given with --settings." });
