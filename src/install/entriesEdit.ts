import * as jsonc from "jsonc-parser";
import { isDeepStrictEqual } from "node:util";
import { QhooksError } from "../errors.js";
import { describeJsonError } from "../json/describeJsonError.js";
import { addProperty, appendToArray, styleOf } from "../json/jsonInsert.js";
import type { EventName } from "../schema/events.js";
import type { InstalledEntry } from "./installRecord.js";
import type { HostDialect } from "../hosts/hostDialect.js";
import { hostEventOf } from "../hosts/hostEventNames.js";
import { isJsonObject, type JsonObject } from "../json/jsonObject.js";

/** A settings document as JSON, or one clear line saying why install leaves it alone. */
export function parseDocument(text: string, shown: string): JsonObject {
  if (text.trim() === "") return {};
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (e) {
    throw new QhooksError("usage", `${shown} is not valid JSON (${describeJsonError(text, e)}); fix it first, nothing was changed`);
  }
  if (!isJsonObject(document)) throw new QhooksError("usage", `${shown}: expected a JSON object; nothing was changed`);
  if (document.hooks !== undefined && !isJsonObject(document.hooks)) throw new QhooksError("usage", `${shown}: hooks: expected an object; nothing was changed`);
  return document;
}

export interface Added {
  readonly text: string;
  readonly createdHooksKey: boolean;
  readonly createdEvents: EventName[];
}

/**
 * The file's text with qhooks' groups appended to `hooks.<event>` and its top-level settings added, as text insertions
 * (json/jsonInsert.ts): every other byte of the file stays, key order, indentation and number forms included.
 */
export function addEntries(
  text: string,
  entries: readonly InstalledEntry[],
  settings: JsonObject,
  shown: string,
  keyOf: KeyOf = sameName,
  /** Keys a file install creates starts with (Copilot CLI's `version`), never recorded as install's settings. */
  fresh: JsonObject = {},
): Added {
  const document = parseDocument(text, shown);
  const hooks = document.hooks as JsonObject | undefined;
  for (const key of Object.keys(settings)) {
    if (key in document)
      throw new QhooksError("usage", `${shown} already sets ${key} (to ${JSON.stringify(document[key])}); remove it first, nothing was changed`);
  }
  for (const { event } of entries) {
    const key = keyOf(event);
    if (hooks?.[key] !== undefined && !Array.isArray(hooks[key]))
      throw new QhooksError("usage", `${shown}: hooks.${key}: expected an array of matcher groups; nothing was changed`);
  }
  const expected = structuredClone(document);
  const newEvents = entries.map((e) => e.event).filter((e) => hooks?.[keyOf(e)] === undefined);
  if (text.trim() === "") {
    const created = { ...fresh, ...settings, hooks: groupsByEvent(entries, keyOf) };
    return { text: `${JSON.stringify(created, null, 2)}\n`, createdHooksKey: true, createdEvents: newEvents };
  }
  const style = styleOf(text);
  let edited = text;
  try {
    for (const [key, value] of Object.entries(settings)) {
      edited = addProperty(edited, [], key, value, style);
      expected[key] = value;
    }
    if (hooks === undefined) {
      const all = groupsByEvent(entries, keyOf);
      edited = addProperty(edited, [], "hooks", all, style);
      expected.hooks = all;
    } else {
      const expectedHooks = expected.hooks as JsonObject;
      for (const { event, group } of entries) {
        const key = keyOf(event);
        if (expectedHooks[key] === undefined) {
          edited = addProperty(edited, ["hooks"], key, [group], style);
          expectedHooks[key] = [group];
        } else {
          edited = appendToArray(edited, ["hooks", key], group, style);
          (expectedHooks[key] as unknown[]).push(group);
        }
      }
    }
  } catch {
    throw new QhooksError("usage", `${shown} cannot be edited safely (is a key given twice?); nothing was changed`);
  }
  let reread: unknown;
  try {
    reread = JSON.parse(edited);
  } catch {
    reread = undefined;
  }
  if (!isDeepStrictEqual(reread, expected)) throw new QhooksError("usage", `${shown} cannot be edited safely (is a key given twice?); nothing was changed`);
  return { text: edited, createdHooksKey: hooks === undefined, createdEvents: newEvents };
}

/** One group per event (install writes one entry per event), under the host's name for it. */
const groupsByEvent = (entries: readonly InstalledEntry[], keyOf: KeyOf): JsonObject =>
  Object.fromEntries(entries.map(({ event, group }) => [keyOf(event), [group]]));

/** The key of an event in the host's `hooks` section: its name for it (Gemini CLI's `BeforeTool`). */
export type KeyOf = (event: EventName) => string;
const sameName: KeyOf = (event) => event;

/** An event's key in the host's files, and in the command of its entry: the host's name for it. */
export const hostKeys =
  (host: HostDialect): KeyOf =>
  (event) =>
    hostEventOf(host.eventNames, event) ?? event;

export interface Removed {
  readonly text: string;
  /** Events whose qhooks group is no longer there as written (edited by hand): left alone. */
  readonly notFound: EventName[];
}

/** Removes exactly the groups and settings install wrote (as written), and the containers it created once empty. */
export function removeEntries(
  text: string,
  record: {
    readonly entries: readonly InstalledEntry[];
    readonly settings: JsonObject;
    readonly createdHooksKey: boolean;
    readonly createdEvents: readonly EventName[];
  },
  shown: string,
  keyOf: KeyOf = sameName,
): Removed {
  const style = styleOf(text);
  const formattingOptions: jsonc.FormattingOptions = {
    insertSpaces: style.unit !== "\t",
    tabSize: style.unit === "\t" ? 1 : style.unit.length,
    eol: style.eol,
  };
  const remove = (current: string, path: jsonc.JSONPath): string => jsonc.applyEdits(current, jsonc.modify(current, path, undefined, { formattingOptions }));
  let edited = text;
  const notFound: EventName[] = [];
  for (const { event, group } of [...record.entries].reverse()) {
    const groups = parseDocument(edited, shown).hooks as JsonObject | undefined;
    const list = groups?.[keyOf(event)];
    const at = Array.isArray(list) ? list.findLastIndex((g) => isDeepStrictEqual(g, group)) : -1;
    if (at === -1) notFound.push(event);
    else edited = remove(edited, ["hooks", keyOf(event), at]);
  }
  for (const event of record.createdEvents) {
    const list = (parseDocument(edited, shown).hooks as JsonObject | undefined)?.[keyOf(event)];
    if (Array.isArray(list) && list.length === 0) edited = remove(edited, ["hooks", keyOf(event)]);
  }
  const document = parseDocument(edited, shown);
  if (record.createdHooksKey && isJsonObject(document.hooks) && Object.keys(document.hooks).length === 0) edited = remove(edited, ["hooks"]);
  for (const [key, value] of Object.entries(record.settings)) if (isDeepStrictEqual(parseDocument(edited, shown)[key], value)) edited = remove(edited, [key]);
  return { text: edited, notFound: notFound.reverse() };
}
