export { ScriptedModel, type ScriptedModelOptions } from "./model";
export { BUILTIN_SCENARIOS } from "./scenarios";
