// Teams of the signed-in user (service-api A5.6, flow 6.9), as four namespaces like the Python
// client's: teams, teamMemberProfiles, teamPermissions, teamInvitations.
import { seg, withQuery, type ApiContext } from "./api-context.js";
import { SchemaError, TeamMembershipNotFound, TeamNotFound } from "./errors.js";
import { HttpStatusError, NotInServiceVersion } from "./http-errors.js";
import {
  MEMBER_PROFILE_FIELDS,
  TEAM_FIELDS,
  receivedTeamInvitationFromWire,
  teamInvitationFromWire,
  teamMemberProfileFromWire,
} from "./team-models.js";
import {
  teamFromWire,
  toWire,
  type ReceivedTeamInvitation,
  type Team,
  type TeamCreate,
  type TeamInvitation,
  type TeamInvitationDetails,
  type TeamMemberProfile,
  type TeamMemberProfileUpdate,
  type TeamPermission,
  type TeamUpdate,
} from "./models.js";
import type { HttpMethod } from "./transport.js";
import { callbackUrl } from "./return-to.js";

type Wire = Record<string, any>;

export interface TeamsApi {
  /** The user's teams, oldest first ([] when signed out, without a call). */
  list(): Promise<Team[]>;
  /** A team the user belongs to; null when there is no such team (TeamMembershipNotFound for others' teams). */
  get(teamId: string): Promise<Team | null>;
  /** Creates a team with the user as creator; the project must allow client team creation (else HttpStatusError 403). */
  create(data: TeamCreate): Promise<Team>;
  /** Needs $update_team (TeamPermissionRequired). */
  update(teamId: string, data: TeamUpdate): Promise<Team>;
  /** Needs $delete_team. */
  delete(teamId: string): Promise<void>;
  /** Leaves the team (DELETE /team-memberships/{team}/me). */
  leave(teamId: string): Promise<void>;
  /** Removes another member (needs $remove_members; TeamMembershipNotFound when not a member). */
  removeMember(teamId: string, userId: string): Promise<void>;
}

export interface TeamMemberProfilesApi {
  /** Profiles of the team's members (others than yourself need $read_members). */
  list(teamId: string): Promise<TeamMemberProfile[]>;
  /** One member's profile (`userId` defaults to "me"); null when the user is not a member. */
  get(teamId: string, userId?: string): Promise<TeamMemberProfile | null>;
  /** Edits your own profile in the team. */
  update(teamId: string, update: TeamMemberProfileUpdate): Promise<TeamMemberProfile>;
}

export interface TeamPermissionsApi {
  /** Your permissions in the team, contained ones included unless `recursive: false`. */
  list(teamId: string, options?: { recursive?: boolean }): Promise<TeamPermission[]>;
  /** Whether you hold `permissionId` in the team (directly or contained). */
  has(teamId: string, permissionId: string): Promise<boolean>;
}

export interface InviteOptions {
  teamId: string;
  email: string;
  /** Absolute URL the e-mail links to; default {handler}/team-invitation on this origin. */
  callbackUrl?: string;
}

export interface TeamInvitationsApi {
  /** Sends an invitation e-mail (needs $invite_members); returns the invitation id. */
  send(options: InviteOptions): Promise<{ id: string }>;
  /** Pending invitations of the team (needs $read_members and $invite_members). */
  list(teamId: string): Promise<TeamInvitation[]>;
  /** Revokes an invitation (needs $remove_members). */
  revoke(teamId: string, invitationId: string): Promise<void>;
  /** Checks a code without a user and without using it (VerificationCodeError subclasses). */
  checkCode(code: string): Promise<void>;
  /** The team a code leads to (needs a signed-in user; does not use the code). */
  getDetails(code: string): Promise<TeamInvitationDetails>;
  /** Joins the team of the invitation (needs a signed-in user; uses the code). */
  accept(code: string): Promise<void>;
  /**
   * The pending invitations addressed to one of your verified e-mail addresses, with each team's
   * name (API 2.8); [] when signed out (without a call). NotInServiceVersion from a 2.7 service.
   */
  listReceived(): Promise<ReceivedTeamInvitation[]>;
  /**
   * Joins the team of a received invitation (API 2.8): you need a verified e-mail equal to its
   * recipient, otherwise (and for an unknown, used or expired one) VerificationCodeNotFound.
   * NotInServiceVersion from a 2.7 service.
   */
  acceptById(invitationId: string): Promise<void>;
}

/** What a 2.7 service answers to the received-invitation calls (they are API 2.8). */
export const RECEIVED_NEED_2_8 =
  "Listing the invitations a user received and accepting one by id are API 2.8 " +
  "(GET /team-invitations?user_id=..., POST /team-invitations/{id}/accept); this service answers as API 2.7. " +
  "Accept with the code of the invitation link instead (teamInvitations.accept(code)).";

const teamPath = (teamId: string) => `/teams/${seg(teamId)}`;
const profilePath = (teamId: string, userId: string) => `/team-member-profiles/${seg(teamId)}/${seg(userId)}`;

function jsonCaller(ctx: ApiContext) {
  return async <T = Wire>(method: HttpMethod, path: string, body?: unknown) =>
    (await ctx.request<T>({ method, path, body, session: ctx.session })).body;
}

async function nullWhen<T>(errorClass: abstract new (...args: never[]) => Error, run: () => Promise<T>): Promise<T | null> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof errorClass) return null;
    throw error;
  }
}

