// Facts about this build of the lab, fixed when it was built (vite.config.ts `define`).

declare const __MMVIZ_BUILD__: string;
declare const __MMVIZ_PUBLIC_URL__: string;

/** The build's id: the commit it was built from and the day (e.g. "c4a2f5b 2026-11-27"), or "dev". */
export const BUILD_ID: string = typeof __MMVIZ_BUILD__ === 'string' ? __MMVIZ_BUILD__ : 'dev';

/** Where the lab is published (MMVIZ_PUBLIC_URL at build time), or '' when the build was not told. */
export const PUBLIC_URL: string = typeof __MMVIZ_PUBLIC_URL__ === 'string' ? __MMVIZ_PUBLIC_URL__ : '';

/** The address links should use: the public URL the build was given, else the page's own. */
export function linkBase(location: { origin: string; pathname: string; href: string }): string {
  if (PUBLIC_URL !== '') return PUBLIC_URL.endsWith('/') || PUBLIC_URL.includes('.htm') ? PUBLIC_URL : `${PUBLIC_URL}/`;
  return location.origin + location.pathname;
}

/** Whether links to `base` reach only this machine (a mail recipient could not open them). */
export function isLocalBase(base: string): boolean {
  try {
    const host = new URL(base).hostname;
    return host === 'localhost' || host === '127.0.0.1' || host === '[::1]' || host.endsWith('.localhost');
  } catch {
    return false;
  }
}
