"use client";
// Tabs as WAI-ARIA describes them (automatic activation): a tablist of tab
// buttons, arrow keys, Home and End move between them, only the selected one
// is in the Tab order; each tab may control a tabpanel. docs/development.md#ui-primitives
import { useRef, type CSSProperties, type KeyboardEvent, type ReactNode } from "react";

export interface TabItem<Id extends string = string> {
  id: Id;
  label: ReactNode;
  testId?: string;
  title?: string;
}

export function Tabs<Id extends string>({
  tabs,
  active,
  onSelect,
  label,
  tabId,
  panelId,
  className = "run-tabs",
  tabClassName = "run-tab",
  style,
}: {
  // The ids' type comes from `active`, so a state setter fits onSelect.
  tabs: readonly TabItem<NoInfer<Id>>[];
  active: Id;
  onSelect(id: NoInfer<Id>): void;
  /** What the tabs choose between, for screen readers ("Run views"). */
  label: string;
  /** The id of each tab button (its panel's aria-labelledby). */
  tabId?: (id: Id) => string;
  /** The id of the panel each tab controls. */
  panelId?: (id: Id) => string;
  className?: string;
  tabClassName?: string;
  style?: CSSProperties;
}) {
  const refs = useRef<Partial<Record<string, HTMLButtonElement | null>>>({});
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const n = tabs.length;
    const i = tabs.findIndex((t) => t.id === active);
    const next =
      e.key === "ArrowRight"
        ? tabs[(i + 1) % n]
        : e.key === "ArrowLeft"
          ? tabs[(i - 1 + n) % n]
          : e.key === "Home"
            ? tabs[0]
            : e.key === "End"
              ? tabs[n - 1]
              : null;
    if (!next) return;
    // Page-wide shortcuts must not also act on the key.
    e.preventDefault();
    e.stopPropagation();
    onSelect(next.id);
    refs.current[next.id]?.focus();
  };
  return (
    <div className={className} role="tablist" aria-label={label} style={style} onKeyDown={onKeyDown}>
      {tabs.map((t) => {
        const selected = t.id === active;
        return (
          <button
            key={t.id}
            ref={(el) => void (refs.current[t.id] = el)}
            type="button"
            role="tab"
            id={tabId?.(t.id)}
            aria-selected={selected}
            aria-controls={panelId?.(t.id)}
            tabIndex={selected ? 0 : -1}
            className={tabClassName}
            title={t.title}
            data-testid={t.testId}
            onClick={() => onSelect(t.id)}
          >
            {t.label}
          </button>
        );
      })}
    </div>
  );
}

/** The content of one tab; `labelledBy` is its tab button's id. */
export function TabPanel({
  id,
  labelledBy,
  hidden = false,
  className,
  testId,
  children,
}: {
  id?: string;
  labelledBy?: string;
  hidden?: boolean;
  className?: string;
  testId?: string;
  children: ReactNode;
}) {
  return (
    <div className={className} role="tabpanel" id={id} aria-labelledby={labelledBy} hidden={hidden} data-testid={testId}>
      {children}
    </div>
  );
}
