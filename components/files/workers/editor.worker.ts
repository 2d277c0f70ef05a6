// Monaco editor web worker, bundled from node_modules (never a CDN).
import "monaco-editor/editor/editor.worker";
