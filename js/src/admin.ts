// The admin tier (service-api C6): project settings, API keys, e-mail templates, permission
// definitions, metrics, the webhook token and the test e-mail, plus the production-mode checks
// (service-api C5) and the projects a user owns on the `internal` project. Framework-free, for
// admin screens and tools; the same calls as the Python AdminApp.
//
// Two ways in:
// - createAdminClient({ projectId, baseUrl, superSecretAdminKey }) in trusted code (a local tool,
//   a back end): never ship the super secret admin key in a page served to users.
// - ownedProjects(client) for a user signed in on the `internal` project: its adminClient(id)
//   sends the user's access token as the admin access token (refreshed and retried when refused).
//
// Works against API 2.8 (the hosted service) and 2.7: see PROJECT_PATH_2_8 and GONE_IN_2_8.
import { seg } from "./api-context.js";
import { AuthmwError, InvalidServerResponse } from "./errors.js";
import { HttpStatusError, NotInServiceVersion } from "./http-errors.js";
import {
  adminProjectUpdateToWire,
  apiKeyFromWire,
  emailTemplateFromWire,
  metricsFromWire,
  permissionDefinitionFromWire,
  tsxEmailTemplateFromWire,
  type AdminProject,
  type AdminProjectUpdate,
  type ApiKey,
  type ApiKeyCreate,
  type EmailConfig,
  type EmailTemplate,
  type EmailTemplateType,
  type EmailTheme,
  type EmailThemeSummary,
  type Metrics,
  type NewApiKey,
  type PermissionDefinition,
  type TestEmailResult,
  type TsxEmailTemplate,
} from "./models.js";
import { adminProjectFromWire } from "./models-on-demand.js";
import { Transport, type ApiRequest, type HttpMethod, type TokenProvider, type TransportOptions } from "./transport.js";

type Wire = Record<string, any>;

/**
 * The admin view of the project: API 2.8 moved it (its `/projects/current` answers every tier
 * with the client view and refuses PATCH and DELETE with 405), API 2.7 has it at
 * `/projects/current`. Only the new path tells the versions apart (a 2.7 service answers it with
 * a plain 404, with no side effect for any method), so it is tried first, once per client, and
 * the path that answered is kept. The same rule as the Python AdminApp.
 */
export const PROJECT_PATH_2_8 = "/internal/projects/current";
export const PROJECT_PATH_2_7 = "/projects/current";

/** What a 2.8 service answers to the 2.7 e-mail template routes: a plain 404 (they were removed). */
export const GONE_IN_2_8 =
  "The service has no /email-templates: that is an API 2.7 call, and this service answers as API 2.8, " +
  "which removed it: its templates are TSX sources under /internal/email-templates, which " +
  "tsxEmailTemplates (and emailThemes) manage.";

/** What a 2.7 service answers to the 2.8 template and theme routes: a plain 404 (not there yet). */
export const SOURCES_NEED_2_8 = (path: string): string =>
  `The service has no ${path}: TSX e-mail templates and themes are API 2.8, and this service answers as ` +
  "API 2.7. Use emailTemplates (2.7's subject and content templates) instead.";

const isPlain404 = (error: unknown): error is HttpStatusError => error instanceof HttpStatusError && error.status === 404;

/**
 * A project update for API 2.8, whose OAuth providers have no `enabled` (a listed provider is
 * enabled: a disabled one is left out) and which has no legacy JWT signing. Pure.
 */
export function projectUpdateFor28(body: Wire): Wire {
  const config = body.config as Wire | undefined;
  if (config === null || typeof config !== "object" || Array.isArray(config)) return body;
  const { legacy_global_jwt_signing: _legacy, ...rest } = config;
  if (Array.isArray(rest.oauth_providers)) {
    rest.oauth_providers = (rest.oauth_providers as Wire[])
      .filter((provider) => provider?.enabled !== false)
      .map(({ enabled: _enabled, ...provider }) => provider);
  }
  return { ...body, config: rest };
}

/** Where the hosted service's project settings live; fix links point there by default. */
export const DEFAULT_DASHBOARD_URL = "https://app.stack-auth.com";

/** One failed production-mode check: what is wrong and where it is fixed. */
export interface ProductionModeError {
  message: string;
  /** `/projects/{id}/domains`, as the official SDK gives it. */
  relativeFixUrl: string;
  /** The same page on the dashboard. */
  fixUrl: string;
}

