// A real local service (authmw.dev.LocalService in the project's Python) for the tests that
// talk to one: started in a temporary folder, it prints its URL and keys as one JSON line and
// stops when its standard input closes.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const PYTHON = resolve(REPO, ".venv/bin/python");
const SERVICE_SCRIPT = `
import dataclasses, json, sys, tempfile
from authmw.dev import LocalService
with tempfile.TemporaryDirectory() as folder, LocalService(folder, quiet=True, api=sys.argv[1]) as service:
    keys = service.bootstrap
    print(json.dumps({"url": service.url, "project": dataclasses.asdict(keys.project),
                      "internal": dataclasses.asdict(keys.internal)}), flush=True)
    sys.stdin.read()
`;

export interface Keys {
  project_id: string;
  publishable_client_key: string;
  secret_server_key: string;
  super_secret_admin_key: string;
}

export interface RunningService {
  url: string;
  /** The default project's keys. */
  project: Keys;
  /** The `internal` project's keys (project owners sign in there). */
  internal: Keys;
  stop(): void;
}

/** The API versions the local service answers as; tests that differ by version run over both. */
export const API_VERSIONS = ["2.8", "2.7"] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];

/** Starts a local service answering as API `api` ("2.8", the local service's default, or "2.7"). */
export function startLocalService(api: ApiVersion = "2.8"): Promise<RunningService> {
  if (!existsSync(PYTHON)) {
    throw new Error(`These tests run the local service with the project's Python at ${PYTHON}: run bash scripts/test.sh once.`);
  }
  const child: ChildProcess = spawn(PYTHON, ["-c", SERVICE_SCRIPT, api], { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`the local service printed nothing within 120 s.\n${stderr}`)), 120_000);
    createInterface({ input: child.stdout! }).once("line", (line) => {
      clearTimeout(timer);
      const info = JSON.parse(line) as { url: string; project: Keys; internal: Keys };
      done({ ...info, stop: () => child.stdin?.end() });
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      fail(new Error(`the local service exited with ${code}.\n${stderr}`));
    });
  });
}
