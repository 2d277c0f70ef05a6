// The workspace's file service (docs/terminal-and-files.md#the-sandboxed-file-service): a request
// in flight when the workspace's folder is replaced (a remote machine's copy
// of it came back, docs/desktops-and-tiers.md#a-run-on-a-machine) is asked
// again of a service of the new folder, instead of failing the run's step.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fileServices } from "./service";

const base = fs.mkdtempSync(path.join(os.tmpdir(), "rein-files-release-"));
afterAll(() => {
  fileServices.stopAll();
  fs.rmSync(base, { recursive: true, force: true });
});

describe("a file service released while it works", () => {
  it("answers from the folder that replaced the old one", async () => {
    const dir = path.join(base, "ws");
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "a.txt"), "old\n");
    const staging = path.join(base, "ws.pull");
    fs.mkdirSync(staging);
    fs.writeFileSync(path.join(staging, "a.txt"), "new\n");

    // The request is on its way (the service is still starting) when the folder is replaced.
    const reading = fileServices.for(dir).request<{ data: string }>("read", { path: "a.txt" });
    fileServices.release(dir);
    fs.renameSync(dir, path.join(base, "ws.before"));
    fs.renameSync(staging, dir);

    const r = await reading;
    expect(Buffer.from(r.data, "base64").toString()).toBe("new\n");
  });
});
