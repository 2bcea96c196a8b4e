// POST /check-feature-support (service-api C7, service-api A5.13): tells the service that a feature
// was asked for that this client does not support, and always ends in FeatureNotSupported with
// the service's answer, as the official SDK turns that answer into an error.
import type { Transport } from "./transport.js";

/**
 * Asks the service about `feature` (sent as `feature_name`, which the service reads, and `name`,
 * which the official SDK sends) with `details`; always rejects with FeatureNotSupported.
 */
export async function checkFeatureSupport(
  client: { transport: Transport },
  feature: string,
  details: Record<string, unknown> = {},
): Promise<never> {
  if (typeof feature !== "string" || !feature.trim()) throw new TypeError("feature must name the feature, such as 'passkey sign-up'.");
  const { body } = await client.transport.request<string>({
    method: "POST",
    path: "/check-feature-support",
    body: { ...details, feature_name: feature, name: feature },
    responseType: "text",
  });
  // the error class loads with the error classes (./errors), not with the first page
  const { FeatureNotSupported } = await import("./errors.js");
  throw new FeatureNotSupported(feature, body.trim() || `${feature} is not supported.`);
}
