// The account settings' dates and places, in the reader's locale.
import { describe, expect, it } from "vitest";
import { formatDate, formatDateTime, formatPlace } from "../src/react/pages/account/format";

describe("account settings formatting", () => {
  const when = new Date(Date.UTC(2026, 10, 26, 14, 5));

  it("writes dates in the given locale, not a fixed US format", () => {
    expect(formatDate(when, "de-DE")).toBe("26.11.2026");
    expect(formatDate(when, "en-GB")).toBe("26 Nov 2026");
    expect(formatDate(when, "en-US")).toBe("Nov 26, 2026");
    expect(formatDateTime(when, "en-GB")).toMatch(/^26 Nov 2026, \d\d:\d\d$/);
  });

  it("names a place from the parts the service knows, or nothing", () => {
    expect(formatPlace({ cityName: "Berlin", regionCode: "BE", countryCode: "DE" })).toBe("Berlin, BE, DE");
    expect(formatPlace({ cityName: null, regionCode: null, countryCode: "FR" })).toBe("FR");
    expect(formatPlace({ cityName: null, regionCode: null, countryCode: null })).toBeNull();
    expect(formatPlace(null)).toBeNull();
  });
});
