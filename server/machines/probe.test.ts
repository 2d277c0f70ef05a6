// What the connection test reads from a machine is hostile input
// (docs/desktops-and-tiers.md#the-connection-test): each fact matches its
// pattern or is dropped, and the words say which confinement applies.
import { describe, expect, it } from "vitest";
import { confinementOf, connectedWords, parseFacts } from "./probe";

const m = { name: "build-box", host: "10.0.0.5", port: 22, user: "rein" };
const conn = { connectMs: 85, fingerprint: "SHA256:abc" };

describe("parseFacts", () => {
  it.each([
    [
      "os=Linux\narch=x86_64\ncpus=8\nbwrap=bubblewrap 0.8.0\nbwrap_works=1\n",
      { os: "Linux", arch: "x86_64", cpus: 8, bwrap: "0.8.0", bwrapWorks: true },
    ],
    ["os=Linux\narch=aarch64\ncpus=2\n", { os: "Linux", arch: "aarch64", cpus: 2, bwrap: null, bwrapWorks: false }],
    ["os=Linux\nbwrap=bubblewrap 0.8.0\n", { os: "Linux", arch: null, cpus: null, bwrap: "0.8.0", bwrapWorks: false }],
    // Hostile: escapes, huge numbers, a fact spilling over, no bwrap but bwrap_works.
    [
      "os=Linux\u001b[31m\narch=" + "x".repeat(100) + "\ncpus=999999\nbwrap_works=1\n",
      { os: null, arch: null, cpus: null, bwrap: null, bwrapWorks: false },
    ],
    ["bwrap=<script>\nbwrap_works=1\n", { os: null, arch: null, cpus: null, bwrap: "unknown", bwrapWorks: true }],
    ["cpus=0\n", { os: null, arch: null, cpus: null, bwrap: null, bwrapWorks: false }],
  ])("%j", (text, facts) => expect(parseFacts(text)).toEqual(facts));
});

describe("connectedWords", () => {
  it("says which confinement applies", () => {
    const works = parseFacts("os=Linux\narch=x86_64\ncpus=8\nbwrap=bubblewrap 0.8.0\nbwrap_works=1\n");
    expect(connectedWords(m, conn, works)).toBe(
      "Connected to build-box (10.0.0.5:22) as rein in 85 ms; host key SHA256:abc; Linux x86_64, 8 CPUs; bubblewrap 0.8.0 is installed, commands will run confined",
    );
    expect(confinementOf(works)).toBe("bubblewrap");
    const none = parseFacts("os=Linux\narch=x86_64\ncpus=1\n");
    expect(connectedWords(m, conn, none)).toBe(
      "Connected to build-box (10.0.0.5:22) as rein in 85 ms; host key SHA256:abc; Linux x86_64, 1 CPU; bubblewrap is not installed: commands run as user rein with the limits the host allows",
    );
    expect(confinementOf(none)).toBe("user");
    const broken = parseFacts("bwrap=bubblewrap 0.4.0\n");
    expect(connectedWords({ ...m, host: "fd00::5" }, conn, broken)).toBe(
      "Connected to build-box ([fd00::5]:22) as rein in 85 ms; host key SHA256:abc; bubblewrap 0.4.0 is installed but could not make a sandbox there: commands run as user rein with the limits the host allows",
    );
    expect(confinementOf(broken)).toBe("user");
  });
});
