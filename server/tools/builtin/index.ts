import type { ToolDefinition } from "../types";
import { editFile, listFiles, readFile, search, writeFile } from "./files";
import { readOutput, shell } from "./shell";
import { handoff, updateTasks } from "./control";
import { askHuman } from "./ask-human";

export const BUILTIN_TOOLS: ToolDefinition[] = [readFile, writeFile, editFile, listFiles, search, shell, readOutput, handoff, updateTasks, askHuman];
export { OUTPUT_TOKEN_CAP } from "./shell";
export { globToRegExp } from "./glob";
