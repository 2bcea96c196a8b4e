// The wire converters of teams, member profiles, invitations and contact channels, apart from
// models.ts: they load with the teams and contact-channel APIs, not with the first page.
import type { ContactChannel, ReceivedTeamInvitation, TeamInvitation, TeamMemberProfile, Wire } from "./models.js";

export const teamMemberProfileFromWire = (w: Wire): TeamMemberProfile => ({
  teamId: w.team_id,
  userId: w.user_id,
  displayName: w.display_name ?? null,
  profileImageUrl: w.profile_image_url ?? null,
});

export const teamInvitationFromWire = (w: Wire): TeamInvitation => ({
  id: w.id,
  teamId: w.team_id,
  recipientEmail: w.recipient_email,
  expiresAt: new Date(w.expires_at_millis),
});

export const receivedTeamInvitationFromWire = (w: Wire): ReceivedTeamInvitation => ({
  ...teamInvitationFromWire(w),
  teamDisplayName: w.team_display_name ?? "",
});

export const contactChannelFromWire = (w: Wire): ContactChannel => ({
  id: w.id,
  value: w.value,
  type: w.type,
  isVerified: Boolean(w.is_verified),
  isPrimary: Boolean(w.is_primary),
  usedForAuth: Boolean(w.used_for_auth),
});

export const TEAM_FIELDS = {
  displayName: "display_name",
  profileImageUrl: "profile_image_url",
  clientMetadata: "client_metadata",
};

export const CONTACT_CHANNEL_FIELDS = {
  value: "value",
  type: "type",
  usedForAuth: "used_for_auth",
  isPrimary: "is_primary",
};

export const MEMBER_PROFILE_FIELDS = { displayName: "display_name", profileImageUrl: "profile_image_url" };
