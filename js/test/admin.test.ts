// @vitest-environment node
// The admin calls of @authmw/react/core against the real local service (authmw.dev.LocalService in
// the project's Python, started for this file by ./local-service), with the scenarios of tests/server/test_admin.py.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AdminClient,
  createAdminClient,
  getProductionModeErrors,
  GONE_IN_2_8,
  ownedProjects,
  PROJECT_PATH_2_7,
  PROJECT_PATH_2_8,
  projectUpdateFor28,
  SOURCES_NEED_2_8,
} from "../src/admin";
import { AuthClient } from "../src/client";
import {
  AdminAccessTokenIsNotAdmin,
  ApiKeyNotFound,
  CurrentProjectNotFound,
  EmailRenderingError,
  ExpectedInternalProject,
  HttpStatusError,
  InsufficientAccessType,
  InvalidSecretServerKey,
  NotInServiceVersion,
  RequiresCustomEmailServer,
  SchemaError,
  SignUpRejected,
  UserAuthenticationRequired,
} from "../src/errors";
import type { AdminProject } from "../src/models";
import { Transport } from "../src/transport";
import { fakeFetch, jsonResponse, knownErrorResponse, makeJwt } from "./helpers";
import { API_VERSIONS, startLocalService, type Keys, type RunningService } from "./local-service";

const DAY_MS = 24 * 3600 * 1000;
const LOCALHOST_MESSAGE = "Localhost is not allowed in production mode, turn off 'Allow localhost' in project settings";

let service: RunningService;
let url = "";
let project: Keys;
let internal: Keys;
let currentApi: (typeof API_VERSIONS)[number] = "2.8";

const admin = () => createAdminClient({ projectId: project.project_id, baseUrl: url, superSecretAdminKey: project.super_secret_admin_key });
const email = (tag: string) => `${tag}-${Math.random().toString(36).slice(2, 12)}@example.com`;

async function owner() {
  const client = new AuthClient({
    projectId: "internal",
    publishableClientKey: internal.publishable_client_key,
    baseUrl: url,
    cookies: null,
  });
  await client.signUpWithCredential(email("owner"), "correct horse battery", {
    verificationCallbackUrl: "http://localhost:3000/handler/email-verification",
  });
  return { client, owned: ownedProjects(client) };
}

/** API 2.8: a team of `internal` that the owner belongs to, made by the dashboard's back end (the
 * project's owner team); 2.7 has no owner teams. */
async function ownerTeam(client: AuthClient): Promise<string | undefined> {
  if (currentApi !== "2.8") return undefined;
  const userId = client.getUserState().user?.id;
  const answer = await fetch(`${url}/api/v1/teams`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-stack-project-id": "internal",
      "x-stack-access-type": "server",
      "x-stack-secret-server-key": internal.secret_server_key,
    },
    body: JSON.stringify({ display_name: "Owners", creator_user_id: userId }),
  });
  expect(answer.status).toBe(201);
  return ((await answer.json()) as { id: string }).id;
}

async function scratchProject(config: NonNullable<Parameters<AdminClient["updateProject"]>[0]["config"]> = {}) {
  const { client, owned } = await owner();
  const created = await owned.create({ displayName: "Scratch", config, ownerTeamId: await ownerTeam(client) });
  return { client, owned, created, admin: owned.adminClient(created.id) };
}

