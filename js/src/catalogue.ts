// How the generated error table (errors.gen.ts) becomes classes: loaded with the table, never
// in the first page of an app that only signs users in.
import { KnownError, type CatalogueRow, type KnownErrorClass } from "./known-error.js";

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