export function createTeamsApi(ctx: ApiContext): TeamsApi {
  const json = jsonCaller(ctx);
  // The user carries its selected team, which may be the one that changed.
  const refreshUser = () => ctx.refreshUser().then(
    () => {},
    () => {},
  );
  const changed = (teamId?: string) => {
    ctx.caches.teams.invalidate();
    if (teamId) {
      ctx.caches.teamPermissions.invalidate(teamId);
      ctx.caches.teamMemberProfiles.invalidate(teamId);
      ctx.caches.teamInvitations.invalidate(teamId);
    }
  };
  return {
    async list() {
      if (!ctx.session.getState().refreshToken) return [];
      return (await json<{ items: Wire[] }>("GET", "/teams?user_id=me")).items.map(teamFromWire);
    },
    get: (teamId) => nullWhen(TeamNotFound, async () => teamFromWire(await json("GET", teamPath(teamId)))),
    async create(data) {
      const team = teamFromWire(await json("POST", "/teams", { ...toWire({ ...data }, TEAM_FIELDS), creator_user_id: "me" }));
      changed();
      return team;
    },
    async update(teamId, data) {
      const team = teamFromWire(await json("PATCH", teamPath(teamId), toWire({ ...data }, TEAM_FIELDS)));
      changed();
      await refreshUser();
      return team;
    },
    async delete(teamId) {
      await json("DELETE", teamPath(teamId));
      changed(teamId);
      await refreshUser();
    },
    async leave(teamId) {
      await json("DELETE", `/team-memberships/${seg(teamId)}/me`);
      changed(teamId);
      await refreshUser();
    },
    async removeMember(teamId, userId) {
      await json("DELETE", `/team-memberships/${seg(teamId)}/${seg(userId)}`);
      ctx.caches.teamMemberProfiles.invalidate(teamId);
    },
  };
}

export function createTeamMemberProfilesApi(ctx: ApiContext): TeamMemberProfilesApi {
  const json = jsonCaller(ctx);
  return {
    async list(teamId) {
      const body = await json<{ items: Wire[] }>("GET", withQuery("/team-member-profiles", { team_id: teamId }));
      return body.items.map(teamMemberProfileFromWire);
    },
    get: (teamId, userId = "me") =>
      nullWhen(TeamMembershipNotFound, async () => teamMemberProfileFromWire(await json("GET", profilePath(teamId, userId)))),
    async update(teamId, update) {
      const body = await json("PATCH", profilePath(teamId, "me"), toWire({ ...update }, MEMBER_PROFILE_FIELDS));
      ctx.caches.teamMemberProfiles.invalidate(teamId);
      return teamMemberProfileFromWire(body);
    },
  };
}

export function createTeamPermissionsApi(ctx: ApiContext): TeamPermissionsApi {
  const json = jsonCaller(ctx);
  const list = async (teamId: string, { recursive = true }: { recursive?: boolean } = {}) => {
    const path = withQuery("/team-permissions", { team_id: teamId, user_id: "me", recursive });
    return (await json<{ items: Wire[] }>("GET", path)).items.map((p): TeamPermission => ({ id: p.id }));
  };
  return {
    list,
    has: async (teamId, permissionId) => (await list(teamId)).some((p) => p.id === permissionId),
  };
}

export function createTeamInvitationsApi(ctx: ApiContext): TeamInvitationsApi {
  const json = jsonCaller(ctx);
  return {
    async send({ teamId, email, callbackUrl: given }) {
      const callback_url = callbackUrl("teamInvitations.send", ctx.urls.teamInvitation, given);
      const body = await json("POST", "/team-invitations/send-code", { email, team_id: teamId, callback_url });
      ctx.caches.teamInvitations.invalidate(teamId);
      return { id: body.id };
    },
    async list(teamId) {
      const body = await json<{ items: Wire[] }>("GET", withQuery("/team-invitations", { team_id: teamId }));
      return body.items.map(teamInvitationFromWire);
    },
    async revoke(teamId, invitationId) {
      await json("DELETE", withQuery(`/team-invitations/${seg(invitationId)}`, { team_id: teamId }));
      ctx.caches.teamInvitations.invalidate(teamId);
    },
    async checkCode(code) {
      // No user needed: sent without the session, so it works signed out.
      await ctx.request({ method: "POST", path: "/team-invitations/accept/check-code", body: { code } });
    },
    async getDetails(code) {
      const body = await json("POST", "/team-invitations/accept/details", { code });
      return { teamId: body.team_id, teamDisplayName: body.team_display_name };
    },
    async accept(code) {
      await json("POST", "/team-invitations/accept", { code });
      ctx.caches.teams.invalidate();
      ctx.caches.receivedTeamInvitations.invalidate();
    },
    async listReceived() {
      if (!ctx.session.getState().refreshToken) return [];
      const path = withQuery("/team-invitations", { user_id: "me" });
      try {
        return (await json<{ items: Wire[] }>("GET", path)).items.map(receivedTeamInvitationFromWire);
      } catch (error) {
        // 2.7 knows only ?team_id= and refuses the query with a schema error.
        if (error instanceof SchemaError) throw new NotInServiceVersion(RECEIVED_NEED_2_8, { method: "GET", url: path, status: 400 });
        throw error;
      }
    },
    async acceptById(invitationId) {
      const path = withQuery(`/team-invitations/${seg(invitationId)}/accept`, { user_id: "me" });
      try {
        await json("POST", path, {});
      } catch (error) {
        if (error instanceof HttpStatusError && error.status === 404) throw new NotInServiceVersion(RECEIVED_NEED_2_8, { method: "POST", url: path });
        throw error;
      }
      ctx.caches.teams.invalidate();
      ctx.caches.receivedTeamInvitations.invalidate();
    },
  };
}
