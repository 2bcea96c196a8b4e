// @vitest-environment node
// Proof that a call is declared once (controller.ts) and the compiler finds every place that must
// follow: the sources are type-checked as they are, except for a controller that declares one
// more flow, one more namespace and one more call of its own, and a namespace with one more call
// (and, apart, a flows.ts that implements a flow nobody declared). Each consumer must then fail to compile, naming the new member; the
// client and useAuth must take the new flow without an edit.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const src = (path: string) => join(root, "src", path);

/** Inserts `text` after `anchor` in `source`; fails when the anchor is gone (the test is then out of date). */
function insertAfter(source: string, anchor: string, text: string): string {
  const at = source.indexOf(anchor);
  if (at < 0) throw new Error(`anchor not found: ${anchor}`);
  return source.slice(0, at + anchor.length) + text + source.slice(at + anchor.length);
}

/** The diagnostics of the program from `roots` over the sources with `edits` (path -> new text), by file. */
function diagnosticsWith(
  roots: string[],
  edits: Record<string, (text: string) => string>,
  extraFiles: Record<string, string> = {},
) {
  const config = ts.getParsedCommandLineOfConfigFile(join(root, "tsconfig.json"), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    },
  })!;
  const options = { ...config.options, noEmit: true };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  host.readFile = (name) => {
    if (name in extraFiles) return extraFiles[name];
    const text = readFile(name);
    const edit = edits[name];
    return text !== undefined && edit ? edit(text) : text;
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name in extraFiles || fileExists(name);
  const program = ts.createProgram({
    rootNames: [...roots, ...Object.keys(extraFiles)],
    options,
    host,
  });
  const byFile = new Map<string, string[]>();
  for (const file of program.getSourceFiles()) {
    if (file.isDeclarationFile || file.fileName.includes("/node_modules/")) continue;
    const messages = program
      .getSemanticDiagnostics(file)
      .concat(program.getSyntacticDiagnostics(file))
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    if (messages.length) byFile.set(file.fileName.slice(root.length + 1), messages);
  }
  return byFile;
}

describe("a call added to AuthController or to one of its namespaces", () => {
  it("fails to compile in each consumer that must follow, and nowhere else", () => {
    const probe = join(root, "test", "controller-probe.ts");
    const byFile = diagnosticsWith(
      [src("index.ts"), src("testing.tsx")],
      {
        [src("controller.ts")]: (text) =>
          insertAfter(
            insertAfter(
              insertAfter(text, "export interface AuthFlows {\n", "  probeFlow(): Promise<void>;\n"),
              "export interface AuthApis {\n",
              "  readonly probeApi: { ping(): Promise<void> };\n",
            ),
            "export interface AuthController extends AuthFlows, AuthApis {\n",
            "  probeCall(): Promise<void>;\n",
          ),
        // A new call of an existing namespace.
        [src("contact-channels.ts")]: (text) =>
          insertAfter(text, "export interface ContactChannelsApi {\n", "  probeMethod(): Promise<void>;\n"),
      },
      {
        // The client and useAuth take a new flow as it is declared, without an edit of their own.
        [probe]: [
          'import type { AuthClient } from "../src/client";',
          'import type { UseAuthResult } from "../src/react/use-auth";',
          'export type FromClient = AuthClient["probeFlow"];',
          'export type FromUseAuth = UseAuthResult["probeFlow"];',
          'export type ApiOnClient = AuthClient["probeApi"];',
          "",
        ].join("\n"),
      },
    );
    const mentions = (file: string, name: string) => (byFile.get(file) ?? []).some((m) => new RegExp(`\\b${name}\\b`).test(m));

    // The table of flow names, the implementation and the fake must name the new flow.
    expect(mentions("src/controller.ts", "probeFlow")).toBe(true);
    expect(mentions("src/flows.ts", "probeFlow")).toBe(true);
    expect(mentions("src/testing.tsx", "probeFlow")).toBe(true);
    // The new namespace: the client's namespaces, useAuth's table, the fake.
    expect(mentions("src/client.ts", "probeApi")).toBe(true);
    expect(mentions("src/react/use-auth.ts", "probeApi")).toBe(true);
    expect(mentions("src/testing.tsx", "probeApi")).toBe(true);
    // The namespace's new call: its module and the fake. The client's stand-in of the namespace
    // makes each method on its first use, so it has no list of names to follow.
    expect(mentions("src/contact-channels.ts", "probeMethod")).toBe(true);
    expect(mentions("src/client.ts", "probeMethod")).toBe(false);
    expect(mentions("src/testing.tsx", "probeMethod")).toBe(true);
    // The client's own new call: AuthClient, useAuth's table, the fake.
    expect(mentions("src/client.ts", "probeCall")).toBe(true);
    expect(mentions("src/react/use-auth.ts", "probeCall")).toBe(true);
    expect(mentions("src/testing.tsx", "probeCall")).toBe(true);

    // Nothing else fails: every error is about a probe, and only these files have errors (the
    // probe file's types exist, so the client and useAuth took the new flow by themselves).
    const unrelated = [...byFile].flatMap(([file, messages]) =>
      messages.filter((m) => !/\bprobe(Flow|Api|Call|Method)\b/.test(m)).map((m) => `${file}: ${m}`),
    );
    expect(unrelated).toEqual([]);
    expect([...byFile.keys()].sort()).toEqual([
      "src/client.ts",
      "src/contact-channels.ts",
      "src/controller.ts",
      "src/flows.ts",
      // The provider uses an AuthClient as an AuthController: the same missing probeCall.
      "src/react/provider.tsx",
      "src/react/use-auth.ts",
      "src/testing.tsx",
    ]);
  });

  it("a flow implemented in flows.ts but not declared does not compile", () => {
    const byFile = diagnosticsWith([src("flows.ts")], {
      [src("flows.ts")]: (text) => insertAfter(text, "\n  return {\n", "    async probeUndeclared() {},\n"),
    });
    expect([...byFile]).toEqual([["src/flows.ts", [expect.stringContaining("'probeUndeclared' does not exist in type 'AuthFlows'")]]]);
  });
});
