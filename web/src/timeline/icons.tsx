// Transport icons as inline SVG (no icon font, no glyphs the system may lack).

const PATHS: Record<string, string> = {
  first: 'M4 3h2.5v14H4z M17 3 7.5 10 17 17z',
  back: 'M15 3 5 10l10 7z',
  play: 'M5 3v14l12-7z',
  pause: 'M4.5 3h4v14h-4z M11.5 3h4v14h-4z',
  forward: 'M3 3l9 7-9 7z M13 3h3v14h-3z',
  last: 'M13.5 3H16v14h-2.5z M3 3l9.5 7L3 17z',
};

/** A 20×20 transport icon (decorative; the button carries the accessible name). */
export function Icon({ name }: { name: keyof typeof PATHS }) {
  return (
    <svg width="20" height="20" viewBox="0 0 20 20" aria-hidden="true" focusable="false">
      <path d={PATHS[name]} fill="currentColor" />
    </svg>
  );
}
