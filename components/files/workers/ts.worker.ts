// Monaco ts web worker, bundled from node_modules (never a CDN).
import "monaco-editor/language/typescript/ts.worker";
