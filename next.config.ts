import type { NextConfig } from "next";

// Next serves pages and the Auth.js route only; tRPC, REST and socket.io are
// hosted by server.ts so the kernel lives in one module graph.
const nextConfig: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  typescript: { tsconfigPath: "tsconfig.json" },
};

export default nextConfig;
