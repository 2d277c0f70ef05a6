// Monaco css web worker, bundled from node_modules (never a CDN).
import "monaco-editor/language/css/css.worker";
