import type { KnownErrorsByCode } from "./errors.gen.js";

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

/**
 * One catalogue entry as scripts/gen-errors.mjs writes it: code, parent code ("" for none),
 * status, message template, abstract (1: a parent the service never sends), the class name
 * when it is not the PascalCase of the code, and the detail keys (comma-separated).
 */
export type CatalogueRow = readonly [string, string, number, string, number, string, string];

/** A catalogue class: constructible, with the code's static fields and detail getters `G`. */
export interface KnownErrorClass<G = unknown> {
  new (init?: KnownErrorInit): KnownError & G;
  readonly prototype: KnownError & G;
  readonly code: string;
  readonly status: number;
  readonly template: string;
  readonly abstract: boolean;
  readonly className: string;
}

/**
 * Whether `error` is the catalogue error `code` or one of its children: the same answer as
 * `error instanceof <the code's class>`, without loading the error classes (they are in
 * `@authmw/react/errors`, loaded with the first error response). Narrows to the code's class,
 * typed detail getters included:
 *
 *     if (isKnownError(error, "PASSWORD_TOO_SHORT")) console.log(error.minLength);
 */
export function isKnownError<C extends keyof KnownErrorsByCode>(error: unknown, code: C): error is KnownErrorsByCode[C];
export function isKnownError(error: unknown, code: string): error is KnownError;
export function isKnownError(error: unknown, code: string): boolean {
  if (!(error instanceof KnownError)) return false;
  // The chain of the error's class up to KnownError (a constructor property changed by hand
  // may not lead there: the walk stops at the end of the chain).
  for (let cls = error.constructor as typeof KnownError | null; cls && cls !== KnownError; cls = Object.getPrototypeOf(cls)) {
    if (Object.prototype.hasOwnProperty.call(cls, "code") && cls.code === code) return true;
  }
  return false;
}

