// Cached values (service-api C4 "Cached values"): one value per key, fetched on demand, re-fetched when
// invalidated while it has subscribers, dropped 5000 ms after its last subscriber leaves.
// Fetches of a key are rate limited: one at a time, starts at least 300 ms apart, and requests
// made meanwhile share the next fetch. Framework-free; the React hooks sit on top of it.

/** A value is dropped this long after its last subscriber leaves. */
export const CACHE_DROP_AFTER_MS = 5000;
/** Fetches of one key start at least this far apart (and never overlap). */
export const CACHE_THROTTLE_MS = 300;

export type CachedState<V> =
  | { status: "loading"; value: undefined; error: undefined }
  | { status: "ready"; value: V; error: undefined }
  | { status: "error"; value: undefined; error: unknown };

export interface AsyncCache<A extends readonly unknown[], V> {
  /** The current state of `args` (the same object until it changes; "loading" for unknown keys). */
  getSnapshot(...args: A): CachedState<V>;
  /** Subscribes to `args`; the first subscriber (or a stale value) triggers a fetch. */
  subscribe(args: A, listener: () => void): () => void;
  /** The cached value, or the result of a (rate-limited) fetch. */
  get(...args: A): Promise<V>;
  /** Fetches again (rate limited) and returns the fresh value. */
  refresh(...args: A): Promise<V>;
  /** Marks `args` stale: re-fetched now when it has subscribers, otherwise dropped. */
  invalidate(...args: A): void;
  /** invalidate() for every key. */
  invalidateAll(): void;
  /** Stores a value (e.g. the answer of a mutation). */
  set(args: A, value: V): void;
  /** Forgets every value (another session): subscribed keys go back to loading and fetch again. */
  clear(): void;
}

export interface AsyncCacheOptions {
  throttleMs?: number;
  dropAfterMs?: number;
  now?: () => number;
}

interface Deferred<V> {
  promise: Promise<V>;
  resolve(value: V): void;
  reject(error: unknown): void;
}

function deferred<V>(): Deferred<V> {
  let resolve!: (value: V) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<V>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A fetch nobody awaits (a subscriber-triggered one) must not be an unhandled rejection.
  promise.catch(() => {});
  return { promise, resolve, reject };
}

interface Entry<A, V> {
  args: A;
  state: CachedState<V>;
  listeners: Set<() => void>;
  stale: boolean;
  generation: number;
  inflight: Promise<V> | null;
  queued: Deferred<V> | null;
  lastStart: number;
  startTimer: ReturnType<typeof setTimeout> | undefined;
  dropTimer: ReturnType<typeof setTimeout> | undefined;
}

const LOADING = Object.freeze({ status: "loading", value: undefined, error: undefined }) as CachedState<never>;

