/** How the app's own address shows in hints before the admin enters it. */
export const APP_HOST_HINT = 'https://<your-host>';

/** The template's URIs as hints: `{launchUrl}` shown as the app's address to come. */
export function urlHints(templates: string[]): string[] {
  return templates.map((template) => template.replaceAll('{launchUrl}', APP_HOST_HINT));
}
