import type { AppDetail } from '@atrium/contracts/apps';
import { CopyButton, CopyField } from './copy-button.tsx';

/** Setup text from the catalog: one step per line. */
function Instructions({ text }: { text: string }) {
  const steps = text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  if (steps.length === 0) return null;
  return (
    <ol className="small ps-3 mb-3">
      {steps.map((step) => (
        <li key={step}>{step}</li>
      ))}
    </ol>
  );
}

/** What the app's OIDC settings need: client id, issuer, discovery URL and a ready snippet. */
export function AppConnection({ app }: { app: AppDetail }) {
  return (
    <div className="card atrium-card mb-4">
      <div className="card-body">
        <h2 className="h6 mb-3">Single sign-on settings</h2>
        <Instructions text={app.setupInstructions} />
        <CopyField id="app-client-id" label="Client ID" value={app.clientId} />
        <CopyField id="app-issuer" label="Issuer" value={app.issuer} />
        <CopyField id="app-discovery" label="Discovery URL" value={app.discoveryUrl} />
        <CopyField id="app-client-auth" label="Client authentication" value={app.tokenEndpointAuthMethod} />
        <p className="form-text mt-n2 mb-3">
          Atrium accepts the secret either way (client_secret_basic or client_secret_post); this is the one
          the app is set up with.
        </p>
        {app.postLogoutRedirectUris.length > 0 ? (
          <CopyField
            id="app-post-logout-uri"
            label="Post-logout redirect URI"
            value={app.postLogoutRedirectUris.join(' ')}
          />
        ) : null}
        {app.backchannelLogoutUri ? (
          <CopyField
            id="app-backchannel-logout-uri"
            label="Back-channel logout URI"
            value={app.backchannelLogoutUri}
          />
        ) : null}
        <div className="d-flex align-items-center justify-content-between mb-1">
          <span className="small fw-semibold" id="app-snippet-label">
            Configuration ({app.configSnippetLanguage})
          </span>
          <CopyButton value={app.configSnippet} label="Copy configuration" />
        </div>
        <pre
          className="atrium-snippet bg-body-tertiary border rounded p-3 small mb-0"
          // Wrapped rather than scrolled: a long line must not widen the page on a phone.
          style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}
          aria-labelledby="app-snippet-label"
          tabIndex={0}
        >
          <code>{app.configSnippet}</code>
        </pre>
      </div>
    </div>
  );
}
