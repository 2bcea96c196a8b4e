/*
 * @authmw/react/errors: every error class of the package (the main entry exports only the bases
 * AuthmwError and KnownError, and isKnownError). The transport loads this module with the first
 * error response, so a page whose calls succeed never loads the catalogue table.
 *
 * Error tree:
 *
 *   AuthmwError
 *   ├── KnownError                  a catalogue error sent by the service (errors.gen.ts)
 *   │   ├── UnsupportedError        a code this client does not know (keeps originalErrorCode)
 *   │   ├── InvalidAccessToken      ├── UnparsableAccessToken, AccessTokenExpired, ...
 *   │   └── ...                     parents catch their children
 *   ├── HttpStatusError             any other non-2xx answer (status, reason, body)
 *   │   └── NotInServiceVersion     a call the service's API version does not have (404)
 *   ├── InvalidServerResponse       x-stack-known-error header that does not match the body
 *   ├── FeatureNotSupported         what checkFeatureSupport always ends in (the service's answer)
 *   └── ConnectionError             the service could not be reached (diagnostics, offline hint)
 */
import { fillTemplate, KnownError, type ErrorDetails } from "./known-error.js";
import { knownErrorClass, UnsupportedError } from "./errors.gen.js";
import { InvalidServerResponse } from "./http-errors.js";

export * from "./errors.gen.js";
export { ConnectionError, HttpStatusError, InvalidServerResponse, NotInServiceVersion } from "./http-errors.js";
export { FeatureNotSupported } from "./feature-not-supported.js";
export { AuthmwError, KnownError, isKnownError, type ErrorDetails, type KnownErrorClass, type KnownErrorInit } from "./known-error.js";
export { reasonPhrase } from "./http-status.js";

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Builds the error for a known-error body `{code, details?, error}`. Unknown codes become
 * `UnsupportedError` with `details.originalErrorCode`.
 */
export function knownErrorFromJson(body: { code: string; details?: unknown; error?: unknown }, status?: number): KnownError {
  const details: ErrorDetails = isRecord(body.details) ? body.details : {};
  const message = typeof body.error === "string" ? body.error : undefined;
  const cls = knownErrorClass(body.code);
  if (cls) return new cls({ message, details, status });
  const unsupportedDetails = { originalErrorCode: body.code, originalDetails: details };
  const base = fillTemplate(UnsupportedError.template, unsupportedDetails);
  return new UnsupportedError({
    message: message ? `${base} (${message})` : base,
    details: unsupportedDetails,
    status,
  });
}

/**
 * Parses a response that carries `x-stack-known-error: <headerCode>`. The body must be JSON whose
 * `code` equals the header; anything else is an InvalidServerResponse.
 */
export function parseKnownError(headerCode: string, status: number, bodyText: string): KnownError | InvalidServerResponse {
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch {
    return new InvalidServerResponse(`known-error header ${headerCode} but the body is not JSON`, status, bodyText);
  }
  if (!isRecord(body) || typeof body.code !== "string") {
    return new InvalidServerResponse(`known-error header ${headerCode} but the body has no code`, status, bodyText);
  }
  if (body.code !== headerCode) {
    return new InvalidServerResponse(
      `known-error header ${headerCode} differs from the body code ${body.code}`,
      status,
      bodyText,
    );
  }
  return knownErrorFromJson(body as { code: string }, status);
}
