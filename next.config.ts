import type { NextConfig } from "next";

// Next serves pages and the Auth.js route only; tRPC, REST and socket.io are
// hosted by server.ts so the kernel lives in one module graph.
const nextConfig: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // `npm test` type-checks the whole repository in a stage of its own before it builds; the build's own
  // check of the same files would take another minute (docs/development.md#run-the-tests).
  typescript: { tsconfigPath: "tsconfig.json", ignoreBuildErrors: process.env.REIN_TYPES_CHECKED === "1" },
};

export default nextConfig;
