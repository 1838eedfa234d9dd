import { z } from "zod";
import { DIALECTS } from "../hosts/hostDialect.js";
import { EventNameSchema } from "../schema/events.js";
import { INSTALL_SCOPES } from "./installPaths.js";

/** One handler group qhooks appended to `hooks.<event>` of the target file, exactly as written. */
export const InstalledEntrySchema = z.object({
  event: EventNameSchema,
  group: z.record(z.string(), z.unknown()),
});
export type InstalledEntry = z.infer<typeof InstalledEntrySchema>;

/**
 * What `qhooks install` wrote, kept outside the host's files (installPaths.ts): enough for `uninstall` to remove
 * exactly that, and to restore the file byte for byte while nobody else has changed it.
 */
export const InstallRecordSchema = z.object({
  format: z.literal("qhooks-install/1"),
  host: z.enum(DIALECTS),
  scope: z.enum(INSTALL_SCOPES),
  installedAt: z.string(),
  node: z.string(),
  cli: z.string(),
  /** The settings file changed (its real path). */
  file: z.string(),
  /** The file before install: whether it existed, its bytes (base64) and their sha256. */
  before: z.object({ existed: z.boolean(), base64: z.string(), sha256: z.string() }),
  /** sha256 of the file as install left it: unchanged since means a byte-for-byte restore is safe. */
  afterSha256: z.string(),
  /** Folders install created for the file, outermost first: removed again when empty. */
  createdDirs: z.array(z.string()),
  entries: z.array(InstalledEntrySchema),
  /** Top-level settings install set (allowManagedHooksOnly), with their values. */
  settings: z.record(z.string(), z.unknown()),
  /** Whether install created the `hooks` key, and which `hooks.<event>` arrays. */
  createdHooksKey: z.boolean(),
  createdEvents: z.array(EventNameSchema),
  /** Whether this install wrote the remembered dialect (~/.qhooks/config.json), none being set: uninstall takes it back. */
  rememberedDialect: z.boolean().optional(),
});
export type InstallRecord = z.infer<typeof InstallRecordSchema>;
