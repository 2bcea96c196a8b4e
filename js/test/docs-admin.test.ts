// @vitest-environment node
// The TypeScript blocks of docs/admin.md (written to test/docs/ by scripts/doc-blocks.mjs), run
// as a reader would: against a real local service (as API 2.8 and as 2.7), with its keys.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createAdminClient } from "../src/admin";
import { AuthClient } from "../src/client";
import { goLive } from "./docs/docs-admin/admin-tool";
import { createAcme } from "./docs/docs-admin/owned";
import { API_VERSIONS, startLocalService, type RunningService } from "./local-service";

describe.each(API_VERSIONS)("API %s", (api) => {
  let service: RunningService;
  beforeAll(async () => {
    service = await startLocalService(api);
  }, 150_000);
  afterAll(() => service?.stop());

  it("goLive configures the project and reports what keeps it from production", async () => {
    const printed: string[] = [];
    const log = vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void printed.push(args.map(String).join(" ")));
    try {
      const keys = {
        projectId: service.project.project_id,
        baseUrl: service.url,
        superSecretAdminKey: service.project.super_secret_admin_key,
      };
      // An SMTP server that is not there: the test e-mail reports why it failed.
      const smtp = { type: "standard" as const, host: "127.0.0.1", port: 9, username: "u", password: "p", senderName: "Acme", senderEmail: "auth@acme.example" };
      const result = await goLive(keys, smtp);
      expect(result.emailSent).toBe(false);
      expect(printed[0]).toMatch(/allows localhost$/);
      expect(printed.some((line) => line.startsWith("SMTP: "))).toBe(true);
      expect(printed).toContain("null"); // the new key's whyInvalid() before it was revoked
      // 2.8's TSX templates and themes are listed; a 2.7 service has its own templates instead.
      expect(printed.some((line) => /^Email Verification \d+$/.test(line))).toBe(api === "2.8");
      expect(printed.includes("Default Light,Default Dark,Default Colorful")).toBe(api === "2.8");
      const project = await createAdminClient(keys).getProject();
      expect(project.config.allowLocalhost).toBe(false);
      expect(project.config.domains.map((d) => d.domain)).toEqual(["https://app.acme.example"]);
      expect(result.problems).toEqual([]);
      expect((await createAdminClient(keys).permissionDefinitions.list()).map((p) => p.id)).toContain("read_reports");
    } finally {
      log.mockRestore();
    }
  });

  it("createAcme makes a project the owner manages over their session", async () => {
    const owner = new AuthClient({
      projectId: "internal",
      publishableClientKey: service.internal.publishable_client_key,
      baseUrl: service.url,
      cookies: null,
    });
    await owner.signUpWithCredential("owner@acme.example", "correct horse battery", {
      verificationCallbackUrl: "http://localhost:3000/handler/email-verification",
    });
    let ownerTeamId: string | undefined;
    if (api === "2.8") {
      // the dashboard's back end makes the owner's team on `internal`
      const team = await fetch(`${service.url}/api/v1/teams`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-stack-project-id": "internal",
          "x-stack-access-type": "server",
          "x-stack-secret-server-key": service.internal.secret_server_key,
        },
        body: JSON.stringify({ display_name: "Acme engineering", creator_user_id: owner.getUserState().user?.id }),
      });
      expect(team.status).toBe(201);
      ownerTeamId = ((await team.json()) as { id: string }).id;
    }
    const { project, count } = await createAcme(owner, ownerTeamId);
    expect(project.displayName).toBe("Acme");
    expect(count).toBe(1);
  });
});