const LOCALHOST = /^(localhost|.*\.localhost|127\.\d+\.\d+\.\d+)$/;
const DIGITS_AND_DOTS = /^[\d.]+$/;
const PLACEHOLDER = "wildcard-placeholder";

function domainProblem(domain: string): string | null {
  let url: URL;
  try {
    url = new URL(domain.replace(/\*+/g, PLACEHOLDER)); // a wildcard stands for one label
  } catch {
    return "Trusted domain is not a valid URL";
  }
  // A final dot names the same host to a browser (`localhost.` is this machine).
  const host = url.hostname.replace(/\.$/, "");
  if (LOCALHOST.test(host)) return "Localhost domains are not allowed to be trusted in production mode";
  // an IPv4 address, or an IPv6 one (`[::1]`)
  if (DIGITS_AND_DOTS.test(host) || host.startsWith("[")) return "Direct IPs are not valid for trusted domains in production mode";
  if (url.protocol !== "https:") return "Trusted domains should be HTTPS";
  // `https://**` or `https://*.com` lets the service send codes to anyone's site (not the dashboard's rule)
  if (host.includes(PLACEHOLDER) && host.split(PLACEHOLDER).pop()!.split(".").length < 3) {
    return "Wildcard trusted domains must end with at least two labels of your own (https://*.example.com) in production mode";
  }
  return null;
}

/** Every check of service-api C5 the project fails, in order; empty when it is ready. Pure. */
export function getProductionModeErrors(
  project: AdminProject,
  options: { dashboardUrl?: string } = {},
): ProductionModeError[] {
  const relativeFixUrl = `/projects/${project.id}/domains`;
  const fixUrl = (options.dashboardUrl ?? DEFAULT_DASHBOARD_URL).replace(/\/+$/, "") + relativeFixUrl;
  const errors: ProductionModeError[] = [];
  const add = (message: string) => errors.push({ message, relativeFixUrl, fixUrl });
  if (project.config.allowLocalhost) {
    add("Localhost is not allowed in production mode, turn off 'Allow localhost' in project settings");
  }
  for (const { domain } of project.config.domains) {
    const problem = domainProblem(domain);
    if (problem) add(`${problem}: ${domain}`);
  }
  return errors;
}

export interface AdminApiKeysApi {
  /** Creates a key set; the answer holds the full keys, shown this once only. */
  create(data: ApiKeyCreate): Promise<NewApiKey>;
  /** Every key set, newest first (keys as their last four characters). */
  list(): Promise<ApiKey[]>;
  /** One key set (ApiKeyNotFound for an unknown id). */
  get(id: string): Promise<ApiKey>;
  /** Revokes a key set: its keys stop working at once. */
  revoke(id: string): Promise<ApiKey>;
}

/** API 2.8's e-mail templates: TSX sources (NotInServiceVersion on a 2.7 service). */
export interface AdminTsxEmailTemplatesApi {
  /** Every template: the built-in ones, then the project's own. */
  list(): Promise<TsxEmailTemplate[]>;
  /** One template by id, from the list (the service has no single read); AuthmwError when unknown. */
  get(id: string): Promise<TsxEmailTemplate>;
  /** A new template with the service's starter source; its id. RequiresCustomEmailServer on the shared e-mail server. */
  create(displayName: string): Promise<string>;
  /**
   * Replaces the source (and the theme: an id, false for none, null for the project's); the preview
   * HTML the service rendered. EmailRenderingError (nothing stored) for a source that does not render.
   */
  update(id: string, tsxSource: string, options?: { themeId?: string | false | null }): Promise<string>;
  /** Deletes the project's own template (the local service brings a built-in one back to its shipped source). */
  delete(id: string): Promise<void>;
}

/** API 2.8's e-mail themes: TSX sources (NotInServiceVersion on a 2.7 service). */
export interface AdminEmailThemesApi {
  list(): Promise<EmailThemeSummary[]>;
  /** One theme with its source (HttpStatusError 404 for an unknown id). */
  get(id: string): Promise<EmailTheme>;
  /** A new theme starting from the default one; its id. */
  create(displayName: string): Promise<string>;
  /** Replaces the source; EmailRenderingError (nothing stored) when it does not render. */
  update(id: string, tsxSource: string): Promise<void>;
}

export interface AdminEmailTemplatesApi {
  list(): Promise<EmailTemplate[]>;
  /** SchemaError for an unknown type. */
  get(type: EmailTemplateType): Promise<EmailTemplate>;
  /** Changes the subject and/or content; isDefault becomes false (invalid content: HttpStatusError 400). */
  update(type: EmailTemplateType, data: { subject?: string; content?: unknown }): Promise<EmailTemplate>;
  /** Back to the default (HttpStatusError 404 when it was not changed). */
  reset(type: EmailTemplateType): Promise<void>;
}

