import { createHash } from 'node:crypto';
import type { KoaContextWithOIDC } from 'oidc-provider';

/**
 * The provider's own HTML pages (errors, sign-out). Helmet's CSP allows no inline script or
 * style, so these pages carry none, except the sign-out auto-submit whose hash is added to
 * this response's script-src (as the provider does for its form_post pages).
 */

const escape = (value: unknown) => String(value ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, body: string, script?: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)} · Atrium</title>
${script ? `<script>${script}</script>` : ''}
</head>
<body>
<main>
<h1>${escape(title)}</h1>
${body}
</main>
</body>
</html>`;
}

function allowInlineScript(ctx: KoaContextWithOIDC, script: string): void {
  const csp = ctx.response.get('content-security-policy');
  if (!csp) return;
  const hash = `'sha256-${createHash('sha256').update(script).digest('base64')}'`;
  ctx.set('content-security-policy', csp.replace(/script-src ([^;]*)/, `script-src $1 ${hash}`));
}

/**
 * Sign-out confirmation. The console's sign-out sends a valid id_token_hint and has already
 * ended the console session, so that page submits itself; without a hint the user confirms.
 */
export async function logoutSource(ctx: KoaContextWithOIDC, form: string): Promise<void> {
  if (ctx.oidc.params?.id_token_hint) {
    const script = `document.addEventListener('DOMContentLoaded',function(){var f=document.getElementById('op.logoutForm');var i=document.createElement('input');i.type='hidden';i.name='logout';i.value='yes';f.appendChild(i);f.submit();});`;
    allowInlineScript(ctx, script);
    ctx.body = page(
      'Signing out…',
      `${form}<noscript><button type="submit" form="op.logoutForm" name="logout" value="yes">Sign out</button></noscript>`,
      script,
    );
    return;
  }
  ctx.body = page(
    'Sign out of Atrium?',
    `${form}<p>You will be signed out of Atrium and every app you opened with it.</p>
<button autofocus type="submit" form="op.logoutForm" name="logout" value="yes">Yes, sign me out</button>
<button type="submit" form="op.logoutForm">No, stay signed in</button>`,
  );
}

export async function postLogoutSuccessSource(ctx: KoaContextWithOIDC): Promise<void> {
  ctx.body = page('You are signed out', `<p><a href="/login">Sign in again</a></p>`);
}

export async function renderError(
  ctx: KoaContextWithOIDC,
  out: { error: string; error_description?: string },
): Promise<void> {
  ctx.type = 'html';
  ctx.body = errorPage(out);
}

/** The provider's error page; also sent by the guard in front of it (mount.ts). */
export function errorPage(out: { error: string; error_description?: string }): string {
  return page(
    'Sign-in could not continue',
    `<p>${escape(out.error_description ?? out.error)}</p>
<p>Error code: <code>${escape(out.error)}</code></p>
<p><a href="/">Go back to Atrium</a></p>`,
  );
}
