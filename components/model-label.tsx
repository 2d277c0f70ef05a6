// A model name, always marked "scripted" when the deterministic demo model answers.
export function ScriptedBadge() {
  return (
    <span
      className="badge badge-scripted"
      data-testid="scripted-badge"
      title="The built-in deterministic model: it replays a script, it does not think"
    >
      scripted
    </span>
  );
}

export function ModelLabel({ model, scripted }: { model: string; scripted: boolean }) {
  // "scripted/demo-coder" and "scripted · demo-coder" read as [scripted] demo-coder.
  const name = scripted ? model.replace(/^scripted(\s*[·/]\s*)?/, "") : model;
  return (
    <span className="model-label" title={model}>
      {scripted && <ScriptedBadge />}
      {name && <span className="mono">{name}</span>}
    </span>
  );
}
