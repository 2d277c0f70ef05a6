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