export function createAsyncCache<A extends readonly unknown[], V>(
  fetcher: (...args: A) => Promise<V>,
  options: AsyncCacheOptions = {},
): AsyncCache<A, V> {
  const throttleMs = options.throttleMs ?? CACHE_THROTTLE_MS;
  const dropAfterMs = options.dropAfterMs ?? CACHE_DROP_AFTER_MS;
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry<A, V>>();
  let generation = 0;

  const keyOf = (args: A) => JSON.stringify(args);

  function entryFor(args: A): Entry<A, V> {
    const key = keyOf(args);
    let entry = entries.get(key);
    if (!entry) {
      entry = {
        args,
        state: LOADING,
        listeners: new Set(),
        stale: false,
        generation,
        inflight: null,
        queued: null,
        lastStart: -Infinity,
        startTimer: undefined,
        dropTimer: undefined,
      };
      entries.set(key, entry);
    }
    return entry;
  }

  function setState(entry: Entry<A, V>, state: CachedState<V>) {
    entry.state = state;
    for (const listener of [...entry.listeners]) listener();
  }

  /** Forgets an entry nobody uses; one with a fetch under way is only marked stale (its callers still get an answer). */
  function drop(entry: Entry<A, V>) {
    if (entry.listeners.size > 0) return;
    if (entry.inflight || entry.queued) {
      entry.stale = true;
      return;
    }
    clearTimeout(entry.dropTimer);
    if (entries.get(keyOf(entry.args)) === entry) entries.delete(keyOf(entry.args));
  }

  function scheduleDrop(entry: Entry<A, V>) {
    clearTimeout(entry.dropTimer);
    if (entry.listeners.size > 0) return;
    entry.dropTimer = setTimeout(() => drop(entry), dropAfterMs);
  }

  function start(entry: Entry<A, V>): Promise<V> {
    entry.lastStart = now();
    entry.stale = false;
    const startedIn = entry.generation;
    const run = (async () => fetcher(...entry.args))();
    entry.inflight = run;
    run.then(
      (value) => {
        if (entry.generation === startedIn) setState(entry, { status: "ready", value, error: undefined });
      },
      (error: unknown) => {
        // A failed re-fetch keeps the value shown; only a first load turns into an error.
        if (entry.generation === startedIn && entry.state.status !== "ready") {
          setState(entry, { status: "error", value: undefined, error });
        }
      },
    ).finally(() => {
      entry.inflight = null;
      if (entry.queued) armQueued(entry);
      else if (entry.listeners.size === 0) scheduleDrop(entry);
    });
    return run;
  }

  function armQueued(entry: Entry<A, V>) {
    clearTimeout(entry.startTimer);
    const wait = Math.max(0, entry.lastStart + throttleMs - now());
    entry.startTimer = setTimeout(() => {
      const waiting = entry.queued;
      if (!waiting || entry.inflight) return;
      entry.queued = null;
      start(entry).then(waiting.resolve, waiting.reject);
    }, wait);
  }

  /** A fetch that starts after this call: now, or the next rate-limited slot (shared). */
  function fetchThrottled(entry: Entry<A, V>): Promise<V> {
    clearTimeout(entry.dropTimer);
    if (entry.queued) return entry.queued.promise;
    if (!entry.inflight && now() - entry.lastStart >= throttleMs) return start(entry);
    entry.queued = deferred<V>();
    if (!entry.inflight) armQueued(entry);
    return entry.queued.promise;
  }

  return {
    getSnapshot: (...args) => entries.get(keyOf(args))?.state ?? LOADING,

    subscribe(args, listener) {
      const entry = entryFor(args);
      entry.listeners.add(listener);
      clearTimeout(entry.dropTimer);
      const loading = entry.state.status !== "ready" && !entry.inflight && !entry.queued;
      if (loading || (entry.stale && !entry.queued)) void fetchThrottled(entry);
      let active = true;
      return () => {
        if (!active) return;
        active = false;
        entry.listeners.delete(listener);
        if (!entry.inflight && !entry.queued) scheduleDrop(entry);
      };
    },

    get(...args) {
      const entry = entryFor(args);
      if (entry.state.status === "ready" && !entry.stale) return Promise.resolve(entry.state.value);
      if (entry.inflight && !entry.stale && !entry.queued) return entry.inflight;
      return fetchThrottled(entry);
    },

    refresh: (...args) => fetchThrottled(entryFor(args)),

    invalidate(...args) {
      const entry = entries.get(keyOf(args));
      if (!entry) return;
      entry.stale = true;
      if (entry.listeners.size > 0) void fetchThrottled(entry);
      else drop(entry);
    },

    invalidateAll() {
      for (const entry of [...entries.values()]) this.invalidate(...entry.args);
    },

    set(args, value) {
      const entry = entryFor(args);
      entry.stale = false;
      setState(entry, { status: "ready", value, error: undefined });
      if (!entry.inflight && !entry.queued) scheduleDrop(entry);
    },

    clear() {
      generation++;
      for (const entry of [...entries.values()]) {
        entry.generation = generation;
        entry.stale = true;
        if (entry.state !== LOADING) setState(entry, LOADING);
        if (entry.listeners.size > 0) void fetchThrottled(entry);
        else drop(entry);
      }
    },
  };
}
