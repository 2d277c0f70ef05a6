// A provider's Test failing says what it means and what to try, in words.
import { describe, expect, it } from "vitest";
import { failureWords } from "./admin";

describe("a failed provider Test in words", () => {
  it("no connection: the address, whether the server runs, and that Rein's server (not the browser) tried", () => {
    expect(failureWords("network", "connect ECONNREFUSED 127.0.0.1:11434", "http://localhost:11434/v1")).toBe(
      "Nothing answers at http://localhost:11434: is the server running, and is the address right? " +
        "Rein reached for it from its server, not from your browser, so localhost means Rein's own machine (connect ECONNREFUSED 127.0.0.1:11434)",
    );
  });

  it("no answer in time, and a refused key, name the address; other failures keep their own words", () => {
    expect(failureWords("timeout", "no answer in 15 s", undefined)).toMatch(/^the provider's API did not answer in time: /);
    expect(failureWords("auth", "HTTP 401", "https://api.example.com/v1")).toBe(
      "https://api.example.com refused the key: check it, and that it may list models (HTTP 401)",
    );
    expect(failureWords("server", "HTTP 502", "https://api.example.com/v1")).toBe("HTTP 502");
  });
});