export interface AdminPermissionDefinitionsApi {
  list(): Promise<PermissionDefinition[]>;
  create(data: { id: string; description?: string; containedPermissionIds?: string[] }): Promise<PermissionDefinition>;
  update(
    id: string,
    data: { id?: string; description?: string; containedPermissionIds?: string[] },
  ): Promise<PermissionDefinition>;
  delete(id: string): Promise<void>;
}

/** A sign-up rule (API 2.8); see AdminSignUpRulesApi. `message` is for the project's staff only. */
export interface SignUpRule {
  condition: string | null;
  action: "allow" | "reject" | "restrict" | "log";
  enabled: boolean;
  priority: number;
  displayName: string | null;
  message: string | null;
}

/** The rules in the order they are tried (highest priority first, then by id) and the default. */
export interface SignUpRules {
  rules: Record<string, SignUpRule>;
  defaultAction: "allow" | "reject";
}

/** The config levels an override can change (API 2.8). */
export type ConfigLevel = "project" | "branch" | "environment";

/** What a 2.7 service answers to the config routes: a plain 404 (the config came with 2.8). */
export const CONFIG_NOT_IN_2_7 =
  "The service has no /internal/config: the project's config (and with it sign-up rules) came with " +
  "API 2.8, and this service answers as API 2.7. Use a 2.8 service (`authmw dev --api 2.8`).";

/**
 * Who may sign up (API 2.8): rules whose CEL `condition` (over `email`, `emailDomain`,
 * `authMethod`, `oauthProvider`, `countryCode`) allows, rejects, restricts or logs a sign-up.
 */
export interface AdminSignUpRulesApi {
  list(): Promise<SignUpRules>;
  /** Creates or replaces a rule (enabled unless `enabled: false`); a condition that does not parse: HttpStatusError 400. */
  set(id: string, rule: { condition: string; action: SignUpRule["action"] } & Partial<SignUpRule>): Promise<void>;
  delete(id: string): Promise<void>;
  /** `reject` makes the rules an allowlist. */
  setDefaultAction(action: "allow" | "reject"): Promise<void>;
}

function signUpRuleFromWire(wire: Wire): SignUpRule {
  return {
    condition: wire.condition ?? null,
    action: wire.action?.type ?? "allow",
    enabled: wire.enabled === true,
    priority: typeof wire.priority === "number" ? wire.priority : 0,
    displayName: wire.displayName ?? null,
    message: wire.action?.message ?? null,
  };
}

export interface AdminClientOptions extends Omit<TransportOptions, "accessType" | "publishableClientKey"> {
  /** A project owner's session on `internal`, used in place of the super secret admin key. */
  ownerSession?: TokenProvider | null;
}

/** Admin calls of one project. */
export class AdminClient {
  readonly transport: Transport;
  readonly apiKeys: AdminApiKeysApi;
  readonly emailTemplates: AdminEmailTemplatesApi;
  readonly tsxEmailTemplates: AdminTsxEmailTemplatesApi;
  readonly emailThemes: AdminEmailThemesApi;
  readonly permissionDefinitions: AdminPermissionDefinitionsApi;
  readonly signUpRules: AdminSignUpRulesApi;
  private readonly ownerSession: TokenProvider | null;

