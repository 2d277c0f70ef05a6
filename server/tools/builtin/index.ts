import type { ToolDefinition } from "../types";
import { editFile, listFiles, readFile, search, writeFile } from "./files";
import { shell } from "./shell";
import { handoff, updateTasks } from "./control";

export const BUILTIN_TOOLS: ToolDefinition[] = [readFile, writeFile, editFile, listFiles, search, shell, handoff, updateTasks];
export { globToRegExp } from "./glob";
