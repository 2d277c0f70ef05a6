// Provider backends. INV-1: provider SDKs are imported only under this folder.
export { ScriptedModel, BUILTIN_SCENARIOS } from "./scripted";
