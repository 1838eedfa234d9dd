import { z } from "zod";
import { EventNameSchema } from "./events.js";
import { CommandHandlerSchema, GroupSettingSchema, HttpHandlerSchema, McpToolHandlerSchema, PromptHandlerSchema } from "./settings.js";

/**
 * A settings file as an editor should check it (`qhooks schema settings`). Built from the schemas qhooks reads
 * settings with; stricter where qhooks only warns (an unknown event, handler key or group key is a warning to
 * qhooks and a mistake to underline in an editor). Other top-level keys belong to other features and pass.
 */
const common = {
  timeout: CommandHandlerSchema.shape.timeout.describe("Seconds before the hook is stopped (default 60); it holds for every handler type."),
  name: CommandHandlerSchema.shape.name.describe("A label for logs and messages (default: the command, or what the handler does)."),
  async: CommandHandlerSchema.shape.async.describe(
    "Run in the background: never delays or changes the outcome; the result is logged with the event when it ends.",
  ),
  once: CommandHandlerSchema.shape.once.describe("Run at most once per session."),
  statusMessage: CommandHandlerSchema.shape.statusMessage.describe("What an agent's user interface shows while the hook runs."),
  onFailure: CommandHandlerSchema.shape.onFailure.describe(
    '"block": a hook that cannot start, times out or fails blocks the event (if it can be blocked) instead of failing open.',
  ),
  id: CommandHandlerSchema.shape.id.describe("A label of your own; not used."),
  mode: CommandHandlerSchema.shape.mode.describe(
    "shadow: the hook runs and its verdict is logged, but it never changes the outcome (no block, stop or input rewrite); enforce (the default): it counts.",
  ),
};

const HandlerDocumentSchema = z.discriminatedUnion("type", [
  z.strictObject({
    ...CommandHandlerSchema.shape,
    ...common,
    type: CommandHandlerSchema.shape.type.describe('"command": a shell command.'),
    command: CommandHandlerSchema.shape.command.describe(
      "Run as /bin/sh -c (or the `shell`) in the project directory, with the event's JSON on stdin. Exit 0: go on (stdout may be JSON); exit 2: block, stderr is the reason; anything else: a non-blocking error.",
    ),
    shell: CommandHandlerSchema.shape.shell.describe("The shell the command runs with (`<shell> -c`), a path or a name on PATH; /bin/sh by default."),
  }),
  z.strictObject({
    ...HttpHandlerSchema.shape,
    ...common,
    url: HttpHandlerSchema.shape.url.describe(
      "POST the event's JSON here; the response body is read as the hook's output; a 2xx status is exit 0, any other an error.",
    ),
    headers: HttpHandlerSchema.shape.headers.describe("Request headers; $VAR and ${VAR} expand only for the names in allowedEnvVars."),
    allowedEnvVars: HttpHandlerSchema.shape.allowedEnvVars.describe("The environment variables headers may use."),
  }),
  z.strictObject({
    ...PromptHandlerSchema.shape,
    ...common,
    prompt: PromptHandlerSchema.shape.prompt.describe("What the evaluator is asked; $ARGUMENTS stands for the event's JSON."),
    model: PromptHandlerSchema.shape.model.describe("The model the evaluator should use."),
  }),
  z.strictObject({
    ...McpToolHandlerSchema.shape,
    ...common,
    server: McpToolHandlerSchema.shape.server.describe("The MCP server."),
    tool: McpToolHandlerSchema.shape.tool.describe("The tool to call."),
    input: McpToolHandlerSchema.shape.input.describe("The tool's arguments (the event's payload by default)."),
  }),
]);

const GroupDocumentSchema = z.strictObject({
  ...GroupSettingSchema.shape,
  description: GroupSettingSchema.shape.description.describe("What this group is for; not used."),
  id: GroupSettingSchema.shape.id.describe("A label of your own; not used."),
  matcher: GroupSettingSchema.shape.matcher.describe(
    "Which tool names (or sources, agent types...) the hooks apply to: missing, empty or * for all; Write|Edit for a list of names; anything else is a regular expression (mcp__.*).",
  ),
  hooks: z.array(HandlerDocumentSchema).describe("The handlers of this group; all matching handlers of an event run at once."),
});

export const SettingsDocumentSchema = z
  .looseObject({
    $schema: z.string().optional().describe("Where an editor finds this schema, e.g. ./settings.schema.json."),
    hooks: z.partialRecord(EventNameSchema, z.array(GroupDocumentSchema)).optional().describe("Hooks by event: each event has a list of matcher groups."),
  })
  .meta({ title: "qhooks settings", description: "A settings file of qhooks: user, project or local level, or one given with --settings." });
