// Suggestions the policy page offers for tools and tiers (a rule may name any
// tool or glob; these are the built-in ones).
export const TIERS = ["T0", "T1", "T2", "T3", "T4"];
export const TOOLS = [
  "shell",
  "read_file",
  "write_file",
  "edit_file",
  "list_files",
  "search",
  "read_output",
  "handoff",
  "update_tasks",
  "ask_human",
  "upgrade_tier",
];
