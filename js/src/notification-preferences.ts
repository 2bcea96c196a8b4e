// The signed-in user's e-mail notification preferences (API 2.8): one per category of e-mail the
// project sends, on or off. The Transactional category (sign-in codes, verification, password
// resets) cannot be turned off. A 2.7 service has no such route; list() then answers null, so a
// page can leave the part out.
import type { ApiContext } from "./api-context.js";
import { seg } from "./api-context.js";
import { HttpStatusError } from "./http-errors.js";
import type { Wire } from "./models.js";

/** One category of e-mail and whether the user receives it. */
export interface NotificationPreference {
  categoryId: string;
  /** The category's name as the service gives it ("Transactional", "Marketing"). */
  categoryName: string;
  enabled: boolean;
  /** False for e-mails the user always receives (the Transactional category). */
  canDisable: boolean;
}

export interface NotificationPreferencesApi {
  /**
   * GET /emails/notification-preference/me, one item per category; [] when signed out (without a
   * call); null when the service has no notification preferences (API 2.7 answers 404 or 405).
   */
  list(): Promise<NotificationPreference[] | null>;
  /**
   * Turns a category on or off. The service does not refuse turning off a category that cannot
   * be disabled; this call does (before any request), so Transactional e-mails keep coming.
   */
  set(categoryId: string, enabled: boolean): Promise<NotificationPreference>;
}

/** The API's preference item as the package's model. */
export const notificationPreferenceFromWire = (w: Wire): NotificationPreference => ({
  categoryId: w.notification_category_id,
  categoryName: w.notification_category_name,
  enabled: Boolean(w.enabled),
  canDisable: Boolean(w.can_disable),
});

import { TRANSACTIONAL_CATEGORY_ID } from "./account-rules.js";

export { MARKETING_CATEGORY_ID, TRANSACTIONAL_CATEGORY_ID } from "./account-rules.js";

export function createNotificationPreferencesApi(ctx: ApiContext): NotificationPreferencesApi {
  return {
    async list() {
      if (!ctx.session.getState().refreshToken) return [];
      try {
        const { body } = await ctx.request<{ items: Wire[] }>({ method: "GET", path: "/emails/notification-preference/me", session: ctx.session });
        return body.items.map(notificationPreferenceFromWire);
      } catch (error) {
        if (error instanceof HttpStatusError && (error.status === 404 || error.status === 405)) return null;
        throw error;
      }
    },
    async set(categoryId, enabled) {
      if (!enabled && categoryId === TRANSACTIONAL_CATEGORY_ID) {
        throw new TypeError("set(): the Transactional category cannot be turned off (its e-mails sign the user in and keep the account safe).");
      }
      const { body } = await ctx.request<Wire>({
        method: "PATCH",
        path: `/emails/notification-preference/me/${seg(categoryId)}`,
        body: { enabled },
        session: ctx.session,
      });
      return notificationPreferenceFromWire(body);
    },
  };
}
