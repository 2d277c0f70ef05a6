import styles from "./extensions.module.css";
import { STATE_HINTS, stateWords } from "./format";

export function ExtensionStateBadge({ state }: { state: string }) {
  return (
    <span className={`badge ${styles[`state-${state}`] ?? ""}`} title={STATE_HINTS[state]} data-testid="extension-state" data-state={state}>
      <span className="badge-dot" aria-hidden="true" />
      {stateWords(state)}
    </span>
  );
}

/** Capabilities are what an extension may reach beyond its arguments: shown loudly, "none" shown calmly. */
export function CapabilityBadges({ capabilities }: { capabilities: string[] }) {
  if (!capabilities.length)
    return (
      <span
        className={`badge ${styles.noCapability}`}
        title="It computes only on its arguments: no files, no network, no environment"
        data-testid="extension-capability"
        data-capability="none"
      >
        none
      </span>
    );
  return (
    <>
      {capabilities.map((c) => (
        <span
          key={c}
          className={`badge ${styles.capability}`}
          style={{ marginRight: 4 }}
          title="Granted only if an admin allows it in Settings → Improvements"
          data-testid="extension-capability"
          data-capability={c}
        >
          ⚠ {c}
        </span>
      ))}
    </>
  );
}
