"use client";
// One editable row of the price table: a saved model's prices, or the row
// that adds a model. Errors show under the field they are about.
import { useState, type KeyboardEvent } from "react";
import { TRPCClientError } from "@trpc/client";
import { FieldError } from "@/components/ui";
import { errorMessage } from "@/lib/errors";
import { formatRelative } from "@/lib/format";
import {
  EMPTY_DRAFT,
  PRICE_FIELDS,
  draftErrors,
  draftOf,
  isDirty,
  serverErrors,
  toPriceInput,
  type DraftErrors,
  type DraftField,
  type PriceDraft,
} from "@/lib/price-draft";
import { trpc, type RouterOutputs } from "@/lib/trpc";
import styles from "./prices.module.css";

export type PriceView = RouterOutputs["prices"]["list"]["prices"][number];

function useSavePrice(onSaved: () => void) {
  const utils = trpc.useUtils();
  const [errors, setErrors] = useState<DraftErrors>({});
  const [other, setOther] = useState<string | null>(null);
  const set = trpc.prices.set.useMutation({
    onSuccess: () => {
      setErrors({});
      setOther(null);
      onSaved();
      void utils.prices.list.invalidate();
      void utils.costs.summary.invalidate();
    },
    onError: (err) => {
      const issues =
        err instanceof TRPCClientError
          ? (err.data as { issues?: Array<{ path: string; message: string }> } | undefined)?.issues
          : undefined;
      const mapped = serverErrors(issues, errorMessage(err));
      setErrors(mapped.fields);
      setOther(mapped.other);
    },
  });
  function save(draft: PriceDraft) {
    const local = draftErrors(draft);
    setErrors(local);
    setOther(null);
    if (Object.keys(local).length === 0) set.mutate(toPriceInput(draft));
  }
  return { save, errors, other, busy: set.isPending, clear: (field: DraftField) => setErrors((e) => ({ ...e, [field]: undefined })) };
}

function PriceInputs({
  draft,
  errors,
  model,
  onChange,
  onEnter,
}: {
  draft: PriceDraft;
  errors: DraftErrors;
  model: string;
  onChange(field: DraftField, value: string): void;
  onEnter(): void;
}) {
  const onKey = (e: KeyboardEvent) => {
    if (e.key === "Enter") {
      e.preventDefault();
      onEnter();
    }
  };
  return (
    <>
      {PRICE_FIELDS.map((f) => (
        <td key={f.key} className={styles.num}>
          <input
            className={`input ${styles.priceInput}`}
            inputMode="decimal"
            placeholder={f.required ? "" : "0"}
            value={draft[f.key]}
            onChange={(e) => onChange(f.key, e.target.value)}
            onKeyDown={onKey}
            aria-label={`${f.label} price per 1M tokens${model ? ` for ${model}` : ""}`}
            aria-invalid={errors[f.key] ? true : undefined}
            data-testid={`price-${f.key}`}
          />
          {errors[f.key] && <FieldError message={errors[f.key]} testId="price-field-error" block />}
        </td>
      ))}
    </>
  );
}

/** A saved price: edit its four prices and save, or delete it. */
export function PriceRow({ price, onDelete }: { price: PriceView; onDelete(price: PriceView): void }) {
  const [draft, setDraft] = useState<PriceDraft>(() => draftOf(price));
  const [savedAt, setSavedAt] = useState<number | null>(null);
  const { save, errors, other, busy, clear } = useSavePrice(() => setSavedAt(Date.now()));
  const dirty = isDirty(draft, price);
  const change = (field: DraftField, value: string) => {
    setDraft((d) => ({ ...d, [field]: value }));
    setSavedAt(null);
    clear(field);
  };
  // A save elsewhere (another admin, another tab) shows once this row has no edits of its own.
  const version = new Date(price.updatedAt).getTime();
  const [seen, setSeen] = useState(version);
  if (version !== seen) {
    setSeen(version);
    if (!dirty) setDraft(draftOf(price));
  }
  return (
    <tr data-testid="price-row" data-model={price.model}>
      <td>
        <code className={styles.model}>{price.model}</code>
        <FieldError message={other} live block />
      </td>
      <PriceInputs draft={draft} errors={errors} model={price.model} onChange={change} onEnter={() => dirty && save(draft)} />
      <td className="small muted nowrap" title={price.updatedBy ? `by ${price.updatedBy.name}` : undefined}>
        {formatRelative(price.updatedAt)}
        {price.updatedBy && <div>{price.updatedBy.name}</div>}
      </td>
      <td className={styles.actions}>
        {savedAt && !dirty && (
          <span className="small" style={{ color: "var(--green)" }} data-testid="price-saved">
            Saved
          </span>
        )}
        <button
          type="button"
          className="btn btn-primary btn-sm"
          disabled={!dirty || busy}
          onClick={() => save(draft)}
          data-testid="price-save"
        >
          {busy && <span className="spinner" aria-hidden="true" />}
          Save
        </button>
        {dirty && (
          <button type="button" className="btn btn-ghost btn-sm" onClick={() => setDraft(draftOf(price))}>
            Undo
          </button>
        )}
        <button
          type="button"
          className="btn btn-danger btn-sm"
          onClick={() => onDelete(price)}
          data-testid="price-delete"
          aria-label={`Delete the price of ${price.model}`}
        >
          Delete
        </button>
      </td>
    </tr>
  );
}

/** The last row: a new model and its prices. `prefill` puts a model name in (from the unpriced list). */
export function NewPriceRow({ prefill }: { prefill: { model: string; at: number } | null }) {
  const [draft, setDraft] = useState<PriceDraft>(EMPTY_DRAFT);
  const [added, setAdded] = useState<string | null>(null);
  const { save, errors, other, busy, clear } = useSavePrice(() => {
    setAdded(draft.model.trim());
    setDraft(EMPTY_DRAFT);
  });
  const [seenPrefill, setSeenPrefill] = useState(prefill?.at);
  if (prefill && prefill.at !== seenPrefill) {
    setSeenPrefill(prefill.at);
    setDraft((d) => ({ ...d, model: prefill.model }));
  }
  const change = (field: DraftField, value: string) => {
    setDraft((d) => ({ ...d, [field]: value }));
    setAdded(null);
    clear(field);
  };
  return (
    <tr data-testid="price-new-row" className={styles.newRow}>
      <td>
        <input
          className={`input ${styles.modelInput}`}
          placeholder="provider/model, e.g. openai/gpt-4.1"
          value={draft.model}
          onChange={(e) => change("model", e.target.value)}
          onKeyDown={(e) => e.key === "Enter" && (e.preventDefault(), save(draft))}
          aria-label="Model"
          aria-invalid={errors.model ? true : undefined}
          data-testid="price-model"
          spellCheck={false}
        />
        <FieldError message={errors.model} testId="price-field-error" block />
        <FieldError message={other} live block />
      </td>
      <PriceInputs draft={draft} errors={errors} model="" onChange={change} onEnter={() => save(draft)} />
      <td className="small muted">
        {added && (
          <span style={{ color: "var(--green)" }} data-testid="price-added">
            Added {added}
          </span>
        )}
      </td>
      <td className={styles.actions}>
        <button type="button" className="btn btn-primary btn-sm" disabled={busy} onClick={() => save(draft)} data-testid="price-add">
          {busy && <span className="spinner" aria-hidden="true" />}
          Add price
        </button>
      </td>
    </tr>
  );
}
