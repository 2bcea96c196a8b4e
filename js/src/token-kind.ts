// The kind of an access token (API 2.8 signs three: a normal user's, a restricted user's, an
// anonymous user's), from the table authmw/token_kinds.json that the Python verifier reads too.
// The browser does not verify tokens (the service does on every call); the kind only decides
// whether the session is shown to the app and whether requests ask the service to accept it.
import { decodeJwtClaims } from "./jwt.js";
import { TOKEN_KINDS } from "./token-kinds.gen.js";

export { ALLOW_ANONYMOUS_HEADER, LEGACY_ISSUER, TOKEN_KINDS } from "./token-kinds.gen.js";

/** "user" (a normal user; every 2.7 token), "restricted" (e.g. e-mail not verified yet) or "anonymous". */
export type AccessTokenKind = keyof typeof TOKEN_KINDS;

/** Which sessions besides normal users' an app shows (both off by default: such a session is "signed out"). */
export interface UserKindOptions {
  /** Show anonymous users (created by the 2.8 SDK on its own) as signed in, with `isAnonymous`. */
  allowAnonymous?: boolean;
  /** Show restricted users (e.g. an unverified e-mail where the project requires verification), with `isRestricted`. */
  allowRestricted?: boolean;
}

/**
 * The kind of `token` for project `projectId`, read from its claims without verifying them: it is
 * anonymous when its audience, its issuer or its `is_anonymous` claim says so, else restricted
 * when one of them says that, else a normal user's (2.7 tokens have the plain project audience
 * and the fixed issuer). A token that cannot be read counts as a normal user's: the service
 * refuses it on the first call, as before.
 */
export function accessTokenKind(token: string, projectId: string): AccessTokenKind {
  const claims = decodeJwtClaims(token) ?? {};
  const audiences: unknown[] = [claims.aud].flat();
  // The issuer's path: what follows scheme and host (the 2.7 issuer has none).
  const path = typeof claims.iss === "string" ? claims.iss.replace(/^[a-z]+:\/\/[^/]*/i, "") : null;
  const says = (kind: "anonymous" | "restricted", claim: string) =>
    audiences.includes(projectId + TOKEN_KINDS[kind].audienceSuffix) ||
    path === TOKEN_KINDS[kind].issuerPath.replace("{project_id}", projectId) ||
    claims[claim] === true;
  return says("anonymous", "is_anonymous") ? "anonymous" : says("restricted", "is_restricted") ? "restricted" : "user";
}

/** Whether an app with `options` shows a session of `kind`. */
export function kindAllowed(kind: AccessTokenKind, options: UserKindOptions = {}): boolean {
  if (kind === "anonymous") return options.allowAnonymous === true;
  if (kind === "restricted") return options.allowRestricted === true;
  return true;
}
