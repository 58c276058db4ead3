import type { AppDetail } from '@atrium/contracts/apps';
import { ConfigSnippet } from './config-snippet.tsx';
import { CopyField } from '../../../components/copy-button.tsx';
import { SetupInstructions } from './setup-instructions.tsx';

/** What the app's OIDC settings need: client id, issuer, discovery URL and a ready snippet. */
export function AppConnection({ app }: { app: AppDetail }) {
  return (
    <div className="card atrium-card mb-4">
      <div className="card-body">
        <h2 className="h6 mb-3">Single sign-on settings</h2>
        <SetupInstructions text={app.setupInstructions} />
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
        <ConfigSnippet
          id="app-snippet-label"
          snippet={app.configSnippet}
          language={app.configSnippetLanguage}
        />
      </div>
    </div>
  );
}
