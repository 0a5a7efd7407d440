import { createHash } from 'node:crypto';

/** The CSP source that allows one inline `<script>` or `<style>` whose text is exactly `text`. */
export const inlineSource = (text: string): string =>
  `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * The headers of an HTML page served to browsers: its Content-Security-Policy (`policy`, the
 * sources it needs), completed with what every page gets: no framing by any page
 * (`frame-ancestors 'none'`, and X-Frame-Options for browsers without it), no `<base>`, no plugins,
 * and no MIME sniffing.
 */
export function pageHeaders(policy: string): Record<string, string> {
  return {
    'content-security-policy': `${policy}; base-uri 'none'; object-src 'none'; frame-ancestors 'none'`,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
  };
}
