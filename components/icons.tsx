// Small inline icons (no icon font or CDN: the machine may be offline).
const common = { width: 14, height: 14, viewBox: "0 0 16 16", "aria-hidden": true, fill: "currentColor" } as const;

export function PauseIcon() {
  return (
    <svg {...common}>
      <rect x="3" y="2" width="3.5" height="12" rx="1" />
      <rect x="9.5" y="2" width="3.5" height="12" rx="1" />
    </svg>
  );
}

export function PlayIcon() {
  return (
    <svg {...common}>
      <path d="M4 2.5v11a.8.8 0 0 0 1.2.7l9-5.5a.8.8 0 0 0 0-1.4l-9-5.5A.8.8 0 0 0 4 2.5z" />
    </svg>
  );
}

export function StopIcon() {
  return (
    <svg {...common}>
      <rect x="3" y="3" width="10" height="10" rx="1.5" />
    </svg>
  );
}

/** A raised hand: the run waits for a person. */
export function HandIcon() {
  return (
    <svg {...common} fill="none" stroke="currentColor" strokeWidth="1.4" strokeLinecap="round" strokeLinejoin="round">
      <path d="M5.5 8V3.2a1 1 0 0 1 2 0V7.5M7.5 7V2.4a1 1 0 0 1 2 0V7.5M9.5 7.2V3.4a1 1 0 0 1 2 0v5.4c0 3-1.8 5.2-4.6 5.2-1.6 0-2.6-.7-3.5-2L2.2 9.6a1 1 0 0 1 1.6-1.2l1.7 1.8V5.2" />
    </svg>
  );
}

export function ClockIcon() {
  return (
    <svg {...common} width={12} height={12} fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round">
      <circle cx="8" cy="8" r="6.2" />
      <path d="M8 4.6V8l2.4 1.6" />
    </svg>
  );
}

export function LinkIcon() {
  return (
    <svg {...common} fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round">
      <path d="M6.8 9.2a2.6 2.6 0 0 0 3.7 0l2.3-2.3a2.6 2.6 0 0 0-3.7-3.7l-.9.9M9.2 6.8a2.6 2.6 0 0 0-3.7 0L3.2 9.1a2.6 2.6 0 0 0 3.7 3.7l.9-.9" />
    </svg>
  );
}

export function LockIcon() {
  return (
    <svg {...common}>
      <path d="M5 7V5a3 3 0 0 1 6 0v2h.5A1.5 1.5 0 0 1 13 8.5v5a1.5 1.5 0 0 1-1.5 1.5h-7A1.5 1.5 0 0 1 3 13.5v-5A1.5 1.5 0 0 1 4.5 7H5zm1.5 0h3V5a1.5 1.5 0 0 0-3 0v2z" />
    </svg>
  );
}

/** A branch: Fork from here. */
export function ForkIcon() {
  return (
    <svg {...common} width={12} height={12} fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round">
      <circle cx="4.5" cy="3" r="1.6" />
      <circle cx="4.5" cy="13" r="1.6" />
      <circle cx="11.5" cy="5" r="1.6" />
      <path d="M4.5 4.6v6.8M11.5 6.6c0 3-7 2.4-7 4.8" />
    </svg>
  );
}
