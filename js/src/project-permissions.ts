// The signed-in user's project permissions (API 2.8, GET /project-permissions?user_id=me): the
// permissions that do not belong to a team, granted by the server tier or by the project's
// defaults. A module of its own, loaded with its first call.
import { withQuery, type ApiContext } from "./api-context.js";
import { HttpStatusError } from "./http-errors.js";
import type { ProjectPermission } from "./models.js";

export interface ProjectPermissionsApi {
  /**
   * Your project permissions, contained ones included unless `recursive: false`; [] when signed
   * out (without a call) and from a 2.7 service, which has no project permissions.
   */
  list(options?: { recursive?: boolean }): Promise<ProjectPermission[]>;
  /** Whether you hold `permissionId` in the project (directly or contained). */
  has(permissionId: string): Promise<boolean>;
}

export function createProjectPermissionsApi(ctx: ApiContext): ProjectPermissionsApi {
  const list = async ({ recursive = true }: { recursive?: boolean } = {}): Promise<ProjectPermission[]> => {
    if (!ctx.session.getState().refreshToken) return [];
    try {
      const path = withQuery("/project-permissions", { user_id: "me", recursive });
      const { body } = await ctx.request<{ items: { id: string }[] }>({ method: "GET", path, session: ctx.session });
      return body.items.map((p) => ({ id: p.id }));
    } catch (error) {
      // API 2.7 has no such route, and so no project permission anyone could hold.
      if (error instanceof HttpStatusError && (error.status === 404 || error.status === 405)) return [];
      throw error;
    }
  };
  return { list, has: async (permissionId) => (await list()).some((p) => p.id === permissionId) };
}
