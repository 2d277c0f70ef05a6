"use client";
// What a provider's Test found: "Works — 12 models" with the ids (each with
// an Add shortcut once the provider is saved), or why it failed.
import { useState } from "react";
import { testOutcome } from "@/lib/provider-draft";
import type { RouterOutputs } from "@/lib/trpc";
import styles from "./models.module.css";

export type TestResult = RouterOutputs["models"]["testProvider"];

const SHOWN = 30;

export function TestResultView({
  result,
  isAdded,
  onAdd,
}: {
  result: TestResult;
  isAdded?(modelId: string): boolean;
  onAdd?(modelId: string): void;
}) {
  const [all, setAll] = useState(false);
  const outcome = testOutcome(result);
  const models = all ? result.models : result.models.slice(0, SHOWN);
  return (
    <div
      className={`alert ${outcome.ok ? "alert-success" : "alert-error"}`}
      role="status"
      data-testid="provider-test-result"
      data-ok={outcome.ok}
    >
      <div className={styles.testResult} style={{ minWidth: 0 }}>
        <strong data-testid="provider-test-headline">{outcome.headline}</strong>
        {outcome.detail && (
          <span className="small" data-testid="provider-test-detail">
            {outcome.detail}
          </span>
        )}
        {models.length > 0 && (
          <ul className={styles.modelList} aria-label="Models the provider offers">
            {models.map((id) => (
              <li key={id} className={`${styles.modelItem} ${onAdd ? "" : styles.modelItemPlain}`} data-testid="test-model" data-model={id}>
                {id}
                {onAdd &&
                  (isAdded?.(id) ? (
                    <span className="badge badge-ok" title="Already configured">
                      added
                    </span>
                  ) : (
                    <button
                      type="button"
                      className="btn btn-sm btn-ghost"
                      onClick={() => onAdd(id)}
                      aria-label={`Add the model ${id}`}
                      data-testid="test-model-add"
                    >
                      Add
                    </button>
                  ))}
              </li>
            ))}
          </ul>
        )}
        {result.models.length > SHOWN && (
          <button type="button" className="btn-link small" onClick={() => setAll((a) => !a)} style={{ alignSelf: "flex-start" }}>
            {all ? "Show fewer" : `Show all ${result.models.length}`}
          </button>
        )}
        {outcome.ok && !onAdd && result.models.length > 0 && (
          <span className="small">Save the provider, then add models from this list.</span>
        )}
      </div>
    </div>
  );
}
