// The signed-in user's sessions (API 2.8, service-api A6): list them, end one. A 2.7 service has
// no such route; list() then answers null, so a page can leave the section out.
import type { ApiContext } from "./api-context.js";
import { seg } from "./api-context.js";
import { HttpStatusError } from "./errors.js";
import type { Wire } from "./models.js";

/** Where a session was last used, as far as the service knows (service-api A6.1). */
export interface SessionLocation {
  ip: string;
  countryCode: string | null;
  regionCode: string | null;
  cityName: string | null;
}

/** One session (a refresh token) of the signed-in user. */
export interface UserSession {
  id: string;
  createdAt: Date;
  lastUsedAt: Date;
  /** The session of this browser (it cannot be revoked from here: sign out instead). */
  isCurrent: boolean;
  /** Created by an administrator acting as the user. */
  isImpersonation: boolean;
  location: SessionLocation | null;
}

export interface SessionsApi {
  /**
   * GET /auth/sessions?user_id=me, newest first; [] when signed out (without a call); null when
   * the service has no sessions (API 2.7 answers 404 or 405).
   */
  list(): Promise<UserSession[] | null>;
  /** Ends another session: its refresh token stops working (CannotDeleteCurrentSession for this one). */
  revoke(sessionId: string): Promise<void>;
}

const sessionFromWire = (w: Wire): UserSession => {
  const where = w.last_used_at_end_user_ip_info as Wire | undefined;
  return {
    id: w.id,
    createdAt: new Date(w.created_at),
    lastUsedAt: new Date(w.last_used_at ?? w.created_at),
    isCurrent: Boolean(w.is_current_session),
    isImpersonation: Boolean(w.is_impersonation),
    location: where
      ? { ip: where.ip, countryCode: where.countryCode ?? null, regionCode: where.regionCode ?? null, cityName: where.cityName ?? null }
      : null,
  };
};

export function createSessionsApi(ctx: ApiContext): SessionsApi {
  return {
    async list() {
      if (!ctx.session.getState().refreshToken) return [];
      try {
        const { body } = await ctx.request<{ items: Wire[] }>({ method: "GET", path: "/auth/sessions?user_id=me", session: ctx.session });
        return body.items.map(sessionFromWire);
      } catch (error) {
        if (error instanceof HttpStatusError && (error.status === 404 || error.status === 405)) return null;
        throw error;
      }
    },
    async revoke(sessionId) {
      await ctx.request({ method: "DELETE", path: `/auth/sessions/${seg(sessionId)}?user_id=me`, session: ctx.session });
    },
  };
}
