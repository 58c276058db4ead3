/**
 * True for paths the API or the identity provider answers; everything else is the console
 * (static files and the SPA fallback). Takes a URL with or without its query string.
 */
export function isApiOrProviderPath(url: string): boolean {
  const pathname = url.split('?')[0] ?? '/';
  return pathname === '/api' || pathname.startsWith('/api/') || pathname.startsWith('/oidc');
}
