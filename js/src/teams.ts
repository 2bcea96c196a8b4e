// Teams of the signed-in user: teams, member profiles, permissions, invitations (contract 5.6, flow 6.9).
import { seg, withQuery, type ApiContext } from "./api-context";
import {
  MEMBER_PROFILE_FIELDS,
  TEAM_FIELDS,
  teamFromWire,
  teamInvitationFromWire,
  teamMemberProfileFromWire,
  toWire,
  type Team,
  type TeamCreate,
  type TeamInvitation,
  type TeamInvitationDetails,
  type TeamMemberProfile,
  type TeamMemberProfileUpdate,
  type TeamPermission,
  type TeamUpdate,
} from "./models";
import { callbackUrl } from "./urls";

type Wire = Record<string, any>;

export interface InviteOptions {
  teamId: string;
  email: string;
  /** Absolute URL the e-mail links to; default {handler}/team-invitation on this origin. */
  callbackUrl?: string;
}

export interface TeamsApi {
  /** The user's teams, oldest first ([] when signed out). */
  list(): Promise<Team[]>;
  /** A team the user belongs to (TeamMembershipNotFound otherwise). */
  get(teamId: string): Promise<Team>;
  /** Creates a team with the user as creator; the project must allow client team creation. */
  create(data: TeamCreate): Promise<Team>;
  /** Needs $update_team (TeamPermissionRequired). */
  update(teamId: string, data: TeamUpdate): Promise<Team>;
  /** Needs $delete_team. */
  delete(teamId: string): Promise<void>;
  /** Leaves the team (DELETE /team-memberships/{team}/me). */
  leave(teamId: string): Promise<void>;

  /** Profiles of the team's members (needs $read_members for others than yourself). */
  listMemberProfiles(teamId: string): Promise<TeamMemberProfile[]>;
  /** One member's profile; `userId` defaults to "me". */
  getMemberProfile(teamId: string, userId?: string): Promise<TeamMemberProfile>;
  /** Edits your own profile in the team. */
  updateMyProfile(teamId: string, update: TeamMemberProfileUpdate): Promise<TeamMemberProfile>;

  /** Your permissions in the team, contained ones included (recursive=true, as the SDK). */
  listPermissions(teamId: string, options?: { recursive?: boolean }): Promise<TeamPermission[]>;

  /** Sends an invitation e-mail (needs $invite_members); returns the invitation id. */
  invite(options: InviteOptions): Promise<{ id: string }>;
  /** Pending invitations of the team (needs $read_members and $invite_members). */
  listInvitations(teamId: string): Promise<TeamInvitation[]>;
  /** Revokes an invitation (needs $remove_members). */
  revokeInvitation(teamId: string, invitationId: string): Promise<void>;
  /** Checks an invitation code without a user and without using it (VerificationCodeError subclasses). */
  checkInvitationCode(code: string): Promise<void>;
  /** The team an invitation code leads to (needs a signed-in user; does not use the code). */
  getInvitationDetails(code: string): Promise<TeamInvitationDetails>;
  /** Joins the team of the invitation (needs a signed-in user; uses the code). */
  acceptInvitation(code: string): Promise<void>;
}

export function createTeamsApi(ctx: ApiContext): TeamsApi {
  const session = ctx.session;
  const json = async <T = Wire>(method: "GET" | "POST" | "PATCH" | "DELETE", path: string, body?: unknown) =>
    (await ctx.request<T>({ method, path, body, session })).body;
  const teamsChanged = (teamId?: string) => {
    ctx.caches.teams.invalidate();
    if (teamId) {
      ctx.caches.teamPermissions.invalidate(teamId);
      ctx.caches.teamMemberProfiles.invalidate(teamId);
      ctx.caches.teamInvitations.invalidate(teamId);
    }
  };
  // The user carries its selected team, which may be the one that changed.
  const reloadUser = () => ctx.reloadUser().then(
    () => {},
    () => {},
  );

  return {
    async list() {
      if (!session.getState().refreshToken) return [];
      return (await json<{ items: Wire[] }>("GET", "/teams?user_id=me")).items.map(teamFromWire);
    },
    async get(teamId) {
      return teamFromWire(await json("GET", `/teams/${seg(teamId)}`));
    },
    async create(data) {
      const team = teamFromWire(await json("POST", "/teams", { ...toWire({ ...data }, TEAM_FIELDS), creator_user_id: "me" }));
      teamsChanged();
      return team;
    },
    async update(teamId, data) {
      const team = teamFromWire(await json("PATCH", `/teams/${seg(teamId)}`, toWire({ ...data }, TEAM_FIELDS)));
      teamsChanged();
      await reloadUser();
      return team;
    },
    async delete(teamId) {
      await json("DELETE", `/teams/${seg(teamId)}`);
      teamsChanged(teamId);
      await reloadUser();
    },
    async leave(teamId) {
      await json("DELETE", `/team-memberships/${seg(teamId)}/me`);
      teamsChanged(teamId);
      await reloadUser();
    },

    async listMemberProfiles(teamId) {
      const body = await json<{ items: Wire[] }>("GET", withQuery("/team-member-profiles", { team_id: teamId }));
      return body.items.map(teamMemberProfileFromWire);
    },
    async getMemberProfile(teamId, userId = "me") {
      return teamMemberProfileFromWire(await json("GET", `/team-member-profiles/${seg(teamId)}/${seg(userId)}`));
    },
    async updateMyProfile(teamId, update) {
      const body = await json("PATCH", `/team-member-profiles/${seg(teamId)}/me`, toWire({ ...update }, MEMBER_PROFILE_FIELDS));
      ctx.caches.teamMemberProfiles.invalidate(teamId);
      return teamMemberProfileFromWire(body);
    },

    async listPermissions(teamId, { recursive = true } = {}) {
      const path = withQuery("/team-permissions", { team_id: teamId, user_id: "me", recursive });
      return (await json<{ items: Wire[] }>("GET", path)).items.map((p) => ({ id: p.id }));
    },

    async invite({ teamId, email, callbackUrl: given }) {
      const callback_url = callbackUrl("invite", ctx.urls.teamInvitation, given);
      const body = await json("POST", "/team-invitations/send-code", { email, team_id: teamId, callback_url });
      ctx.caches.teamInvitations.invalidate(teamId);
      return { id: body.id };
    },
    async listInvitations(teamId) {
      const body = await json<{ items: Wire[] }>("GET", withQuery("/team-invitations", { team_id: teamId }));
      return body.items.map(teamInvitationFromWire);
    },
    async revokeInvitation(teamId, invitationId) {
      await json("DELETE", withQuery(`/team-invitations/${seg(invitationId)}`, { team_id: teamId }));
      ctx.caches.teamInvitations.invalidate(teamId);
    },
    async checkInvitationCode(code) {
      await ctx.request({ method: "POST", path: "/team-invitations/accept/check-code", body: { code } });
    },
    async getInvitationDetails(code) {
      const body = await json("POST", "/team-invitations/accept/details", { code });
      return { teamId: body.team_id, teamDisplayName: body.team_display_name };
    },
    async acceptInvitation(code) {
      await json("POST", "/team-invitations/accept", { code });
      ctx.caches.teams.invalidate();
    },
  };
}
