import type { ToolDefinition } from "../types";
import { editFile, listFiles, readFile, search, writeFile } from "./files";
import { readOutput, shell } from "./shell";
import { handoff, updateTasks } from "./control";
import { askHuman } from "./ask-human";
import { BROWSER_TOOLS } from "./browser";
import { upgradeTier } from "./upgrade-tier";

export const BUILTIN_TOOLS: ToolDefinition[] = [
  readFile,
  writeFile,
  editFile,
  listFiles,
  search,
  shell,
  readOutput,
  handoff,
  updateTasks,
  askHuman,
  upgradeTier,
  ...BROWSER_TOOLS,
];
export { OUTPUT_TOKEN_CAP } from "./shell";
export { BROWSER_TOOLS } from "./browser";
export { globToRegExp } from "./glob";
