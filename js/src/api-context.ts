import type { AsyncCache } from "./cache.js";
import type {
  ContactChannel,
  CurrentUser,
  Project,
  ReceivedTeamInvitation,
  Team,
  TeamInvitation,
  TeamMemberProfile,
  TeamPermission,
  ProjectPermission,
} from "./models.js";
import type { SessionStore } from "./store.js";
import type { ApiRequest, ApiResponse } from "./transport.js";
import type { AuthUrls } from "./urls.js";

/** The cached values of a client (service-api C4); cleared when the session changes. */
export interface AuthCaches {
  project: AsyncCache<[], Project>;
  /** Teams of the signed-in user ([] when signed out). */
  teams: AsyncCache<[], Team[]>;
  contactChannels: AsyncCache<[], ContactChannel[]>;
  /** The signed-in user's permissions in a team, contained ones included. */
  teamPermissions: AsyncCache<[teamId: string], TeamPermission[]>;
  teamMemberProfiles: AsyncCache<[teamId: string], TeamMemberProfile[]>;
  teamInvitations: AsyncCache<[teamId: string], TeamInvitation[]>;
  /** Invitations the signed-in user received (API 2.8; [] when signed out). */
  receivedTeamInvitations: AsyncCache<[], ReceivedTeamInvitation[]>;
  /** The signed-in user's project permissions (API 2.8), contained ones included. */
  projectPermissions: AsyncCache<[], ProjectPermission[]>;
}

/** What the modules loaded on first call (flows, teams, contact channels, OAuth) share with the client. */
export interface ApiContext {
  request<T = unknown>(req: ApiRequest): Promise<ApiResponse<T>>;
  readonly session: SessionStore;
  readonly urls: AuthUrls;
  readonly caches: AuthCaches;
  /**
   * Loads /users/me into the user state again after a change that shows in the user, not
   * sharing a load that started before the change.
   */
  refreshUser(): Promise<CurrentUser | null>;
  /** Keeps the tokens of a new session and loads its user. */
  storeSignIn(tokens: { accessToken: string; refreshToken: string }): Promise<CurrentUser | null>;
}

/** `/path?query` with the undefined values left out. */
export function withQuery(path: string, query: Record<string, string | boolean | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

export const seg = encodeURIComponent;
