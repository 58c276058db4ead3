/**
 * Every e-mail Atrium sends is described once as structured content and rendered here to a
 * plain-text part and an HTML part, so the two always say the same thing. The HTML is a
 * single-column table with inline styles only: what mail clients (Outlook included) render
 * alike. Every value is escaped, and text is never turned into links: only the button and the
 * closing link are, and their addresses must be http(s).
 */
export interface EmailContent {
  subject: string;
  /** Whose message it is: the recipient's organisation (for a sign-up code, the one being created). */
  organizationName: string;
  heading: string;
  paragraphs: string[];
  /** A one-time code, shown large (and alone on its line in the text part). */
  code?: string;
  /** The one action; in the text part, the label then the address on a line of its own. */
  button?: { label: string; url: string };
  /** Facts as label / value pairs (when, browser, IP address…). */
  details?: Array<{ label: string; value: string }>;
  /** Paragraphs after the code, button and details: what to do if this was not you. */
  notes?: string[];
  /** A plain link after the notes ("Sign in at: …"), for messages whose action is not a button. */
  closingLink?: { label: string; url: string };
  footer: string;
}

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

const FONT = "-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";
const INK = '#1f2933';
const MUTED = '#52606d';
const LINE = '#e4e7eb';
const ACCENT = '#0d6efd';

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The address, unchanged, when it is http(s); anything else (javascript:, data:…) is a bug. */
export function safeLink(url: string): string {
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new Error(`An e-mail link must be http(s), not ${parsed.protocol}`);
  }
  return parsed.href;
}

/** "2026-11-23 14:05 UTC": the same for every reader, whatever their time zone. */
export function utcTime(date: Date): string {
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function renderEmail(content: EmailContent): RenderedEmail {
  const checked: EmailContent = {
    ...content,
    button: content.button && { label: content.button.label, url: safeLink(content.button.url) },
    closingLink: content.closingLink && {
      label: content.closingLink.label,
      url: safeLink(content.closingLink.url),
    },
  };
  return { subject: content.subject, text: renderText(checked), html: renderHtml(checked) };
}

function renderText(content: EmailContent): string {
  const { button, closingLink } = content;
  const blocks: string[] = [content.organizationName, content.heading, ...content.paragraphs];
  if (content.code) blocks.push(`    ${content.code}`);
  if (button) blocks.push(`${button.label}:\n${button.url}`);
  if (content.details?.length) {
    const width = Math.max(...content.details.map((d) => d.label.length)) + 2;
    blocks.push(content.details.map((d) => `${`${d.label}:`.padEnd(width)}${d.value}`).join('\n'));
  }
  blocks.push(...(content.notes ?? []));
  if (closingLink) blocks.push(`${closingLink.label}:\n${closingLink.url}`);
  // "-- " is the signature separator mail clients recognise.
  blocks.push(`-- \n${content.footer}`);
  return `${blocks.join('\n\n')}\n`;
}

const paragraph = (text: string, style = '') =>
  `<p style="margin:0 0 16px;font:16px/1.5 ${FONT};color:${INK};${style}">${escapeHtml(text)}</p>`;

function renderHtml(content: EmailContent): string {
  const { button, closingLink } = content;
  const body: string[] = [
    `<h1 style="margin:0 0 20px;font:600 22px/1.3 ${FONT};color:${INK}">${escapeHtml(content.heading)}</h1>`,
    ...content.paragraphs.map((p) => paragraph(p)),
  ];
  if (content.code) {
    body.push(
      `<p style="margin:8px 0 24px;font:600 32px/1.2 Menlo,Consolas,'Courier New',monospace;letter-spacing:8px;color:${INK}">${escapeHtml(content.code)}</p>`,
    );
  }
  if (button) {
    const href = escapeHtml(button.url);
    body.push(
      `<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="margin:8px 0 16px"><tr>` +
        `<td style="border-radius:6px;background:${ACCENT}">` +
        `<a href="${href}" style="display:inline-block;padding:12px 24px;font:600 16px/1.2 ${FONT};color:#ffffff;text-decoration:none;border-radius:6px">${escapeHtml(button.label)}</a>` +
        `</td></tr></table>`,
      `<p style="margin:0 0 16px;font:13px/1.5 ${FONT};color:${MUTED};word-break:break-all">If the button does not work, open this address: <a href="${href}" style="color:${ACCENT}">${href}</a></p>`,
    );
  }
  if (content.details?.length) {
    const rows = content.details
      .map(
        (d) =>
          `<tr><td style="padding:8px 12px;font:14px/1.4 ${FONT};color:${MUTED};white-space:nowrap;vertical-align:top">${escapeHtml(d.label)}</td>` +
          `<td style="padding:8px 12px;font:14px/1.4 ${FONT};color:${INK};word-break:break-word">${escapeHtml(d.value)}</td></tr>`,
      )
      .join('');
    body.push(
      `<table role="presentation" cellpadding="0" cellspacing="0" border="0" width="100%" style="margin:0 0 16px;background:#f5f7fa;border-radius:6px">${rows}</table>`,
    );
  }
  body.push(...(content.notes ?? []).map((p) => paragraph(p, `color:${MUTED}`)));
  if (closingLink) {
    const href = escapeHtml(closingLink.url);
    body.push(
      `<p style="margin:0 0 16px;font:16px/1.5 ${FONT};color:${INK};word-break:break-all">${escapeHtml(closingLink.label)}: <a href="${href}" style="color:${ACCENT}">${href}</a></p>`,
    );
  }

  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<title>${escapeHtml(content.subject)}</title>
</head>
<body style="margin:0;padding:0;background:#f4f5f7">
<table role="presentation" cellpadding="0" cellspacing="0" border="0" width="100%" style="background:#f4f5f7">
<tr><td align="center" style="padding:24px 12px">
<table role="presentation" cellpadding="0" cellspacing="0" border="0" width="100%" style="max-width:560px;background:#ffffff;border:1px solid ${LINE};border-radius:8px">
<tr><td style="padding:16px 28px;border-bottom:1px solid ${LINE};font:600 15px/1.4 ${FONT};color:${MUTED}">${escapeHtml(content.organizationName)}</td></tr>
<tr><td style="padding:28px 28px 12px">
${body.join('\n')}
</td></tr>
<tr><td style="padding:16px 28px;border-top:1px solid ${LINE};font:13px/1.5 ${FONT};color:${MUTED}">${escapeHtml(content.footer)}</td></tr>
</table>
</td></tr>
</table>
</body>
</html>
`;
}
