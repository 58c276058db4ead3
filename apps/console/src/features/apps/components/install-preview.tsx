import type { AppTemplate } from '@atrium/contracts/apps';
import { ConfigSnippet } from './config-snippet.tsx';
import { CopyField } from '../../../components/copy-button.tsx';
import { SetupInstructions } from './setup-instructions.tsx';
import { urlHints } from './url-hints.ts';

/**
 * Before installing: the same setup steps and settings the installed app's page shows, so the
 * admin can prepare the app; the client ID and secret are made by installing.
 */
export function InstallPreview({
  template,
  showInstructions = true,
}: {
  template: AppTemplate;
  /** false where the page already shows the steps (the built-in Calendar & Contacts). */
  showInstructions?: boolean;
}) {
  const redirectHints = urlHints(template.redirectUriTemplates);
  return (
    <section className="card atrium-card" aria-labelledby="install-preview-title">
      <div className="card-body">
        <h2 className="h6 mb-3" id="install-preview-title">
          Setting up {template.title}
        </h2>
        {showInstructions ? <SetupInstructions text={template.setupInstructions} /> : null}
        {redirectHints.length > 0 ? (
          <p className="small mb-3">
            {template.title} receives sign-ins at{' '}
            {redirectHints.map((hint, index) => (
              <span key={hint}>
                {index > 0 ? ' and ' : null}
                <code className="text-break">{hint}</code>
              </span>
            ))}
            , where <code>https://&lt;your-host&gt;</code> is the app&apos;s address (its launch URL).
          </p>
        ) : null}
        <CopyField id="install-issuer" label="Issuer" value={template.issuer} />
        <CopyField id="install-discovery" label="Discovery URL" value={template.discoveryUrl} />
        <CopyField
          id="install-client-auth"
          label="Client authentication"
          value={template.tokenEndpointAuthMethod}
        />
        <p className="form-text mt-n2 mb-3">
          The client ID and secret are made when you install; the secret is shown once, then.
        </p>
        <ConfigSnippet
          id="install-snippet-label"
          snippet={template.configSnippet}
          language={template.configSnippetLanguage}
        />
      </div>
    </section>
  );
}
