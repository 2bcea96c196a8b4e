import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CACHE_DROP_AFTER_MS, CACHE_THROTTLE_MS, createAsyncCache } from "../src/cache";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A fetcher whose calls are recorded and answered by hand. */
function manualFetcher<V>() {
  const calls: { args: unknown[]; resolve(value: V): void; reject(error: unknown): void }[] = [];
  const fetch = vi.fn(
    (...args: unknown[]) =>
      new Promise<V>((resolve, reject) => {
        calls.push({ args, resolve, reject });
      }),
  );
  return { fetch, calls };
}

const flush = () => vi.advanceTimersByTimeAsync(0);

describe("createAsyncCache", () => {
  it("uses the spec's constants", () => {
    expect([CACHE_THROTTLE_MS, CACHE_DROP_AFTER_MS]).toEqual([300, 5000]);
  });

  it("is loading for unknown keys and fetches on the first subscriber", async () => {
    const { fetch, calls } = manualFetcher<string[]>();
    const cache = createAsyncCache((team: string) => fetch(team));
    const snapshot = cache.getSnapshot("t1");
    expect(snapshot.status).toBe("loading");
    expect(cache.getSnapshot("t1")).toBe(snapshot);
    expect(fetch).not.toHaveBeenCalled();
    const listener = vi.fn();
    cache.subscribe(["t1"], listener);
    expect(calls.map((c) => c.args)).toEqual([["t1"]]);
    calls[0]!.resolve(["a"]);
    await flush();
    expect(cache.getSnapshot("t1")).toEqual({ status: "ready", value: ["a"], error: undefined });
    expect(cache.getSnapshot("t1")).toBe(cache.getSnapshot("t1"));
    expect(listener).toHaveBeenCalledTimes(1);
  });

  it("shares one fetch between subscribers and get()", async () => {
    const { fetch, calls } = manualFetcher<number>();
    const cache = createAsyncCache(() => fetch());
    cache.subscribe([], () => {});
    cache.subscribe([], () => {});
    const got = cache.get();
    expect(fetch).toHaveBeenCalledTimes(1);
    calls[0]!.resolve(7);
    expect(await got).toBe(7);
    expect(await cache.get()).toBe(7);
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it("re-fetches an invalidated value that has subscribers, keeping the old value meanwhile", async () => {
    const { fetch, calls } = manualFetcher<number>();
    const cache = createAsyncCache(() => fetch());
    cache.subscribe([], () => {});
    calls[0]!.resolve(1);
    await vi.advanceTimersByTimeAsync(CACHE_THROTTLE_MS);
    cache.invalidate();
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(cache.getSnapshot()).toMatchObject({ status: "ready", value: 1 });
    calls[1]!.resolve(2);
    await flush();
    expect(cache.getSnapshot()).toMatchObject({ status: "ready", value: 2 });
  });

  it("drops an invalidated value without subscribers; the next subscriber fetches", async () => {
    const { fetch, calls } = manualFetcher<number>();
    const cache = createAsyncCache(() => fetch());
    const stop = cache.subscribe([], () => {});
    calls[0]!.resolve(1);
    await flush();
    stop();
    cache.invalidate();
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(cache.getSnapshot().status).toBe("loading");
    await vi.advanceTimersByTimeAsync(CACHE_THROTTLE_MS);
    cache.subscribe([], () => {});
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it("drops a value 5000 ms after the last subscriber leaves, unless someone comes back", async () => {
    const { fetch, calls } = manualFetcher<number>();
    const cache = createAsyncCache(() => fetch());
    const stop = cache.subscribe([], () => {});
    calls[0]!.resolve(1);
    await flush();
    stop();
    await vi.advanceTimersByTimeAsync(CACHE_DROP_AFTER_MS - 1);
    expect(cache.getSnapshot()).toMatchObject({ status: "ready", value: 1 });
    const stopAgain = cache.subscribe([], () => {}); // back in time: no fetch, no drop
    expect(fetch).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(CACHE_DROP_AFTER_MS * 2);
    expect(cache.getSnapshot().status).toBe("ready");
    stopAgain();
    await vi.advanceTimersByTimeAsync(CACHE_DROP_AFTER_MS);
    expect(cache.getSnapshot().status).toBe("loading");
  });

  it("throttles fetches: one at a time, 300 ms apart, requests meanwhile share the next fetch", async () => {
    const { fetch, calls } = manualFetcher<number>();
    const cache = createAsyncCache(() => fetch());
    cache.subscribe([], () => {});
    expect(fetch).toHaveBeenCalledTimes(1);
    // While the first fetch runs, three refreshes: they wait, then share one fetch.
    const a = cache.refresh();
    const b = cache.refresh();
    cache.invalidate();
    expect(fetch).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(fetch).toHaveBeenCalledTimes(1); // concurrency 1: the first is still running
    calls[0]!.resolve(1);
    await flush();
    expect(fetch).toHaveBeenCalledTimes(2); // 300 ms since the first start have passed
    calls[1]!.resolve(2);
    expect([await a, await b]).toEqual([2, 2]);
    // A refresh right after a fetch started waits for the rest of the 300 ms.
    const c = cache.refresh();
    expect(fetch).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(CACHE_THROTTLE_MS - 1);
    expect(fetch).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(fetch).toHaveBeenCalledTimes(3);
    calls[2]!.resolve(3);
    expect(await c).toBe(3);
  });

  it("throttles per key", () => {
    const { fetch } = manualFetcher<number>();
    const cache = createAsyncCache((k: string) => fetch(k));
    cache.subscribe(["a"], () => {});
    cache.subscribe(["b"], () => {});
    expect(fetch.mock.calls).toEqual([["a"], ["b"]]);
  });

  it("a failed first load is an error state; a failed re-fetch keeps the value", async () => {
    const { fetch, calls } = manualFetcher<number>();
    const cache = createAsyncCache(() => fetch());
    cache.subscribe([], () => {});
    const boom = new Error("boom");
    calls[0]!.reject(boom);
    await flush();
    expect(cache.getSnapshot()).toEqual({ status: "error", value: undefined, error: boom });
    await vi.advanceTimersByTimeAsync(CACHE_THROTTLE_MS);
    cache.invalidate();
    calls[1]!.resolve(5);
    await flush();
    await vi.advanceTimersByTimeAsync(CACHE_THROTTLE_MS);
    cache.invalidate();
    calls[2]!.reject(boom);
    await flush();
    expect(cache.getSnapshot()).toMatchObject({ status: "ready", value: 5 });
  });

  it("set() stores a value; clear() forgets every value and re-fetches the subscribed ones", async () => {
    const { fetch, calls } = manualFetcher<string>();
    const cache = createAsyncCache((k: string) => fetch(k));
    cache.set(["x"], "stored");
    expect(cache.getSnapshot("x")).toMatchObject({ status: "ready", value: "stored" });
    cache.subscribe(["y"], () => {});
    const late = calls[0]!;
    cache.clear();
    expect(cache.getSnapshot("x").status).toBe("loading");
    expect(cache.getSnapshot("y").status).toBe("loading");
    late.resolve("old session"); // answer for the session before clear(): ignored
    await vi.advanceTimersByTimeAsync(CACHE_THROTTLE_MS);
    expect(cache.getSnapshot("y").status).toBe("loading");
    expect(fetch).toHaveBeenCalledTimes(2);
    calls[1]!.resolve("new session");
    await flush();
    expect(cache.getSnapshot("y")).toMatchObject({ status: "ready", value: "new session" });
  });
});
