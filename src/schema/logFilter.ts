import { z } from "zod";
import { EventNameSchema } from "./events.js";
import { LogDecisionSchema } from "./logRecord.js";

/** Which events an audit query or a replay selects. */
export const LogFilterSchema = z.object({
  event: EventNameSchema.optional(),
  sessions: z.array(z.string()).optional(),
  /** Exact match value: the tool name for tool events, the agent type, the source... */
  tool: z.string().optional(),
  decision: LogDecisionSchema.optional(),
  blocked: z.boolean().optional(),
  /** Substring of a hook's name or command: events where such a hook ran. */
  hook: z.string().optional(),
  /**
   * With `hook`: the same hook's other names, exactly (the names the log stored its runs under before it was
   * renamed: its whole command, a plugin's `plugin: command`); an event where a hook of one of them ran matches too.
   */
  hookNames: z.array(z.string()).optional(),
  /** Case-sensitive substring of the payload JSON or the reason. */
  grep: z.string().optional(),
  since: z.date().optional(),
  until: z.date().optional(),
  /** Events where a hook failed: it errored, timed out or gave output that could not be read. */
  errors: z.boolean().optional(),
  /** Events of this project directory (absolute, as logged). */
  projectDir: z.string().optional(),
  /** Events where a shadow hook would have changed the outcome (its decision, a stop, the tool input). */
  shadow: z.boolean().optional(),
  /** Events written on this machine (its host name, exactly as logged). */
  machine: z.string().optional(),
  /** Events written by this OS user. */
  user: z.string().optional(),
  /** Events of this writer: a log's id (a shipped log's chain), or a direct writer's id (`host:<name>`). */
  writer: z.string().optional(),
  /** Events judged by this host's settings (the agent: qoder, claude...); recorded and rejected events have none. */
  host: z.string().optional(),
  /** Events of this replay run instead of live ones. */
  replayRun: z.string().optional(),
});
export type LogFilter = z.infer<typeof LogFilterSchema>;
