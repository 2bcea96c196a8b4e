// API keys of a user and of a team (API 2.8, service-api A8): what a person makes in account settings
// to let a script or an integration call the app's back end as them (or as their team). The
// Python models carry the same names (ProjectApiKey, NewProjectApiKey). A 2.7 service has no such
// routes, and a project that has not turned them on answers a plain 400: list() then answers null,
// so a page can leave its section out.
import type { ApiContext } from "./api-context.js";
import { seg, withQuery } from "./api-context.js";
import { HttpStatusError } from "./errors.js";
import type { HttpMethod } from "./transport.js";
import type { Wire } from "./models.js";

/** A user's or a team's API key as listed: its last four characters only. */
export interface ProjectApiKey {
  id: string;
  type: "user" | "team";
  /** The user's id (user keys) or the team's (team keys). */
  ownerId: string;
  description: string;
  createdAt: Date;
  /** null: never expires. */
  expiresAt: Date | null;
  /** Set once the key was revoked. */
  revokedAt: Date | null;
  /** A public key (`pk_`) is meant to be seen; a secret one (`sk_`) is not. */
  isPublic: boolean;
  /** The key's last four characters, to tell keys apart. */
  lastFour: string;
}

/** A key just made, with its value: the only time it is shown. */
export interface NewProjectApiKey extends ProjectApiKey {
  value: string;
}

export interface ProjectApiKeyCreate {
  /** What the key is for ("CI deploys"); shown in the list. */
  description: string;
  /** When it stops working; null or absent: never. */
  expiresAt?: Date | null;
}

export interface UserApiKeysApi {
  /** The signed-in user's keys, newest first, revoked and expired ones included; null when the service or the project has none. */
  list(): Promise<ProjectApiKey[] | null>;
  /** Makes a key for the signed-in user; its value is in the answer only. */
  create(data: ProjectApiKeyCreate): Promise<NewProjectApiKey>;
  /** Revokes a key: it stops working at once (a second revoke keeps the first time). */
  revoke(keyId: string): Promise<ProjectApiKey>;
}

export interface TeamApiKeysApi {
  /**
   * A team's keys; needs the team permission `$manage_api_keys` (without it the service answers
   * ApiKeyNotFound). null when the service or the project has none.
   */
  list(teamId: string): Promise<ProjectApiKey[] | null>;
  create(teamId: string, data: ProjectApiKeyCreate): Promise<NewProjectApiKey>;
  revoke(teamId: string, keyId: string): Promise<ProjectApiKey>;
}

const date = (millis: unknown) => (typeof millis === "number" ? new Date(millis) : null);

export function projectApiKeyFromWire(w: Wire): ProjectApiKey {
  const value = w.value;
  return {
    id: w.id,
    type: w.type === "team" ? "team" : "user",
    ownerId: w.type === "team" ? w.team_id : w.user_id,
    description: w.description ?? "",
    createdAt: new Date(w.created_at_millis),
    expiresAt: date(w.expires_at_millis),
    revokedAt: date(w.manually_revoked_at_millis),
    isPublic: Boolean(w.is_public),
    lastFour: typeof value === "string" ? value.slice(-4) : String(value?.last_four ?? ""),
  };
}

const createBody = (data: ProjectApiKeyCreate) => ({
  description: data.description,
  expires_at_millis: data.expiresAt ? data.expiresAt.getTime() : null,
});

/** 404/405 (a 2.7 service) or the plain 400 of a project without such keys: none here. */
const noKeys = (error: unknown) => error instanceof HttpStatusError && [400, 404, 405].includes(error.status);

/** The calls of one kind of key, by owner (a user id or "me", a team id). */
function keysOf(ctx: ApiContext, kind: "user" | "team"): TeamApiKeysApi {
  const base = `/${kind}-api-keys`;
  const owner = (id: string) => ({ [`${kind}_id`]: id });
  const call = async (method: HttpMethod, path: string, body?: unknown) =>
    (await ctx.request<Wire>({ method, path, body, session: ctx.session })).body;
  return {
    async list(ownerId) {
      try {
        return ((await call("GET", withQuery(base, owner(ownerId)))).items as Wire[]).map(projectApiKeyFromWire);
      } catch (error) {
        if (noKeys(error)) return null;
        throw error;
      }
    },
    async create(ownerId, data) {
      const wire = await call("POST", base, { ...owner(ownerId), ...createBody(data) });
      return { ...projectApiKeyFromWire(wire), value: wire.value };
    },
    async revoke(ownerId, keyId) {
      // Team keys name their team on every call; a user key is the caller's own.
      const path = `${base}/${seg(keyId)}`;
      return projectApiKeyFromWire(await call("PATCH", kind === "team" ? withQuery(path, owner(ownerId)) : path, { revoked: true }));
    },
  };
}

export function createUserApiKeysApi(ctx: ApiContext): UserApiKeysApi {
  const keys = keysOf(ctx, "user");
  return {
    list: async () => (ctx.session.getState().refreshToken ? keys.list("me") : []),
    create: (data) => keys.create("me", data),
    revoke: (keyId) => keys.revoke("me", keyId),
  };
}

export function createTeamApiKeysApi(ctx: ApiContext): TeamApiKeysApi {
  return keysOf(ctx, "team");
}
