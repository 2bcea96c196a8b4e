// What the transport says when a request does not reach the service, loaded with the first
// such failure.
import { ConnectionError } from "./http-errors.js";

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * The ConnectionError of a request that did not reach the service, with what was tried and a
 * health check of the service's root (`GET {baseUrl}/health`) in its diagnostics. Used by the
 * transport, here so that the diagnostics load with the first failure.
 */
export async function connectionFailure(o: {
  fetch: typeof fetch;
  baseUrl: string;
  online: boolean | undefined;
  method: string;
  url: string;
  cause: unknown;
  attempts: number;
  idempotent: boolean;
}): Promise<ConnectionError> {
  const offline = o.online === false;
  const diagnostics = [
    o.idempotent
      ? `${o.method} ${o.url} failed ${o.attempts} time(s); last error: ${errorText(o.cause)}`
      : `${o.method} ${o.url} failed: ${errorText(o.cause)} (${o.method} is not retried because it may not be idempotent)`,
  ];
  if (offline) diagnostics.push("navigator.onLine is false");
  const health = `${o.baseUrl}/health`;
  try {
    const response = await o.fetch(health, { method: "GET", credentials: "omit", cache: "no-store" });
    const text = (await response.text()).slice(0, 200);
    diagnostics.push(`GET ${health}: ${response.status}${text ? ` ${text}` : ""}`);
  } catch (error) {
    diagnostics.push(`GET ${health} failed: ${errorText(error)}`);
  }
  return new ConnectionError({ method: o.method, url: o.url, offline, diagnostics, cause: o.cause });
}
