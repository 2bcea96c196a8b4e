// @vitest-environment node
// The TypeScript transport over real sockets against the project's Python fault-injection server
// (tests/faultserver.py), with the scenarios tests/core/test_faultserver.py runs for Python.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSessionStore } from "../src/store";
import {
  AccessTokenExpired,
  ConnectionError,
  HttpStatusError,
  InvalidServerResponse,
  UserNotFound,
} from "../src/errors";
import { Transport, type HttpMethod } from "../src/transport";
import { makeJwt, PCK, PROJECT_ID } from "./helpers";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const PYTHON = resolve(REPO, ".venv/bin/python");
const SCRIPT = resolve(REPO, "tests/faultserver.py");

let server: ChildProcess | null = null;
let url = "";

function startFaultServer(): Promise<string> {
  if (!existsSync(PYTHON)) {
    throw new Error(
      `The fault-injection test runs tests/faultserver.py with the project's Python at ${PYTHON}, which is missing: ` +
        "run bash scripts/test.sh once (it creates .venv), or python3 -m venv .venv in the repository root.",
    );
  }
  if (!existsSync(SCRIPT)) throw new Error(`The fault-injection server is missing: ${SCRIPT}`);
  const child = spawn(PYTHON, [SCRIPT, "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] });
  server = child;
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`tests/faultserver.py printed no URL within 120 s.\n${stderr}`)), 120_000);
    createInterface({ input: child.stdout! }).once("line", (line) => {
      clearTimeout(timer);
      if (line.startsWith("http://")) resolveUrl(line.trim());
      else reject(new Error(`tests/faultserver.py printed ${JSON.stringify(line)} instead of its URL.\n${stderr}`));
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`tests/faultserver.py exited with ${code} before printing its URL.\n${stderr}`));
    });
  });
}

beforeAll(async () => {
  url = await startFaultServer();
}, 150_000);

afterAll(() => {
  server?.kill();
});

interface LogEntry {
  method: string;
  path: string;
  headers: Record<string, string>;
}

let runs = 0;

/** One call of the transport through `scenario` in a fresh run; returns the result (or error), the waits and the log. */
async function call(scenario: string, method: HttpMethod = "GET") {
  const run = `ts-${process.pid}-${++runs}`;
  const waits: number[] = [];
  const transport = new Transport({
    projectId: PROJECT_ID,
    publishableClientKey: PCK,
    baseUrl: `${url}/${scenario}/${run}`,
    sleep: async (ms) => void waits.push(ms),
    random: () => 0.5, // jitter factor 1.0, as the Python side's uniform=lambda a, b: 1.0
    isOnline: () => undefined,
  });
  let result: unknown;
  try {
    result = (await transport.request({ method, path: "/users/me", body: method === "POST" || method === "PATCH" ? {} : undefined })).body;
  } catch (error) {
    result = error;
  }
  return { result, waits, log: await serverLog(scenario, run) };
}

async function serverLog(scenario: string, run: string): Promise<LogEntry[]> {
  const res = await fetch(`${url}/__log/${scenario}/${run}`);
  return (await res.json()) as LogEntry[];
}

const lower = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));

// Each scenario kind of tests/faultserver.py, with the test(s) that cover it here.
const COVERED = new Set<string>();
const scenario = (kind: string, name: string, fn: () => Promise<void>) => {
  COVERED.add(kind);
  it(`${kind}: ${name}`, fn, 120_000);
};

