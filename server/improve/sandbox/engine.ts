// QuickJS compiled to WebAssembly: the WASM file is compiled once per
// process, and every run gets an instance of its own (its own linear memory),
// so nothing of one run, not even freed memory, is seen by the next, and an
// instance a run broke (an abort, V8's stack overflowing inside it) is simply
// dropped. A fresh instance costs about 0.8 ms more than a runtime on a shared
// one (npm run bench:improve).
import fs from "node:fs";
import { createRequire } from "node:module";
import { newQuickJSWASMModuleFromVariant, newVariant, type CustomizeVariantOptions, type QuickJSWASMModule } from "quickjs-emscripten-core";
import releaseSync from "@jitl/quickjs-wasmfile-release-sync";

let compiled: Promise<WebAssembly.Module> | null = null;

/** The WASM file, resolved through node_modules at run time (also from the bundled server, which keeps packages external). */
function compiledWasm(): Promise<WebAssembly.Module> {
  compiled ??= (async () => {
    const file = createRequire(import.meta.url).resolve("@jitl/quickjs-wasmfile-release-sync/wasm");
    return WebAssembly.compile(await fs.promises.readFile(file));
  })().catch((err) => {
    compiled = null; // let a later run try again
    throw err;
  });
  return compiled;
}

/** Compiles the WASM ahead of the first run (a sandbox worker does this before it says it is ready). */
export async function warmUp(): Promise<void> {
  await compiledWasm();
}

export interface Engine {
  module: QuickJSWASMModule;
  /** What the C side printed (an abort's reason); never shown to the tool. */
  stderr: string[];
}

export async function newEngine(): Promise<Engine> {
  const stderr: string[] = [];
  const keep = (...parts: unknown[]) => {
    if (stderr.length < 20) stderr.push(parts.map(String).join(" ").slice(0, 500));
  };
  // print/printErr are read by Emscripten but missing from the loader options' type.
  const emscriptenModule: NonNullable<CustomizeVariantOptions["emscriptenModule"]> & Record<string, unknown> = {
    print: keep,
    printErr: keep,
  };
  const variant = newVariant(releaseSync, { wasmModule: compiledWasm, emscriptenModule });
  return { module: await newQuickJSWASMModuleFromVariant(variant), stderr };
}