  constructor(options: AdminClientOptions) {
    if (!options.superSecretAdminKey && !options.ownerSession) {
      throw new AuthmwError(
        "An admin client needs the super secret admin key (superSecretAdminKey) or a project owner's session (ownerSession).",
      );
    }
    this.transport = new Transport({ ...options, accessType: "admin" });
    this.ownerSession = options.ownerSession ?? null;
    const call = this.call.bind(this);
    this.apiKeys = {
      async create(data) {
        const expiresAt = data.expiresAt instanceof Date ? data.expiresAt.getTime() : data.expiresAt;
        const body = {
          description: data.description,
          expires_at_millis: expiresAt,
          has_publishable_client_key: data.hasPublishableClientKey ?? true,
          has_secret_server_key: data.hasSecretServerKey ?? true,
          has_super_secret_admin_key: data.hasSuperSecretAdminKey ?? false,
        };
        return apiKeyFromWire(await call("POST", "/internal/api-keys", body));
      },
      async list() {
        return ((await call("GET", "/internal/api-keys")).items as Wire[]).map(apiKeyFromWire);
      },
      async get(id) {
        return apiKeyFromWire(await call("GET", `/internal/api-keys/${seg(id)}`));
      },
      async revoke(id) {
        return apiKeyFromWire(await call("PATCH", `/internal/api-keys/${seg(id)}`, { revoked: true }));
      },
    };
    const templateCall = this.templateCall.bind(this);
    this.emailTemplates = {
      async list() {
        return ((await templateCall("GET", "/email-templates")).items as Wire[]).map(emailTemplateFromWire);
      },
      async get(type) {
        return emailTemplateFromWire(await templateCall("GET", `/email-templates/${seg(type)}`));
      },
      async update(type, data) {
        if (data.content === null) throw new AuthmwError("content cannot be null: pass the editor document, or reset(type).");
        const body = { subject: data.subject, content: data.content };
        return emailTemplateFromWire(await templateCall("PATCH", `/email-templates/${seg(type)}`, body));
      },
      async reset(type) {
        await templateCall("DELETE", `/email-templates/${seg(type)}`);
      },
    };
    const sourcesCall = this.sourcesCall.bind(this);
    const TEMPLATES = "/internal/email-templates";
    const THEMES = "/internal/email-themes";
    const listTemplates = async () =>
      (((await sourcesCall(TEMPLATES, "GET", TEMPLATES)).templates ?? []) as Wire[]).map(tsxEmailTemplateFromWire);
    this.tsxEmailTemplates = {
      list: listTemplates,
      async get(id) {
        const found = (await listTemplates()).find((t) => t.id === id);
        if (!found) throw new AuthmwError(`The project has no e-mail template "${id}"; list() shows the ids.`);
        return found;
      },
      async create(displayName) {
        return String((await sourcesCall(TEMPLATES, "POST", TEMPLATES, { display_name: displayName })).id);
      },
      async update(id, tsxSource, options = {}) {
        const body: Wire = { tsx_source: tsxSource };
        if (options.themeId !== undefined) body.theme_id = options.themeId;
        return String((await sourcesCall(TEMPLATES, "PATCH", `${TEMPLATES}/${seg(id)}`, body)).rendered_html);
      },
      async delete(id) {
        await sourcesCall(TEMPLATES, "DELETE", `${TEMPLATES}/${seg(id)}`);
      },
    };
    this.emailThemes = {
      async list() {
        const themes = ((await sourcesCall(THEMES, "GET", THEMES)).themes ?? []) as Wire[];
        return themes.map((t) => ({ id: t.id, displayName: t.display_name }));
      },
      async get(id) {
        const w = await sourcesCall(THEMES, "GET", `${THEMES}/${seg(id)}`);
        return { id, displayName: w.display_name, tsxSource: w.tsx_source };
      },
      async create(displayName) {
        return String((await sourcesCall(THEMES, "POST", THEMES, { display_name: displayName })).id);
      },
      async update(id, tsxSource) {
        await sourcesCall(THEMES, "PATCH", `${THEMES}/${seg(id)}`, { tsx_source: tsxSource });
      },
    };
    this.permissionDefinitions = {
      async list() {
        return ((await call("GET", "/team-permission-definitions")).items as Wire[]).map(permissionDefinitionFromWire);
      },
      async create(data) {
        const body = { id: data.id, description: data.description, contained_permission_ids: data.containedPermissionIds };
        return permissionDefinitionFromWire(await call("POST", "/team-permission-definitions", body));
      },
      async update(id, data) {
        const body = { id: data.id, description: data.description, contained_permission_ids: data.containedPermissionIds };
        return permissionDefinitionFromWire(await call("PATCH", `/team-permission-definitions/${seg(id)}`, body));
      },
      async delete(id) {
        await call("DELETE", `/team-permission-definitions/${seg(id)}`);
      },
    };
    const updateConfig = this.updateConfig.bind(this);
    const getConfig = this.getConfig.bind(this);
    this.signUpRules = {
      async list() {
        const auth = ((await getConfig()).auth ?? {}) as Wire;
        const rules: Record<string, SignUpRule> = {};
        for (const [id, rule] of Object.entries((auth.signUpRules ?? {}) as Record<string, Wire>)) {
          rules[id] = signUpRuleFromWire(rule);
        }
        return { rules, defaultAction: auth.signUpRulesDefaultAction === "reject" ? "reject" : "allow" };
      },
      async set(id, rule) {
        const wire: Wire = {
          enabled: rule.enabled ?? true,
          priority: rule.priority ?? 0,
          condition: rule.condition,
          action: rule.message == null ? { type: rule.action } : { type: rule.action, message: rule.message },
        };
        if (rule.displayName != null) wire.displayName = rule.displayName;
        await updateConfig({ [`auth.signUpRules.${id}`]: wire });
      },
      async delete(id) {
        await updateConfig({ [`auth.signUpRules.${id}`]: null });
      },
      async setDefaultAction(action) {
        if (action !== "allow" && action !== "reject") {
          throw new AuthmwError(`the default action is "allow" or "reject", not ${JSON.stringify(action)}`);
        }
        await updateConfig({ "auth.signUpRulesDefaultAction": action });
      },
    };
  }

