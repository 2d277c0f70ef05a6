// Monaco json web worker, bundled from node_modules (never a CDN).
import "monaco-editor/language/json/json.worker";
