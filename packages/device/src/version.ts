// The agent's version, reported in its capabilities (packages/device/package.json says the same; a test checks it).
export const AGENT_VERSION = "0.1.0";
