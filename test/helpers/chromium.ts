// The Chromium the browser tests, the screenshots and the benchmarks drive: Debian's (apt-get install
// chromium), or CHROMIUM_PATH; and the flags they launch it with, headless and quiet.
export const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";

/** No sandbox of its own (it runs as root here), no GPU, and none of the calls home a fresh profile makes. */
export const QUIET_CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
