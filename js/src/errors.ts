/*
 * Error tree:
 *
 *   AuthmwError
 *   ├── KnownError                  a catalogue error sent by the service (errors.gen.ts)
 *   │   ├── UnsupportedError        a code this client does not know (keeps originalErrorCode)
 *   │   ├── InvalidAccessToken      ├── UnparsableAccessToken, AccessTokenExpired, ...
 *   │   └── ...                     parents catch their children
 *   ├── HttpStatusError             any other non-2xx answer (status, reason, body)
 *   ├── InvalidServerResponse       x-stack-known-error header that does not match the body
 *   └── ConnectionError             the service could not be reached (diagnostics, offline hint)
 */
import { fillTemplate, AuthmwError, KnownError, type ErrorDetails } from "./known-error";
import { knownErrorClass, UnsupportedError } from "./errors.gen";
import { reasonPhrase } from "./http-status";

export * from "./errors.gen";
export { AuthmwError, KnownError, type ErrorDetails, type KnownErrorClass, type KnownErrorInit } from "./known-error";
export { reasonPhrase } from "./http-status";

const BODY_PREVIEW = 2000;

const preview = (body: string) => (body.length > BODY_PREVIEW ? `${body.slice(0, BODY_PREVIEW)}…` : body);

/** A non-2xx response that is not a known error. */
export class HttpStatusError extends AuthmwError {
  readonly status: number;
  readonly reason: string;
  readonly body: string;
  readonly url: string | undefined;

  constructor(status: number, body: string, options: { url?: string; method?: string } = {}) {
    const reason = reasonPhrase(status);
    const where = options.url ? ` from ${options.method ?? "GET"} ${options.url}` : "";
    super(`${status} ${reason}${where}${body ? `: ${preview(body)}` : ""}`);
    this.name = "HttpStatusError";
    this.status = status;
    this.reason = reason;
    this.body = body;
    this.url = options.url;
  }
}

/** The service answered in a way the contract rules out (e.g. known-error header and body disagree). */
export class InvalidServerResponse extends AuthmwError {
  readonly status: number;
  readonly body: string;

  constructor(message: string, status: number, body: string) {
    super(`Invalid response from the authentication service: ${message}`);
    this.name = "InvalidServerResponse";
    this.status = status;
    this.body = body;
  }
}

/** The request did not reach the service. `diagnostics` says what was tried. */
export class ConnectionError extends AuthmwError {
  readonly method: string;
  readonly url: string;
  readonly offline: boolean;
  readonly diagnostics: readonly string[];

  constructor(init: { method: string; url: string; offline: boolean; diagnostics: readonly string[]; cause?: unknown }) {
    const hint = init.offline
      ? "The browser reports that it is offline; check the network connection."
      : "Check that the API URL is right and that the service is running.";
    const lines = init.diagnostics.map((d) => `  - ${d}`).join("\n");
    super(`Could not reach the authentication service (${init.method} ${init.url}). ${hint}${lines ? `\n${lines}` : ""}`, {
      cause: init.cause,
    });
    this.name = "ConnectionError";
    this.method = init.method;
    this.url = init.url;
    this.offline = init.offline;
    this.diagnostics = init.diagnostics;
  }
}

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
