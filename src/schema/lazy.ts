/**
 * Values built on first use. A `qhooks run` is a new process on every tool call of an agent, and building every
 * schema of the library when its modules load cost more than the rest of its validation: a run needs the flags'
 * schema, one payload schema, and the settings' schemas only when there is a settings file.
 */

/** A function that builds its value on the first call and returns that same value ever after. */
export function once<T>(build: () => T): () => T {
  let value: T | undefined;
  let built = false;
  return () => {
    if (!built) {
      value = build();
      built = true;
    }
    return value as T;
  };
}

/**
 * An object (a schema, a set) that stands for the one `build` returns, built the first time anything reads it.
 * Reads, writes and `instanceof` go to the built object, and methods are called on it, so an exported schema keeps
 * its type and behaves as the schema it stands for. Only the stand-in's own identity differs: schemas that compose
 * it should be built from the same builders rather than from the stand-in when that identity matters.
 */
export function lazy<T extends object>(build: () => T): T {
  const target = once(build);
  return new Proxy({} as T, {
    get(_, key) {
      const real = target();
      const value: unknown = Reflect.get(real, key, real);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(real) : value;
    },
    set: (_, key, value) => Reflect.set(target(), key, value),
    has: (_, key) => Reflect.has(target(), key),
    ownKeys: () => Reflect.ownKeys(target()),
    getOwnPropertyDescriptor(_, key) {
      const descriptor = Reflect.getOwnPropertyDescriptor(target(), key);
      // Described as configurable: the stand-in itself has no such property, and a proxy may not claim a fixed one.
      return descriptor && { ...descriptor, configurable: true };
    },
    defineProperty: (_, key, descriptor) => Reflect.defineProperty(target(), key, descriptor),
    deleteProperty: (_, key) => Reflect.deleteProperty(target(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(target()),
  });
}

/** A record with one entry per key, each built by `build` the first time it is read (a getter that keeps it). */
export function lazyRecord<K extends string, V>(keys: readonly K[], build: (key: K) => V): Readonly<Record<K, V>> {
  const record = {} as Record<K, V>;
  for (const key of keys) {
    const entry = once(() => build(key));
    Object.defineProperty(record, key, { enumerable: true, get: entry });
  }
  return Object.freeze(record);
}
