import { randomBytes } from "node:crypto";
import { closeSync, constants, fstatSync, fsyncSync, lstatSync, mkdirSync, openSync, readSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { localDataDir } from "../core/dataDir.js";
import { QhooksError, messageOf } from "../errors.js";
import { describeJsonError } from "../json/describeJsonError.js";
import { TrustStoreSchema, type TrustEntry, type TrustScope, type TrustStore } from "../schema/trust.js";
import { firstIssueLine } from "../schema/zodIssues.js";

/** The store is a list of hashes: past this size it is not one qhooks wrote. */
const MAX_STORE_BYTES = 16 * 1024 * 1024;

export const EMPTY_TRUST_STORE: TrustStore = { version: 1, trusted: [] };

/** One user's trust store: `~/.qhooks/trust.json`, next to the default log, in every dialect. */
export function trustStorePath(homeDir: string): string {
  return join(localDataDir(homeDir), "trust.json");
}

/** How messages name the store: with `~` for the home directory. */
export function displayStorePath(path: string, homeDir: string): string {
  return path.startsWith(`${homeDir}/`) ? `~${path.slice(homeDir.length)}` : path;
}

/** The store as read: its entries, or why it cannot be relied on (then nothing that needs trust runs). */
export type TrustStoreRead =
  | { readonly state: "ok"; readonly store: TrustStore; readonly index: TrustIndex }
  | { readonly state: "refused"; readonly why: string };

/** Entries by what a hook is looked up by. */
export interface TrustIndex {
  /** `scope` + digest: the hooks that may run. */
  readonly digests: ReadonlySet<string>;
  /** `scope` + where the hook was declared, to the time it was trusted: tells a changed hook from a new one. */
  readonly places: ReadonlyMap<string, string>;
}

export const scopeKey = (scope: TrustScope): string => `${scope.kind}\0${scope.path}`;

export function indexOf(store: TrustStore): TrustIndex {
  const digests = new Set<string>();
  const places = new Map<string, string>();
  for (const e of store.trusted) {
    digests.add(`${scopeKey(e.scope)}\0${e.digest}`);
    places.set(`${scopeKey(e.scope)}\0${e.where}`, e.trustedAt);
  }
  return { digests, places };
}

/**
 * Reads the store, refusing one that someone else could have written: not a regular file (a symlink, a FIFO...),
 * owned by another user, writable by its group or by everyone, in a folder others can write to, too large, not
 * JSON, or not a trust store. A missing store is an empty one. Never blocks: a FIFO is seen before it is read.
 */
export function readTrustStore(path: string): TrustStoreRead {
  const refused = (why: string): TrustStoreRead => ({ state: "refused", why });
  const folder = folderProblem(dirname(path));
  let link;
  try {
    link = lstatSync(path, { throwIfNoEntry: false });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOTDIR") return ok(EMPTY_TRUST_STORE);
    return refused(`cannot be examined (${code ?? messageOf(e)})`);
  }
  if (link === undefined) return folder === null ? ok(EMPTY_TRUST_STORE) : refused(folder);
  if (link.isSymbolicLink()) return refused("is a symbolic link, not a regular file");
  if (!link.isFile()) return refused(`is ${kindOf(link)}, not a regular file`);
  if (folder !== null) return refused(folder);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW | constants.O_NOCTTY);
  } catch (e) {
    return refused(`cannot be read (${(e as NodeJS.ErrnoException).code ?? messageOf(e)})`);
  }
  let text: string;
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return refused(`is ${kindOf(st)}, not a regular file`);
    const owner = ownerProblem(st.uid);
    if (owner !== null) return refused(owner);
    if ((st.mode & 0o022) !== 0)
      return refused(`is writable by ${(st.mode & 0o002) !== 0 ? "every user" : "its group"} (mode ${modeOf(st.mode)}: chmod 600 makes it private)`);
    if (st.size > MAX_STORE_BYTES) return refused(`is larger than ${MAX_STORE_BYTES / 1024 / 1024} MiB`);
    const buffer = Buffer.alloc(st.size + 1);
    let length = 0;
    for (let n; length < buffer.length && (n = readSync(fd, buffer, length, buffer.length - length, null)) > 0; ) length += n;
    if (length > st.size) return refused("grew while it was read");
    text = buffer.toString("utf8", 0, length);
  } catch (e) {
    return refused(`cannot be read (${(e as NodeJS.ErrnoException).code ?? messageOf(e)})`);
  } finally {
    closeSync(fd);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return refused(`is not valid JSON (${describeJsonError(text, e)})`);
  }
  const parsed = TrustStoreSchema.safeParse(json);
  if (!parsed.success) return refused(`is not a trust store qhooks wrote (${firstIssueLine(parsed.error)})`);
  return ok(parsed.data);
}

function ok(store: TrustStore): TrustStoreRead {
  return { state: "ok", store, index: indexOf(store) };
}

/** Replaces the store in one step (a new file renamed over it), private to the user. */
export function writeTrustStore(path: string, store: TrustStore): void {
  const tmp = `${path}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`;
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      writeSync(fd, `${JSON.stringify(store, null, 2)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw new QhooksError("io", `cannot write the trust store ${path}: ${messageOf(e)}`, { cause: e });
  }
}

/** The store with these entries added (an entry of the same scope and digest is replaced: newest place and time). */
export function withEntries(store: TrustStore, entries: readonly TrustEntry[]): TrustStore {
  const key = (e: TrustEntry) => `${scopeKey(e.scope)}\0${e.digest}`;
  const added = new Set(entries.map(key));
  return { version: 1, trusted: [...store.trusted.filter((e) => !added.has(key(e))), ...entries] };
}

/** Someone else who can write the folder can replace the store. */
function folderProblem(folder: string): string | null {
  let st;
  try {
    st = statSync(folder, { throwIfNoEntry: false });
  } catch {
    return null;
  }
  if (st === undefined) return null;
  if ((st.mode & 0o022) !== 0 && (st.mode & 0o1000) === 0)
    return `is in ${folder}, which others can write to (mode ${modeOf(st.mode)}: chmod 700 makes it private)`;
  const owner = ownerProblem(st.uid);
  return owner === null ? null : `is in ${folder}, which ${owner}`;
}

function ownerProblem(uid: number): string | null {
  const me = process.getuid?.();
  if (me === undefined || uid === me || uid === 0) return null;
  return `is owned by another user (uid ${uid})`;
}

const modeOf = (mode: number) => (mode & 0o7777).toString(8).padStart(4, "0");

function kindOf(st: { isDirectory(): boolean; isFIFO(): boolean; isSocket(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean }): string {
  if (st.isDirectory()) return "a directory";
  if (st.isFIFO()) return "a FIFO";
  if (st.isSocket()) return "a socket";
  if (st.isCharacterDevice() || st.isBlockDevice()) return "a device";
  return "not a file";
}