  /** A config call; a plain 404 (a 2.7 service) becomes NotInServiceVersion. */
  private async configCall(method: HttpMethod, path: string, body?: unknown): Promise<Wire> {
    try {
      return await this.call(method, path, body);
    } catch (error) {
      if (isPlain404(error)) throw new NotInServiceVersion(CONFIG_NOT_IN_2_7, { method, url: error.url });
      throw error;
    }
  }

  /**
   * Changes settings the API 2.8 way: a config override of dotted keys of the 2.8 config, e.g.
   * `{ "onboarding.requireEmailVerification": true }` (null puts a key's default back). A key the
   * service does not know is refused naming it.
   */
  async updateConfig(values: Record<string, unknown>, options: { level?: ConfigLevel } = {}): Promise<void> {
    const level = options.level ?? "environment";
    await this.configCall("PATCH", `/internal/config/override/${seg(level)}`, {
      config_override_string: JSON.stringify(values),
    });
  }

  /** The project's config in the 2.8 shape (nested keys), as the service renders it. */
  async getConfig(): Promise<Record<string, unknown>> {
    const answer = await this.configCall("GET", "/internal/config");
    let config: unknown = null;
    try {
      config = typeof answer?.config_string === "string" ? JSON.parse(answer.config_string) : null;
    } catch {
      config = null;
    }
    if (config === null || typeof config !== "object" || Array.isArray(config)) {
      throw new InvalidServerResponse("the config answer has no config_string holding a JSON object", 200, JSON.stringify(answer));
    }
    return config as Record<string, unknown>;
  }

  private async call(method: HttpMethod, path: string, body?: unknown): Promise<Wire> {
    const request: ApiRequest = { method, path, body, adminSession: this.ownerSession };
    return (await this.transport.request<Wire>(request)).body;
  }

  /**
   * An e-mail template call; a plain 404 becomes NotInServiceVersion when the list itself is
   * missing (a 2.7 service also answers 404 to resetting a template that was never changed).
   */
  private async templateCall(method: HttpMethod, path: string, body?: unknown): Promise<Wire> {
    try {
      return await this.call(method, path, body);
    } catch (error) {
      if (!isPlain404(error)) throw error;
      if (path !== "/email-templates") {
        try {
          await this.call("GET", "/email-templates");
        } catch (probe) {
          if (!isPlain404(probe)) throw error;
          throw new NotInServiceVersion(GONE_IN_2_8, { method, url: error.url });
        }
        throw error;
      }
      throw new NotInServiceVersion(GONE_IN_2_8, { method, url: error.url });
    }
  }

  /**
   * A 2.8 template or theme call; a plain 404 becomes NotInServiceVersion when the list itself is
   * missing (a 2.8 service also answers 404 to an unknown id).
   */
  private async sourcesCall(listPath: string, method: HttpMethod, path: string, body?: unknown): Promise<Wire> {
    try {
      return await this.call(method, path, body);
    } catch (error) {
      if (!isPlain404(error)) throw error;
      if (path !== listPath) {
        try {
          await this.call("GET", listPath);
        } catch (probe) {
          if (!isPlain404(probe)) throw error;
          throw new NotInServiceVersion(SOURCES_NEED_2_8(listPath), { method, url: error.url });
        }
        throw error;
      }
      throw new NotInServiceVersion(SOURCES_NEED_2_8(listPath), { method, url: error.url });
    }
  }

  /** The path of the admin project view this client's service answered (null: not called yet). */
  private projectPath: string | null = null;

  /** The admin project call at the path of the service's API version (see PROJECT_PATH_2_8). */
  private async projectCall(method: HttpMethod, body?: unknown): Promise<Wire> {
    if (this.projectPath !== null) return this.call(method, this.projectPath, body);
    let answer: Wire;
    try {
      answer = await this.call(method, PROJECT_PATH_2_8, body);
    } catch (error) {
      if (!isPlain404(error)) throw error;
      answer = await this.call(method, PROJECT_PATH_2_7, body);
      this.projectPath = PROJECT_PATH_2_7;
      return answer;
    }
    this.projectPath = PROJECT_PATH_2_8;
    return answer;
  }

