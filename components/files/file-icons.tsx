// Small inline icons of the Files tab (no icon font or CDN).
const common = { width: 14, height: 14, viewBox: "0 0 16 16", "aria-hidden": true, fill: "currentColor" } as const;

export function ChevronIcon({ open }: { open: boolean }) {
  return (
    <svg {...common} width={12} height={12} style={{ transform: open ? "rotate(90deg)" : undefined, transition: "transform 0.1s" }}>
      <path d="M6 3.5 10.5 8 6 12.5" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}

export function FolderIcon({ open }: { open: boolean }) {
  return open ? (
    <svg {...common}>
      <path d="M1.5 4.2c0-.7.6-1.2 1.2-1.2h3.4l1.4 1.5h5.3c.7 0 1.2.5 1.2 1.2V6H4.2L1.5 12.2z" opacity=".55" />
      <path d="M3.9 6.6h10.9l-2.3 6.2H1.4z" />
    </svg>
  ) : (
    <svg {...common}>
      <path d="M1.5 4.2c0-.7.6-1.2 1.2-1.2h3.4l1.4 1.5h5.8c.7 0 1.2.5 1.2 1.2v6.6c0 .7-.5 1.2-1.2 1.2H2.7c-.7 0-1.2-.5-1.2-1.2z" />
    </svg>
  );
}

export function FileIcon() {
  return (
    <svg {...common}>
      <path
        d="M4 1.5h5.2L13 5.3v8.2c0 .6-.4 1-1 1H4c-.6 0-1-.4-1-1v-11c0-.6.4-1 1-1z"
        fill="none"
        stroke="currentColor"
        strokeWidth="1.2"
      />
      <path d="M9 1.8V5.5h3.7" fill="none" stroke="currentColor" strokeWidth="1.2" />
    </svg>
  );
}

export function DownloadIcon() {
  return (
    <svg {...common}>
      <path
        d="M8 2v8M4.5 6.8 8 10.3l3.5-3.5M2.5 13.5h11"
        fill="none"
        stroke="currentColor"
        strokeWidth="1.6"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
    </svg>
  );
}

export function RefreshIcon() {
  return (
    <svg {...common}>
      <path
        d="M13 8a5 5 0 1 1-1.5-3.6M13 2.5v2.8h-2.8"
        fill="none"
        stroke="currentColor"
        strokeWidth="1.6"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
    </svg>
  );
}