describe("the TypeScript transport against tests/faultserver.py", () => {
  it("covers every scenario the fault server documents", () => {
    // The server's docstring is its scenario list; a new scenario there must be run here too.
    const doc = readFileSync(SCRIPT, "utf8");
    const block = doc.slice(doc.indexOf("Scenarios"), doc.indexOf('"""', doc.indexOf("Scenarios")));
    const kinds = [...block.matchAll(/^ {4}([a-z0-9]+)(?::|\s)/gm)].map((m) => m[1]!);
    expect(kinds.length).toBeGreaterThan(10);
    expect(kinds.filter((k) => !COVERED.has(k))).toEqual([]);
  });

  scenario("ok", "carries the client headers", async () => {
    const { result, log } = await call("ok");
    expect(result).toMatchObject({ ok: true, path: "/api/v1/users/me", attempt: 1 });
    expect(log).toHaveLength(1);
    const headers = lower(log[0]!.headers);
    expect(headers["x-stack-project-id"]).toBe(PROJECT_ID);
    expect(headers["x-stack-publishable-client-key"]).toBe(PCK);
    expect(headers["x-stack-access-type"]).toBe("client");
    expect(headers["x-stack-override-error-status"]).toBe("true");
    expect(headers["x-stack-client-version"]).toMatch(/authmw/);
    expect(headers["x-stack-random-nonce"]).toMatch(/^[0-9a-z]{45}$/);
  });

  scenario("drop", "dropped connections on GET are retried with backoff 1, 2, 4, 8 s and fresh nonces", async () => {
    const { result, waits, log } = await call("drop:4");
    expect(result).toMatchObject({ attempt: 5 });
    expect(waits).toEqual([1000, 2000, 4000, 8000]);
    expect(new Set(log.map((e) => lower(e.headers)["x-stack-random-nonce"])).size).toBe(5);
  });

  it("drop: a GET that never gets an answer is diagnosed after 5 attempts, with the health check", async () => {
    const { result, waits, log } = await call("drop:99");
    expect(result).toBeInstanceOf(ConnectionError);
    expect(log).toHaveLength(5);
    expect(waits).toHaveLength(4);
    const error = result as ConnectionError;
    expect(error.diagnostics.join("\n")).toMatch(/failed 5 time\(s\)/);
    expect(error.diagnostics.join("\n")).toMatch(/\/health: 200/);
    expect(error.message).not.toContain(PCK);
  });

  it.each(["POST", "PATCH"] as const)("drop: a dropped %s fails at once (not idempotent)", async (method) => {
    const { result, waits, log } = await call("drop:1", method);
    expect(result).toBeInstanceOf(ConnectionError);
    expect((result as ConnectionError).diagnostics[0]).toMatch(/is not retried/);
    expect(log).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  scenario("down", "service down: the health check fails too", async () => {
    const { result } = await call("down", "POST");
    expect(result).toBeInstanceOf(ConnectionError);
    expect((result as ConnectionError).diagnostics.join("\n")).toMatch(/\/health failed/);
  });

  it("nothing listening: a connection error naming the address", async () => {
    const port = await new Promise<number>((done) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => done(p));
      });
    });
    const transport = new Transport({ projectId: PROJECT_ID, baseUrl: `http://127.0.0.1:${port}`, sleep: async () => {} });
    const error = await transport.request({ method: "POST", path: "/x", body: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(String(error)).toContain(`127.0.0.1:${port}`);
  });

  scenario("429", "waits Retry-After seconds, then retries", async () => {
    const { result, waits } = await call("429:2:3", "POST");
    expect(result).toMatchObject({ attempt: 3 });
    expect(waits).toEqual([3000, 3000]);
  });

  scenario("429date", "Retry-After as an HTTP date", async () => {
    const { result, waits } = await call("429date:1:30");
    expect(result).toMatchObject({ ok: true });
    expect(waits).toHaveLength(1);
    expect(waits[0]!).toBeGreaterThanOrEqual(10_000); // 30 s less however long the machine took
    expect(waits[0]!).toBeLessThanOrEqual(31_000);
  });

  scenario("429bare", "without Retry-After backs off", async () => {
    const { result, waits } = await call("429bare:2");
    expect(result).toMatchObject({ ok: true });
    expect(waits).toEqual([1000, 2000]);
  });

  it("429 forever: gives up after 5 attempts with a 429 HttpStatusError", async () => {
    const { result, log } = await call("429:99:1");
    expect(result).toBeInstanceOf(HttpStatusError);
    expect((result as HttpStatusError).status).toBe(429);
    expect(log).toHaveLength(5);
  });

  scenario("508", "with the loop marker is retried (POST too)", async () => {
    const { result, waits } = await call("508:1", "POST");
    expect(result).toMatchObject({ attempt: 2 });
    expect(waits).toEqual([1000]);
  });

  scenario("508plain", "without the marker is an error", async () => {
    const { result, log } = await call("508plain:1");
    expect(result).toBeInstanceOf(HttpStatusError);
    expect((result as HttpStatusError).status).toBe(508);
    expect(log).toHaveLength(1);
  });

  scenario("status", "5xx is an HttpStatusError with the reason phrase and body", async () => {
    const { result, log } = await call("status:503");
    expect(result).toBeInstanceOf(HttpStatusError);
    const error = result as HttpStatusError;
    expect([error.status, error.reason]).toEqual([503, "Service Unavailable"]);
    expect(error.message).toContain("Injected 503");
    expect(log).toHaveLength(1);
  });

  scenario("known", "a known error becomes its class (status from x-stack-actual-status)", async () => {
    const { result } = await call("known:USER_NOT_FOUND:404");
    expect(result).toBeInstanceOf(UserNotFound);
    expect((result as UserNotFound).message).toBe("Injected USER_NOT_FOUND");
    expect((result as UserNotFound).status).toBe(404);
  });

  for (const kind of ["mismatch", "malformed", "badjson"]) {
    scenario(kind, "is an invalid server response", async () => {
      const { result } = await call(kind);
      expect(result).toBeInstanceOf(InvalidServerResponse);
    });
  }

  // The Python package masks tokens in the bodies its messages quote (they reach server logs);
  // in a browser a quoted body holds at most the user's own tokens, in the user's own console,
  // and the bytes a mask costs the handler pages are not spent: the answer is kept whole.
  scenario("leaky", "an answer that quotes tokens is kept whole in the error", async () => {
    const ok = await call("leaky:200");
    expect(ok.result).toBeInstanceOf(InvalidServerResponse);
    expect((ok.result as InvalidServerResponse).body).toContain("refresh_token=");
    const failed = await call("leaky:502");
    expect(failed.result).toBeInstanceOf(HttpStatusError);
    expect((failed.result as HttpStatusError).status).toBe(502);
    expect((failed.result as HttpStatusError).body).toContain("access_token=eyJ");
  });

  scenario("slow", "a slow answer still arrives", async () => {
    const { result } = await call("slow:50");
    expect(result).toMatchObject({ ok: true });
  });

  scenario("expired", "an expired access token is refreshed (OAuth grant) and the call retried once", async () => {
    const run = `ts-${process.pid}-${++runs}`;
    const transport = new Transport({ projectId: PROJECT_ID, publishableClientKey: PCK, baseUrl: `${url}/expired:1/${run}` });
    const stale = makeJwt({ sub: "u", exp: Math.floor(Date.now() / 1000) + 600 });
    const session = createSessionStore({
      projectId: PROJECT_ID,
      cookies: null,
      refresh: (rt) => transport.refreshAccessToken(rt),
      initialTokens: { accessToken: stale, refreshToken: "r".repeat(45) },
    });
    const { body } = await transport.request({ method: "GET", path: "/users/me", session });
    expect(body).toMatchObject({ ok: true });
    expect((await serverLog("expired:1", run)).map((e) => e.path)).toEqual([
      "/api/v1/users/me",
      "/api/v1/auth/oauth/token",
      "/api/v1/users/me",
    ]);
    expect(session.getState().accessToken).not.toBe(stale);
  });

  it("expired: a second rejection is not retried again", async () => {
    const run = `ts-${process.pid}-${++runs}`;
    const transport = new Transport({ projectId: PROJECT_ID, publishableClientKey: PCK, baseUrl: `${url}/expired:5/${run}` });
    const session = createSessionStore({
      projectId: PROJECT_ID,
      cookies: null,
      refresh: (rt) => transport.refreshAccessToken(rt),
      initialTokens: { accessToken: makeJwt({ sub: "u", exp: Math.floor(Date.now() / 1000) + 600 }), refreshToken: "r".repeat(45) },
    });
    await expect(transport.request({ method: "GET", path: "/users/me", session })).rejects.toBeInstanceOf(AccessTokenExpired);
  });
});
