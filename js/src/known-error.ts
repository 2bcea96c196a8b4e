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

const RESERVED_MEMBERS = new Set(["code", "status", "message", "details", "name", "stack", "cause", "constructor"]);

/** The getter of a detail key: camelCase, prefixed with `detail` where it would hide a member. */
function getterName(key: string): string {
  const camel = key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
  return RESERVED_MEMBERS.has(camel) ? `detail${camel.charAt(0).toUpperCase()}${camel.slice(1)}` : camel;
}

const pascal = (code: string) =>
  code
    .split("_")
    .map((w) => (w === "OAUTH" ? "OAuth" : w.charAt(0) + w.slice(1).toLowerCase()))
    .join("");

/**
 * The class lookup of a catalogue table: `lookup(code)` makes the code's class on first use
 * (its parent first) and returns the same class ever after; undefined for unknown codes.
 */
export function catalogueClasses(table: readonly CatalogueRow[]): (code: string) => KnownErrorClass | undefined {
  const rows = new Map(table.map((row) => [row[0], row]));
  const made = new Map<string, KnownErrorClass>();
  const lookup = (code: string): KnownErrorClass | undefined => {
    const done = made.get(code);
    if (done) return done;
    const row = rows.get(code);
    if (!row) return undefined;
    const [, parentCode, status, template, abstract, name, keys] = row;
    const parent = (parentCode ? lookup(parentCode) : KnownError) as typeof KnownError;
    const className = name || pascal(code);
    const cls = class extends parent {};
    for (const [field, value] of Object.entries({ code, status, template, abstract: abstract === 1, className, name: className })) {
      Object.defineProperty(cls, field, { value, enumerable: field !== "name" });
    }
    for (const key of keys ? keys.split(",") : []) {
      Object.defineProperty(cls.prototype, getterName(key), {
        get(this: KnownError) {
          return this.details[key];
        },
      });
    }
    made.set(code, cls as unknown as KnownErrorClass);
    return made.get(code);
  };
  return lookup;
}
