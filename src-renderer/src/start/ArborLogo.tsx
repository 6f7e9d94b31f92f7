/** Arbor's mark (resources/icon.svg): a root agent and its delegation tree. */
export function ArborLogo({ size = 56 }: { size?: number }) {
  return (
    <svg className="arbor-logo" width={size} height={size} viewBox="0 0 512 512" aria-hidden>
      <defs>
        <linearGradient id="arbor-logo-bg" x1="0" y1="0" x2="0" y2="1">
          <stop offset="0" stopColor="#24283b" />
          <stop offset="1" stopColor="#15161e" />
        </linearGradient>
        <radialGradient id="arbor-logo-glow" cx="0.5" cy="0.5" r="0.5">
          <stop offset="0" stopColor="#7aa2f7" stopOpacity="0.45" />
          <stop offset="1" stopColor="#7aa2f7" stopOpacity="0" />
        </radialGradient>
      </defs>
      <rect x="16" y="16" width="480" height="480" rx="108" fill="url(#arbor-logo-bg)" />
      <rect x="17.5" y="17.5" width="477" height="477" rx="106.5" fill="none" stroke="#7aa2f7" strokeOpacity="0.18" strokeWidth="3" />
      <g transform="translate(0 10)">
        <g fill="none" stroke="#7aa2f7" strokeWidth="14" strokeLinecap="round">
          <g opacity="0.7">
            <path d="M256 150 C256 215 140 205 140 262" />
            <path d="M256 150 L256 262" />
            <path d="M256 150 C256 215 372 205 372 262" />
          </g>
          <g opacity="0.4" strokeWidth="11">
            <path d="M140 286 L140 378" />
            <path d="M372 286 C372 335 318 330 318 378" />
            <path d="M372 286 C372 335 426 330 426 378" />
          </g>
        </g>
        <circle cx="256" cy="128" r="80" fill="url(#arbor-logo-glow)" />
        <circle cx="256" cy="128" r="40" fill="#7aa2f7" />
        <circle cx="256" cy="128" r="14" fill="#15161e" />
        <g fill="#1b1e2d" stroke="#7aa2f7" strokeWidth="12">
          <circle cx="140" cy="276" r="26" />
          <circle cx="256" cy="276" r="26" />
          <circle cx="372" cy="276" r="26" />
        </g>
        <g fill="#7aa2f7" fillOpacity="0.75">
          <circle cx="140" cy="390" r="19" />
          <circle cx="318" cy="390" r="19" />
          <circle cx="426" cy="390" r="19" />
        </g>
      </g>
    </svg>
  )
}