  /** The project with every setting (the admin view). */
  async getProject(): Promise<AdminProject> {
    return adminProjectFromWire(await this.projectCall("GET"));
  }

  /**
   * Changes the project; `config` changes only the settings it names. On API 2.8 a provider
   * with `enabled: false` is left out of `oauthProviders` (2.8 lists enabled providers only).
   */
  async updateProject(update: AdminProjectUpdate): Promise<AdminProject> {
    let body = adminProjectUpdateToWire(update);
    if (this.projectPath === null) await this.projectCall("GET"); // which version: the body differs
    if (this.projectPath === PROJECT_PATH_2_8) body = projectUpdateFor28(body);
    return adminProjectFromWire(await this.projectCall("PATCH", body));
  }

  /** Deletes the project and all its data. There is no undo. */
  async deleteProject(): Promise<void> {
    await this.projectCall("DELETE");
  }

  /** What stands between the project and production mode (service-api C5); [] when ready. */
  async getProductionModeErrors(options: { dashboardUrl?: string } = {}): Promise<ProductionModeError[]> {
    return getProductionModeErrors(await this.getProject(), options);
  }

  /** Sends a test e-mail through an SMTP server; success false with errorMessage when it fails. */
  async sendTestEmail(options: { recipientEmail: string; emailConfig: EmailConfig }): Promise<TestEmailResult> {
    const { host, port, username, password, senderName, senderEmail } = options.emailConfig;
    const body = {
      recipient_email: options.recipientEmail,
      email_config: { host, port, username, password, sender_name: senderName, sender_email: senderEmail },
    };
    const answer = await this.call("POST", "/internal/send-test-email", body);
    return { success: Boolean(answer.success), errorMessage: answer.error_message ?? null };
  }

  /** User counts, daily sign-ups and activity, recent users, sign-in methods. */
  async getMetrics(): Promise<Metrics> {
    return metricsFromWire(await this.call("GET", "/internal/metrics"));
  }

  /** A token for the webhook provider's app portal. */
  async createSvixToken(): Promise<string> {
    const answer = await this.call("POST", "/webhooks/svix-token", {});
    if (typeof answer?.token !== "string" || !answer.token) {
      throw new InvalidServerResponse("the webhook token answer has no token", 201, JSON.stringify(answer));
    }
    return answer.token;
  }
}

export function createAdminClient(options: AdminClientOptions): AdminClient {
  return new AdminClient(options);
}

/** What ownedProjects needs of a client signed in on `internal` (an AuthClient has both). */
export interface OwnerClient {
  readonly transport: Transport;
  readonly session: TokenProvider;
}

export interface OwnedProjectsApi {
  /** The user's projects, newest first. */
  list(): Promise<AdminProject[]>;
  /**
   * Creates a project owned by the user (displayName required). API 2.8 needs `ownerTeamId`, a
   * team of `internal` the user is a member of (every member manages the project); 2.7 has no
   * owner teams.
   */
  create(data: AdminProjectUpdate & { displayName: string; ownerTeamId?: string }): Promise<AdminProject>;
  /** An admin client for one of the user's projects, over the user's session. */
  adminClient(projectId: string): AdminClient;
}

/** Projects owned by the user of `client` (an AuthClient of the `internal` project). */
export function ownedProjects(client: OwnerClient, options: Omit<AdminClientOptions, "projectId" | "baseUrl"> = {}): OwnedProjectsApi {
  const request = async (method: HttpMethod, body?: unknown) =>
    (await client.transport.request<Wire>({ method, path: "/internal/projects", body, session: client.session })).body;
  return {
    async list() {
      return ((await request("GET")).items as Wire[]).map(adminProjectFromWire);
    },
    async create(data) {
      if (!data.displayName) throw new AuthmwError("Creating a project needs a displayName.");
      const { ownerTeamId, ...update } = data;
      const body = { ...adminProjectUpdateToWire(update), ...(ownerTeamId ? { owner_team_id: ownerTeamId } : {}) };
      return adminProjectFromWire(await request("POST", body));
    },
    adminClient(projectId) {
      return new AdminClient({
        ...options,
        projectId,
        baseUrl: client.transport.baseUrl,
        ownerSession: client.session,
      });
    },
  };
}
