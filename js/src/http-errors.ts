// The errors of a call that did not get a catalogue answer: another non-2xx status, an answer
// the contract rules out, no answer at all. In a module of their own so that the pages can
// tell them apart without loading the catalogue (errors.ts loads with the first error).
import { AuthmwError } from "./known-error.js";
import { reasonPhrase } from "./http-status.js";

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

/**
 * The service answered 404 to a call its API version no longer (or not yet) has, e.g. the 2.7
 * `/email-templates` on a 2.8 service. The message names the version and what to do.
 */
export class NotInServiceVersion extends HttpStatusError {
  /** `status`: what the service answered (404 for a route it lacks; 400 when 2.7 refuses a 2.8 query). */
  constructor(message: string, options: { url?: string; method?: string; status?: number } = {}) {
    super(options.status ?? 404, "", options);
    this.name = "NotInServiceVersion";
    this.message = message;
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
