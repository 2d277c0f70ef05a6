"use client";
// One tier in Settings › Tiers: switched on, warm pool, idle timeout, price,
// complexity threshold and whose consent entering it needs. A tier this
// server does not provide is shown as not available and cannot be changed.
import { FieldError } from "@/components/ui";
import {
  CONSENT_ROLES,
  POOLED_TIERS,
  draftEstimate,
  type TierDraftRow,
  type TierErrors,
  type TierField,
  type TierId,
} from "@/lib/tier-draft";
import { formatCost } from "@/lib/format";
import styles from "./tiers.module.css";

export interface TierInfo {
  id: TierId;
  name: string;
  offers: string;
  notBuilt: string | null;
  unavailable: string | null;
}

const CONSENT_WORDS: Record<string, string> = {
  "": "Nobody: the rules grant it",
  operator: "An operator",
  approver: "An approver",
  admin: "An admin",
};

export function TierRow({
  info,
  row,
  errors,
  onChange,
}: {
  info: TierInfo;
  row: TierDraftRow;
  errors: TierErrors;
  onChange(patch: Partial<TierDraftRow>): void;
}) {
  const { id } = info;
  const locked = !!info.notBuilt;
  const err = (f: TierField) => errors[`${id}.${f}`];
  const errId = (f: TierField) => `tier-${id}-${f}-error`;
  const input = (f: Exclude<TierField, "enabled" | "consentRole">, label: string, placeholder = "") => (
    <td>
      <input
        className={`input ${styles.small}`}
        inputMode="decimal"
        value={row[f]}
        placeholder={placeholder}
        disabled={locked}
        onChange={(e) => onChange({ [f]: e.target.value })}
        aria-label={`${id} ${label}`}
        aria-invalid={err(f) ? true : undefined}
        aria-describedby={err(f) ? errId(f) : undefined}
        data-testid={`tier-${id}-${f}`}
      />
      <FieldError id={errId(f)} message={err(f)} testId={errId(f)} block />
    </td>
  );
  // Nothing is computed from an impossible value: its error shows under the field instead.
  const estimate = draftEstimate(row);
  return (
    <tr className={locked ? styles.notBuilt : undefined} data-testid="tier-row" data-tier={id}>
      <td className={styles.tier}>
        <div className={styles.tierName}>
          {id} · {info.name}
        </div>
        <div className={styles.offers}>{info.offers}</div>
        {info.notBuilt ? (
          <span className="badge badge-outline" style={{ marginTop: 6 }} data-testid={`tier-${id}-not-built`}>
            Not available on this server
          </span>
        ) : info.unavailable ? (
          <div className={styles.unavailable} data-testid={`tier-${id}-unavailable`}>
            Unavailable now: {info.unavailable}
          </div>
        ) : null}
      </td>
      <td className={styles.check}>
        <input
          type="checkbox"
          checked={id === "T0" ? true : locked ? false : row.enabled}
          disabled={locked || id === "T0"}
          onChange={(e) => onChange({ enabled: e.target.checked })}
          aria-label={`${id} enabled`}
          title={id === "T0" ? "T0 is every run's floor; it cannot be off" : undefined}
          data-testid={`tier-${id}-enabled`}
        />
      </td>
      {POOLED_TIERS.includes(id) ? (
        input("poolSize", "warm pool size")
      ) : (
        <td className="muted small" style={{ paddingTop: 16 }}>
          —
        </td>
      )}
      {id === "T0" ? (
        <td className="muted small" style={{ paddingTop: 16 }}>
          —
        </td>
      ) : (
        input("idleTimeoutMin", "idle timeout in minutes", "never")
      )}
      {input("costPerHourUsd", "cost per hour in USD")}
      {input("threshold", "complexity threshold")}
      <td>
        {id === "T0" ? (
          <span className="muted small">—</span>
        ) : (
          <select
            className={`select ${styles.consent}`}
            value={row.consentRole}
            disabled={locked}
            onChange={(e) => onChange({ consentRole: e.target.value as TierDraftRow["consentRole"] })}
            aria-label={`${id} consent`}
            data-testid={`tier-${id}-consentRole`}
          >
            {["", ...CONSENT_ROLES].map((r) => (
              <option key={r} value={r}>
                {CONSENT_WORDS[r]}
              </option>
            ))}
          </select>
        )}
      </td>
      <td
        className={styles.estimate}
        title="An hour's price for at least the idle timeout (an hour when there is none); checked against the run's and the team's budget before a move"
        data-testid={`tier-${id}-estimate`}
      >
        {estimate === null ? "—" : formatCost(estimate)}
      </td>
    </tr>
  );
}
