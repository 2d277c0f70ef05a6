// A path given to browser_navigate opens on Rein's own server (the demo
// site); nothing else gets through that door: no other host, no path without
// the server's address.
import { describe, expect, it } from "vitest";
import { ToolError, type ToolContext } from "../types";
import { resolveUrl, webUrlProblem } from "./browser-page";

const page = async () => {
  throw new Error("not used");
};
const ctx = (desktop: ToolContext["desktop"]) => ({ desktop }) as ToolContext;

describe("browser_navigate's URLs", () => {
  it("takes a path as a page of Rein's own server, resolved against the address the desktop was given", () => {
    expect(webUrlProblem("/demo-site/form")).toBeNull();
    expect(resolveUrl("/demo-site/form?x=1", ctx({ page, baseUrl: "http://127.0.0.1:3100" }))).toBe(
      "http://127.0.0.1:3100/demo-site/form?x=1",
    );
    expect(resolveUrl("https://example.com/a", ctx({ page, baseUrl: "http://127.0.0.1:3100" }))).toBe("https://example.com/a");
  });

  it("refuses what only looks like a path and leads to another host", () => {
    for (const sneaky of ["//evil.example/x", "/\\evil.example/x"]) {
      expect(webUrlProblem(sneaky)).not.toBeNull();
      let err: unknown;
      try {
        resolveUrl(sneaky, ctx({ page, baseUrl: "http://127.0.0.1:3100" }));
      } catch (e) {
        err = e;
      }
      // Either refused here, or left as is for the URL check, which refuses it.
      if (err) expect(err).toMatchObject({ code: "INVALID_URL" });
      else expect(webUrlProblem(sneaky)).toMatch(/not an absolute URL/);
    }
  });

  it("refuses a path when the desktop was not given the server's address", () => {
    expect(() => resolveUrl("/demo-site/form", ctx({ page }))).toThrow(ToolError);
    expect(() => resolveUrl("/demo-site/form", ctx({ page }))).toThrow(/use an absolute URL/);
    expect(() => resolveUrl("/demo-site/form", ctx({ unavailable: "no desktop" }))).toThrow(/use an absolute URL/);
  });
});
