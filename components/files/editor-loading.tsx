// Shown while Monaco's code loads (it is split out of the page's bundle).
export function EditorLoading() {
  return (
    <div className="editor-loading" role="status" data-testid="editor-loading">
      <span className="spinner" aria-hidden="true" /> Loading the editor…
    </div>
  );
}
