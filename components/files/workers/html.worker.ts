// Monaco html web worker, bundled from node_modules (never a CDN).
import "monaco-editor/language/html/html.worker";