// Every call that talks to the service runs against both API versions the local service answers
// as (2.8, the hosted service's, and 2.7); the helpers above read the keys of the running one.
describe.each(API_VERSIONS)("API %s", (api) => {
  beforeAll(async () => {
    service = await startLocalService(api);
    ({ url, project, internal } = service);
    currentApi = api;
  }, 150_000);
  afterAll(() => service?.stop());

  describe("project settings", () => {
    it("getProject is the admin view with the defaults", async () => {
      const p = await admin().getProject();
      expect(p.id).toBe(project.project_id);
      expect(p.description).toBe("");
      expect(p.createdAt).toBeInstanceOf(Date);
      expect(p.isProductionMode).toBe(false);
      expect(p.config.allowLocalhost).toBe(true);
      expect(p.config.emailConfig).toEqual({ type: "shared" });
      // the service's own project has its version's definitions (2.8.86: team_admin / team_member)
      const [creator, member] = api === "2.8" ? ["team_admin", "team_member"] : ["admin", "member"];
      expect(p.config.teamCreatorDefaultPermissions).toEqual([{ id: creator }]);
      expect(p.config.teamMemberDefaultPermissions).toEqual([{ id: member }]);
      expect(p.config.domains).toEqual([]);
    });

    it("updateProject changes what it names and reads back camelCase settings", async () => {
      const { admin: a } = await scratchProject();
      const updated = await a.updateProject({
        displayName: "Renamed",
        description: "for tests",
        config: {
          magicLinkEnabled: true,
          domains: [{ domain: "https://app.example.com" }],
          oauthProviders: [{ id: "github", type: "standard", enabled: true, clientId: "gh", clientSecret: "s3cret" }],
        },
      });
      expect(updated.displayName).toBe("Renamed");
      expect(updated.config.magicLinkEnabled).toBe(true);
      expect(updated.config.domains).toEqual([{ domain: "https://app.example.com", handlerPath: "/handler" }]);
      expect(updated.config.oauthProviders).toEqual([
        { id: "github", type: "standard", enabled: true, clientId: "gh", clientSecret: "s3cret" },
      ]);
      expect(updated.config.enabledOAuthProviders).toEqual([{ id: "github" }]);
      expect((await a.updateProject({ description: null })).description).toBe("");
    });

    it("oauthAccountMergeStrategy: link_method by default, changed and read back on 2.8", async () => {
      const { admin: a } = await scratchProject();
      expect((await a.getProject()).config.oauthAccountMergeStrategy).toBe("link_method");
      if (api !== "2.8") return; // 2.7 has no such setting (read as the default)
      const updated = await a.updateProject({ config: { oauthAccountMergeStrategy: "raise_error" } });
      expect(updated.config.oauthAccountMergeStrategy).toBe("raise_error");
      expect((await a.getProject()).config.oauthAccountMergeStrategy).toBe("raise_error");
    });

    it("facebookConfigId and microsoftTenantId: sent, kept and read back", async () => {
      const { admin: a } = await scratchProject();
      const facebook = { id: "facebook", type: "standard" as const, enabled: true, clientId: "fb", clientSecret: "fs" };
      const microsoft = { id: "microsoft", type: "standard" as const, enabled: true, clientId: "ms", clientSecret: "mss" };
      const first = await a.updateProject({
        config: { oauthProviders: [{ ...facebook, facebookConfigId: "fb-config-1" }, { ...microsoft, microsoftTenantId: "contoso" }] },
      });
      expect(first.config.oauthProviders).toEqual([
        { ...facebook, facebookConfigId: "fb-config-1" },
        { ...microsoft, microsoftTenantId: "contoso" },
      ]);
      await a.updateProject({
        config: { oauthProviders: [{ ...facebook, facebookConfigId: "fb-config-2" }, { ...microsoft, microsoftTenantId: "fabrikam" }] },
      });
      expect((await a.getProject()).config.oauthProviders).toEqual([
        { ...facebook, facebookConfigId: "fb-config-2" },
        { ...microsoft, microsoftTenantId: "fabrikam" },
      ]);
    });

    it("an outside provider of the local service: realProvider and oidcIssuerUrl sent, kept and read back", async () => {
      const { admin: a } = await scratchProject();
      const google = {
        id: "google",
        type: "standard" as const,
        enabled: true,
        clientId: "id.apps.googleusercontent.com",
        clientSecret: "secret",
        oidcIssuerUrl: "https://accounts.google.com",
      };
      const github = { id: "github", type: "standard" as const, enabled: true, clientId: "gh", clientSecret: "ghs", realProvider: true };
      const updated = await a.updateProject({ config: { oauthProviders: [google, github] } });
      expect(updated.config.oauthProviders).toEqual([github, google]);
      expect((await a.getProject()).config.oauthProviders).toEqual([github, google]);
    });

    it("a disabled OAuth provider: kept on 2.7, left out on 2.8 (which lists enabled providers only)", async () => {
      const { admin: a } = await scratchProject();
      const updated = await a.updateProject({
        config: {
          legacyGlobalJwtSigning: false, // 2.8 has no such setting: not sent there
          oauthProviders: [
            { id: "github", type: "shared", enabled: true },
            { id: "google", type: "standard", enabled: false, clientId: "g", clientSecret: "s" },
          ],
        },
      });
      const github = { id: "github", type: "shared", enabled: true };
      const google = { id: "google", type: "standard", enabled: false, clientId: "g", clientSecret: "s" };
      expect(updated.config.oauthProviders).toEqual(api === "2.7" ? [github, google] : [github]);
      expect(updated.config.enabledOAuthProviders).toEqual([{ id: "github" }]);
      expect(updated.config.legacyGlobalJwtSigning).toBe(false);
      expect((await a.getProject()).config.oauthProviders).toEqual(updated.config.oauthProviders);
    });

    it("contract errors are typed", async () => {
      const { admin: a } = await scratchProject();
      await expect(a.updateProject({ config: { domains: [{ domain: "ftp://a.example" }] } })).rejects.toBeInstanceOf(SchemaError);
      // One domain listed twice: 2.7 refuses it, 2.8.86 keeps its domains as a record and takes both.
      const twice = [{ domain: "https://a.example" }, { domain: "https://a.example" }];
      const duplicated = a.updateProject({ config: { domains: twice } });
      if (api === "2.7") await expect(duplicated).rejects.toMatchObject({ status: 400 });
      else expect((await duplicated).config.domains.map((d) => d.domain)).toEqual(["https://a.example", "https://a.example"]);
      await expect(a.updateProject({ config: { allowLocalHost: false } as never })).rejects.toThrow(/unknown properties: allow_local_host/);
      const server = new Transport({ projectId: project.project_id, baseUrl: url, accessType: "server", secretServerKey: project.secret_server_key });
      await expect(server.request({ method: "GET", path: "/internal/api-keys" })).rejects.toBeInstanceOf(InsufficientAccessType);
    });

    it("deleteProject removes an owned project", async () => {
      const { owned, created, admin: a } = await scratchProject();
      await a.deleteProject();
      expect((await owned.list()).map((p) => p.id)).not.toContain(created.id);
      // 2.8 looks the project up before the admin token (service-api B1.3 step 5)
      await expect(a.getProject()).rejects.toBeInstanceOf(api === "2.8" ? CurrentProjectNotFound : AdminAccessTokenIsNotAdmin);
    });
  });

  describe("production checks", () => {
    it("a new project fails only the localhost check, with the fix link", async () => {
      const { created, admin: a } = await scratchProject();
      expect(await a.getProductionModeErrors()).toEqual([
        {
          message: LOCALHOST_MESSAGE,
          relativeFixUrl: `/projects/${created.id}/domains`,
          fixUrl: `https://app.stack-auth.com/projects/${created.id}/domains`,
        },
      ]);
    });

    it("each domain rule in list order, then none once fixed", async () => {
      const { created, admin: a } = await scratchProject();
      const domains = ["https://localhost:3000", "https://app.localhost", "http://127.0.0.1:8000", "https://192.168.1.20", "http://app.example.com", "https://app.example.com"];
      await a.updateProject({ config: { allowLocalhost: false, domains: domains.map((domain) => ({ domain })) } });
      const errors = await a.getProductionModeErrors({ dashboardUrl: "http://dash.test/" });
      expect(errors.map((e) => e.message)).toEqual([
        "Localhost domains are not allowed to be trusted in production mode: https://localhost:3000",
        "Localhost domains are not allowed to be trusted in production mode: https://app.localhost",
        "Localhost domains are not allowed to be trusted in production mode: http://127.0.0.1:8000",
        "Direct IPs are not valid for trusted domains in production mode: https://192.168.1.20",
        "Trusted domains should be HTTPS: http://app.example.com",
      ]);
      expect(new Set(errors.map((e) => e.fixUrl))).toEqual(new Set([`http://dash.test/projects/${created.id}/domains`]));
      await a.updateProject({ config: { domains: [{ domain: "https://app.example.com" }] } });
      expect(await a.getProductionModeErrors()).toEqual([]);
    });

  });

  describe("API keys", () => {
    it("create, list, get, revoke; a revoked key is refused by the next call", async () => {
      const a = admin();
      const created = await a.apiKeys.create({ description: "ci", expiresAt: new Date(Date.now() + 30 * DAY_MS) });
      expect(created.secretServerKey).toMatch(/^ssk_/);
      expect(created.publishableClientKey).toMatch(/^pck_/);
      expect(created.superSecretAdminKey).toBeNull();
      expect(created.isValid()).toBe(true);
      expect((await a.apiKeys.list())[0]!.id).toBe(created.id);
      const read = await a.apiKeys.get(created.id);
      expect(read.secretServerKeyLastFour).toBe(created.secretServerKey!.slice(-4));
      expect((read as { secretServerKey?: unknown }).secretServerKey).toBeNull();

      const server = new Transport({ projectId: project.project_id, baseUrl: url, accessType: "server", secretServerKey: created.secretServerKey });
      expect((await server.request<{ id: string }>({ method: "GET", path: "/projects/current" })).body.id).toBe(project.project_id);
      const revoked = await a.apiKeys.revoke(created.id);
      expect(revoked.manuallyRevokedAt).toBeInstanceOf(Date);
      expect(revoked.whyInvalid()).toBe("manually-revoked");
      await expect(server.request({ method: "GET", path: "/projects/current" })).rejects.toBeInstanceOf(InvalidSecretServerKey);
    });

    it("expired keys and unknown ids", async () => {
      const a = admin();
      const expired = await a.apiKeys.create({ description: "old", expiresAt: Date.now() - 1000, hasSuperSecretAdminKey: true });
      expect(expired.whyInvalid()).toBe("expired");
      expect(expired.superSecretAdminKey).toMatch(/^sak_/);
      await expect(a.apiKeys.get("00000000-0000-4000-8000-000000000000")).rejects.toBeInstanceOf(ApiKeyNotFound);
    });
  });

  describe("e-mail templates", () => {
    if (api === "2.8") it("2.8 removed them: every call is NotInServiceVersion, naming the version", async () => {
      const { admin: a } = await scratchProject();
      const calls = [
        () => a.emailTemplates.list(),
        () => a.emailTemplates.get("magic_link"),
        () => a.emailTemplates.update("magic_link", { subject: "Your link" }),
        () => a.emailTemplates.reset("magic_link"),
      ];
      for (const call of calls) {
        const error = await call().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(NotInServiceVersion);
        expect(error).toBeInstanceOf(HttpStatusError);
        expect(error).toMatchObject({ name: "NotInServiceVersion", status: 404, message: GONE_IN_2_8 });
        expect((error as Error).message).toMatch(/answers as API 2\.8/);
      }
    });

    if (api === "2.7") it("round trip: list, update, get, reset", async () => {
      const { admin: a } = await scratchProject();
      const templates = await a.emailTemplates.list();
      expect(templates.map((t) => t.type)).toEqual(["email_verification", "password_reset", "magic_link", "team_invitation"]);
      expect(templates.every((t) => t.isDefault)).toBe(true);
      const content = { type: "doc", content: [{ type: "paragraph", content: [{ type: "text", text: "Hi" }] }] };
      const changed = await a.emailTemplates.update("magic_link", { subject: "Your link", content });
      expect(changed).toEqual({ type: "magic_link", subject: "Your link", content, isDefault: false });
      expect(await a.emailTemplates.get("magic_link")).toEqual(changed);
      await a.emailTemplates.reset("magic_link");
      expect((await a.emailTemplates.get("magic_link")).isDefault).toBe(true);
      const again = await a.emailTemplates.reset("magic_link").catch((e: unknown) => e);
      expect(again).toBeInstanceOf(HttpStatusError);
      expect((again as HttpStatusError).status).toBe(404);
      await expect(a.emailTemplates.get("welcome" as never)).rejects.toBeInstanceOf(SchemaError);
    });
  });

  describe("TSX e-mail templates and themes (API 2.8)", () => {
    const PASSWORD_RESET_ID = "a70fb3a4-56c1-4e42-af25-49d25603abd0";
    const SOURCE = [
      'import { Text } from "@react-email/components";',
      'import { Subject, NotificationCategory } from "@stackframe/emails";',
      "export function EmailTemplate({ user, project }) {",
      "  return <><Subject value={`Reset at ${project.displayName}`} /><NotificationCategory value=\"Transactional\" />",
      "    <Text>Hi {user.displayName}, reset here.</Text></>;",
      "}",
    ].join("\n");
    const ownServer = {
      emailConfig: {
        type: "standard" as const,
        host: "127.0.0.1",
        port: 9,
        username: "user",
        password: "secret",
        senderName: "Acme",
        senderEmail: "auth@acme.example",
      },
    };

    if (api === "2.8") it("round trip: list, update with preview, get, delete; themes create, get, update", async () => {
      const { admin: a } = await scratchProject(ownServer);
      const templates = await a.tsxEmailTemplates.list();
      expect(templates[1]).toMatchObject({ id: PASSWORD_RESET_ID, displayName: "Password Reset", themeId: null });
      expect(await a.tsxEmailTemplates.update(PASSWORD_RESET_ID, SOURCE)).toContain("Hi John Doe, reset here.");
      expect((await a.tsxEmailTemplates.get(PASSWORD_RESET_ID)).tsxSource).toBe(SOURCE);
      const broken = await a.tsxEmailTemplates
        .update(PASSWORD_RESET_ID, "export function EmailTemplate() { throw new Error('boom'); }")
        .catch((e: unknown) => e);
      expect(broken).toBeInstanceOf(EmailRenderingError);
      expect((await a.tsxEmailTemplates.get(PASSWORD_RESET_ID)).tsxSource).toBe(SOURCE); // nothing stored
      await a.tsxEmailTemplates.delete(PASSWORD_RESET_ID);
      expect((await a.tsxEmailTemplates.get(PASSWORD_RESET_ID)).tsxSource).not.toBe(SOURCE);

      const id = await a.tsxEmailTemplates.create("Digest");
      await a.tsxEmailTemplates.update(id, SOURCE, { themeId: false });
      expect(await a.tsxEmailTemplates.get(id)).toEqual({ id, displayName: "Digest", tsxSource: SOURCE, themeId: false });
      await a.tsxEmailTemplates.delete(id);
      await expect(a.tsxEmailTemplates.get(id)).rejects.toThrow(/no e-mail template/);

      const themeId = await a.emailThemes.create("Brand");
      expect((await a.emailThemes.list()).map((t) => t.displayName)).toContain("Brand");
      const theme = await a.emailThemes.get(themeId);
      expect(theme).toMatchObject({ id: themeId, displayName: "Brand" });
      const changed = theme.tsxSource.replace("Unsubscribe", "Leave");
      await a.emailThemes.update(themeId, changed);
      expect((await a.emailThemes.get(themeId)).tsxSource).toBe(changed);
    });

    if (api === "2.8") it("changing templates needs the project's own e-mail server", async () => {
      const { admin: a } = await scratchProject();
      expect((await a.tsxEmailTemplates.list()).length).toBeGreaterThanOrEqual(4);
      await expect(a.tsxEmailTemplates.update(PASSWORD_RESET_ID, SOURCE)).rejects.toBeInstanceOf(RequiresCustomEmailServer);
      await expect(a.tsxEmailTemplates.create("x")).rejects.toBeInstanceOf(RequiresCustomEmailServer);
    });

    if (api === "2.7") it("2.7 has none: NotInServiceVersion naming the version", async () => {
      const { admin: a } = await scratchProject();
      for (const [call, path] of [
        [() => a.tsxEmailTemplates.list(), "/internal/email-templates"],
        [() => a.tsxEmailTemplates.delete(PASSWORD_RESET_ID), "/internal/email-templates"],
        [() => a.emailThemes.get("1df07ae6-abf3-4a40-83a5-a1a2cbe336ac"), "/internal/email-themes"],
      ] as const) {
        const error = await call().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(NotInServiceVersion);
        expect(error).toMatchObject({ status: 404, message: SOURCES_NEED_2_8(path) });
      }
    });
  });

  describe("sign-up rules and the 2.8 config", () => {
    if (api === "2.8") it("a blocklist refuses its domain, an allowlist lets only its own in; rules round-trip", async () => {
      const a = admin();
      const client = () =>
        new AuthClient({ projectId: project.project_id, publishableClientKey: project.publishable_client_key, baseUrl: url, cookies: null });
      const signUp = (address: string) =>
        client().signUpWithCredential(address, "correct horse battery", {
          verificationCallbackUrl: "http://localhost:3000/handler/email-verification",
        });
      try {
        await a.signUpRules.set("no-temp", { condition: 'emailDomain == "tempmail.example"', action: "reject", message: "spam wave" });
        const refused = await signUp(email("x").replace("example.com", "tempmail.example")).catch((e: unknown) => e);
        expect(refused).toBeInstanceOf(SignUpRejected);
        expect((refused as Error).message).not.toContain("spam wave");
        await signUp(email("control")); // another domain signs up

        await a.signUpRules.setDefaultAction("reject");
        await a.signUpRules.set("staff", { condition: 'email.endsWith("@staff.example")', action: "allow", priority: 3, displayName: "Staff" });
        await signUp(email("ann").replace("example.com", "staff.example"));
        await expect(signUp(email("bob"))).rejects.toBeInstanceOf(SignUpRejected);
        const listed = await a.signUpRules.list();
        expect(Object.keys(listed.rules)).toEqual(["staff", "no-temp"]);
        expect(listed.rules.staff).toEqual({
          condition: 'email.endsWith("@staff.example")',
          action: "allow",
          enabled: true,
          priority: 3,
          displayName: "Staff",
          message: null,
        });
        expect(listed.defaultAction).toBe("reject");
        await a.signUpRules.delete("no-temp");
        expect(Object.keys((await a.signUpRules.list()).rules)).toEqual(["staff"]);
        const bad = await a.signUpRules.set("broken", { condition: "email ==", action: "reject" }).catch((e: unknown) => e);
        expect(bad).toBeInstanceOf(HttpStatusError);
        expect((bad as HttpStatusError).status).toBe(400);
        await a.updateConfig({ "onboarding.requireEmailVerification": true });
        expect(((await a.getConfig()).onboarding as Record<string, unknown>).requireEmailVerification).toBe(true);
      } finally {
        await a.updateConfig({ "auth.signUpRules": null, "auth.signUpRulesDefaultAction": null, "onboarding.requireEmailVerification": null });
      }
    });

    if (api === "2.7") it("2.7 has no config: NotInServiceVersion naming the version", async () => {
      for (const call of [() => admin().signUpRules.list(), () => admin().updateConfig({ "auth.allowSignUp": true })]) {
        const error = await call().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(NotInServiceVersion);
        expect((error as Error).message).toMatch(/answers as API 2\.7/);
      }
    });
  });

  describe("tools", () => {
    it("a test e-mail to an SMTP server that is not there fails with a message", async () => {
      const result = await admin().sendTestEmail({
        recipientEmail: "ada@example.com",
        emailConfig: { type: "standard", host: "127.0.0.1", port: 9, username: "u", password: "p", senderName: "Acme", senderEmail: "auth@acme.example" },
      });
      expect(result.success).toBe(false);
      expect(result.errorMessage).toBeTruthy();
    });

    it("metrics and the webhook token", async () => {
      const metrics = await admin().getMetrics();
      expect(metrics.dailyUsers).toHaveLength(31);
      expect(metrics.totalUsers).toBeGreaterThanOrEqual(0);
      expect(typeof (await admin().createSvixToken())).toBe("string");
    });

    it("permission definitions", async () => {
      const { admin: a } = await scratchProject();
      const made = await a.permissionDefinitions.create({ id: "editor", description: "edits", containedPermissionIds: ["$read_members"] });
      expect(made).toEqual({ id: "editor", description: "edits", containedPermissionIds: ["$read_members"] });
      expect((await a.permissionDefinitions.list()).map((d) => d.id)).toContain("editor");
      expect((await a.permissionDefinitions.update("editor", { description: "changes" })).description).toBe("changes");
      await a.permissionDefinitions.delete("editor");
      expect((await a.permissionDefinitions.list()).map((d) => d.id)).not.toContain("editor");
    });
  });

  describe("owned projects", () => {
    it("an owner creates and lists projects and manages one over the admin access token", async () => {
      const { owned, created, admin: a } = await scratchProject({ magicLinkEnabled: true });
      expect(created.config.magicLinkEnabled).toBe(true);
      expect((await owned.list()).map((p) => p.id)).toEqual([created.id]);
      expect((await a.getProject()).id).toBe(created.id);
      await expect(owned.create({ displayName: "" })).rejects.toThrow("displayName");
    });

    it("owned projects need a user of internal", async () => {
      const anonymous = new AuthClient({ projectId: "internal", publishableClientKey: internal.publishable_client_key, baseUrl: url, cookies: null });
      await expect(ownedProjects(anonymous).list()).rejects.toBeInstanceOf(UserAuthenticationRequired);
      const user = new AuthClient({ projectId: project.project_id, publishableClientKey: project.publishable_client_key, baseUrl: url, cookies: null });
      await user.signUpWithCredential(email("user"), "correct horse battery", { verificationCallbackUrl: "http://localhost:3000/v" });
      await expect(ownedProjects(user).list()).rejects.toBeInstanceOf(ExpectedInternalProject);
      const { owned } = await owner();
      await expect(owned.adminClient(project.project_id).getProject()).rejects.toBeInstanceOf(AdminAccessTokenIsNotAdmin);
    });

    it("a refused admin access token is refreshed and the call retried", async () => {
      const { client, created, admin: a } = await scratchProject();
      const { accessToken, refreshToken } = client.session.getState();
      const claims = JSON.parse(Buffer.from(accessToken!.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;
      const forged = makeJwt({ ...claims, exp: Math.floor(Date.now() / 1000) + 3600 }); // looks fresh, fails the signature
      client.session.setTokens({ accessToken: forged, refreshToken });
      expect((await a.getProject()).id).toBe(created.id);
      expect(client.session.getState().accessToken).not.toBe(forged);
      expect(client.session.getState().accessToken).toBeTruthy();
    });
  });
});

describe("admin transport headers", () => {
  it("the admin tier sends its key, or the owner's token instead", async () => {
    const f = fakeFetch();
    const keyed = new AdminClient({ projectId: "p", baseUrl: "http://api.test", superSecretAdminKey: "sak_x", fetch: f.fetch });
    f.reply(jsonResponse({ token: "t" }));
    await keyed.createSvixToken();
    expect(f.calls[0]!.headers).toMatchObject({ "x-stack-access-type": "admin", "x-stack-super-secret-admin-key": "sak_x" });
    const session = { getTokens: async () => ({ accessToken: "owner-at", refreshToken: "rt" }), markAccessTokenExpired: () => {} };
    const owned = new AdminClient({ projectId: "p", baseUrl: "http://api.test", ownerSession: session, fetch: f.fetch });
    f.reply(knownErrorResponse("ADMIN_ACCESS_TOKEN_EXPIRED", 401), jsonResponse({ token: "t" }));
    await owned.createSvixToken();
    expect(f.calls[1]!.headers["x-stack-admin-access-token"]).toBe("owner-at");
    expect(f.calls[1]!.headers).not.toHaveProperty("x-stack-super-secret-admin-key");
    expect(f.calls).toHaveLength(3); // refused once, retried once
    expect(() => new AdminClient({ projectId: "p", baseUrl: "http://api.test" })).toThrow("super secret admin key");
  });
});

const WIDE = "Wildcard trusted domains must end with at least two labels of your own (https://*.example.com) in production mode: ";

describe("production checks, pure", () => {
  it.each([
    ["not a url", "Trusted domain is not a valid URL: not a url"],
    ["https://", "Trusted domain is not a valid URL: https://"],
    ["https://LOCALHOST", "Localhost domains are not allowed to be trusted in production mode: https://LOCALHOST"],
    ["https://10.0.0.1", "Direct IPs are not valid for trusted domains in production mode: https://10.0.0.1"],
    ["http://a.example", "Trusted domains should be HTTPS: http://a.example"],
    // attacks: hosts a browser reads as this machine or as an address (as Python's check)
    ["https://0x7f.0.0.1", "Localhost domains are not allowed to be trusted in production mode: https://0x7f.0.0.1"],
    ["https://local%68ost", "Localhost domains are not allowed to be trusted in production mode: https://local%68ost"],
    ["https://localhost.", "Localhost domains are not allowed to be trusted in production mode: https://localhost."],
    ["https://[::1]", "Direct IPs are not valid for trusted domains in production mode: https://[::1]"],
    ["https://0xc0.0xa8.1.20", "Direct IPs are not valid for trusted domains in production mode: https://0xc0.0xa8.1.20"],
    ["https://**", WIDE + "https://**"],
    ["https://*.com", WIDE + "https://*.com"],
    ["https://*example.com", WIDE + "https://*example.com"],
    // controls
    ["https://*.example.com", null],
    ["https://app-*.example.com", null],
    ["https://app.example.com./", null],
  ])("the pure check of %s", (domain, message) => {
    const p = { id: "p1", config: { allowLocalhost: false, domains: [{ domain, handlerPath: "/h" }] } } as unknown as AdminProject;
    expect(getProductionModeErrors(p).map((e) => e.message)).toEqual(message ? [message] : []);
  });
});

describe("which API version answers", () => {
  const wire = { id: "p", display_name: "P", created_at_millis: 0, config: {} };
  const client = (fetch: typeof globalThis.fetch) =>
    new AdminClient({ projectId: "p", baseUrl: "http://api.test", superSecretAdminKey: "sak_x", fetch });
  const paths = (calls: { method: string; url: string }[]) => calls.map((c) => `${c.method} ${new URL(c.url).pathname.replace("/api/v1", "")}`);

  it("a plain 404 of the 2.8 path means 2.7: probed once, then the 2.7 path, with the 2.7 body", async () => {
    const f = fakeFetch();
    const a = client(f.fetch);
    f.reply(new Response("Not found", { status: 404 }), jsonResponse(wire), jsonResponse(wire));
    await a.getProject();
    await a.updateProject({ config: { oauthProviders: [{ id: "github", type: "shared", enabled: false }] } });
    expect(paths(f.calls)).toEqual([`GET ${PROJECT_PATH_2_8}`, `GET ${PROJECT_PATH_2_7}`, `PATCH ${PROJECT_PATH_2_7}`]);
    expect(JSON.parse(f.calls[2]!.body!).config.oauth_providers).toEqual([{ id: "github", type: "shared", enabled: false }]);
  });

  it("an update probes first, and 2.8 gets the 2.8 body", async () => {
    const f = fakeFetch();
    f.reply(jsonResponse(wire), jsonResponse(wire));
    await client(f.fetch).updateProject({ config: { legacyGlobalJwtSigning: false, oauthProviders: [{ id: "github", type: "shared", enabled: true }] } });
    expect(paths(f.calls)).toEqual([`GET ${PROJECT_PATH_2_8}`, `PATCH ${PROJECT_PATH_2_8}`]);
    expect(JSON.parse(f.calls[1]!.body!).config).toEqual({ oauth_providers: [{ id: "github", type: "shared" }] });
  });

  it("a known error or another status on the 2.8 path is the answer, not a sign of 2.7", async () => {
    const f = fakeFetch();
    const a = client(f.fetch);
    f.reply(knownErrorResponse("INVALID_SUPER_SECRET_ADMIN_KEY", 401), new Response("", { status: 405 }));
    await expect(a.getProject()).rejects.toHaveProperty("status", 401);
    await expect(a.deleteProject()).rejects.toMatchObject({ status: 405 });
    expect(paths(f.calls)).toEqual([`GET ${PROJECT_PATH_2_8}`, `DELETE ${PROJECT_PATH_2_8}`]);
  });

  it("projectUpdateFor28 leaves what 2.8 has alone", () => {
    expect(projectUpdateFor28({ display_name: "x" })).toEqual({ display_name: "x" });
    const body = { config: { sign_up_enabled: true, legacy_global_jwt_signing: false, oauth_providers: [{ id: "a", enabled: false }, { id: "b" }] } };
    expect(projectUpdateFor28(body)).toEqual({ config: { sign_up_enabled: true, oauth_providers: [{ id: "b" }] } });
    expect(body.config.oauth_providers).toHaveLength(2); // the caller's body is not changed
  });
});
