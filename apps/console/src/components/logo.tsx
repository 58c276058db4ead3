import { LOGO_WIDTH } from '../lib/constants.ts';

/** The Atrium mark: an open courtyard seen from above. */
export function LogoMark({ size = 28 }: { size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 32 32" aria-hidden="true" focusable="false">
      <rect width="32" height="32" rx="8" fill="#4f46e5" />
      <path d="M8 24V13.5L16 8l8 5.5V24h-5v-6.5h-6V24z" fill="#fff" />
      <rect x="14.25" y="12" width="3.5" height="3.5" rx="1" fill="#a5b4fc" />
    </svg>
  );
}

/** The header logo: mark and wordmark, 180 px wide. */
export function Logo({ width = LOGO_WIDTH }: { width?: number }) {
  return (
    <svg
      width={width}
      height={Math.round((width * 32) / 180)}
      viewBox="0 0 180 32"
      role="img"
      aria-label="Atrium"
      className="atrium-logo"
    >
      <rect width="32" height="32" rx="8" fill="#4f46e5" />
      <path d="M8 24V13.5L16 8l8 5.5V24h-5v-6.5h-6V24z" fill="#fff" />
      <rect x="14.25" y="12" width="3.5" height="3.5" rx="1" fill="#a5b4fc" />
      <text
        x="42"
        y="23"
        fill="currentColor"
        fontFamily="system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"
        fontSize="21"
        fontWeight="700"
        letterSpacing="-0.3"
      >
        Atrium
      </text>
    </svg>
  );
}
