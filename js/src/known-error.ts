export type ErrorDetails = Record<string, unknown>;

export interface KnownErrorInit {
  /** Human message; defaults to the catalogue template filled from `details`. */
  message?: string;
  details?: ErrorDetails;
  /** HTTP status the service answered with; defaults to the catalogue status. */
  status?: number;
  /** Extra template values that are not part of `details` (e.g. `access_type`). */
  args?: Record<string, unknown>;
  cause?: unknown;
}

/** Fills `{name}` placeholders from `values`; a missing value becomes an empty string. */
export function fillTemplate(template: string, values: Record<string, unknown>): string {
  return template.replace(/\{([A-Za-z0-9_]+)\}/g, (_, key: string) => {
    const value = values[key];
    if (value === undefined || value === null) return "";
    return typeof value === "string" ? value : JSON.stringify(value);
  });
}

/** Common base of every error this package raises on purpose. */
export class AuthmwError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "AuthmwError";
  }
}

/**
 * Base of every error of the service's catalogue. Subclasses (generated from the catalogue into
 * errors.gen.ts) carry the code, status and message template as static fields, so
 * `err instanceof InvalidAccessToken` also catches `AccessTokenExpired`.
 */
export class KnownError extends AuthmwError {
  static readonly code: string = "KNOWN_ERROR";
  static readonly status: number = 500;
  static readonly template: string = "{message}";
  static readonly abstract: boolean = true;
  static readonly className: string = "KnownError";

  readonly code: string;
  readonly status: number;
  readonly details: ErrorDetails;

  constructor(init: KnownErrorInit = {}) {
    const cls = new.target as typeof KnownError;
    const details = init.details ?? {};
    super(init.message ?? fillTemplate(cls.template, { ...init.args, ...details }), { cause: init.cause });
    this.name = cls.className;
    this.code = cls.code;
    this.status = init.status ?? cls.status;
    this.details = details;
  }

  /** The wire shape `{code, details?, error}` of this error. */
  toJSON(): { code: string; details?: ErrorDetails; error: string } {
    return Object.keys(this.details).length
      ? { code: this.code, details: this.details, error: this.message }
      : { code: this.code, error: this.message };
  }
}
