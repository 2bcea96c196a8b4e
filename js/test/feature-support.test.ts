// @vitest-environment node
// POST /check-feature-support against the real local service, and the warning after more than
// ten created clients (the scenarios of tests/core/test_apps_live.py and tests/core/test_apps.py).
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { AuthClient } from "../src/client";
import { FeatureNotSupported } from "../src/errors";
import { checkFeatureSupport } from "../src/feature-support";
import { startLocalService, type RunningService } from "./local-service";

describe("checkFeatureSupport", () => {
  let service: RunningService;
  beforeAll(async () => {
    service = await startLocalService();
  }, 150_000);
  afterAll(() => service?.stop());

  it("always ends in FeatureNotSupported with the service's answer", async () => {
    const client = new AuthClient({
      baseUrl: service.url,
      projectId: service.project.project_id,
      publishableClientKey: service.project.publishable_client_key,
      cookies: null,
    });
    const error = await checkFeatureSupport(client, "passkey sign-up", { where: "sign-up page" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FeatureNotSupported);
    expect((error as FeatureNotSupported).feature).toBe("passkey sign-up");
    expect((error as Error).message).toBe("passkey sign-up is not yet supported. Please reach out to Stack support for more information.");
    await expect(checkFeatureSupport(client, " ")).rejects.toThrow(TypeError);
  });
});

describe("created clients", () => {
  it("more than ten earn one warning", async () => {
    vi.resetModules(); // a fresh count
    const { AuthClient: Fresh } = await import("../src/client");
    const { CREATED_CLIENTS_WARNING_THRESHOLD } = await import("../src/created-clients");
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const make = () => new Fresh({ baseUrl: "http://127.0.0.1:9", projectId: "internal", publishableClientKey: "pck", cookies: null });
      for (let i = 0; i < CREATED_CLIENTS_WARNING_THRESHOLD; i++) make();
      expect(warn).not.toHaveBeenCalled();
      make();
      make();
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]![0])).toBe("authmw: more than 10 auth clients were created; create one and share it.");
    } finally {
      warn.mockRestore();
    }
  });
});
