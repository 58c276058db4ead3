import type { CatalogTemplate } from './catalog.ts';

/*
 * The built-in catalog (docs/app-catalog.md). Placeholders:
 * - launchUrl / redirectUris / postLogoutRedirectUris: `{siteUrl}` (the organisation's site) and
 *   `{launchUrl}` (what the admin entered, without a trailing slash);
 * - configSnippet: `{issuer}`, `{discoveryUrl}`, `{clientId}`, `{clientSecret}`, `{redirectUri}`,
 *   `{postLogoutRedirectUri}`, `{backchannelLogoutUri}`, `{endSessionEndpoint}`, `{launchUrl}`, `{authorizationEndpoint}`, `{tokenEndpoint}`, `{userinfoEndpoint}`,
 *   and where devices reach mail, calendars and contacts (device-endpoints.ts): `{mailHost}`, `{imapPort}`, `{submissionPort}`, `{davUrl}`.
 * Snippets name each product's real OIDC settings so an admin can paste them as they are.
 */
export const BUILT_IN_TEMPLATES: CatalogTemplate[] = [
  {
    key: 'cloud-storage',
    title: 'Cloud Storage',
    description: "Files, sharing and sync on your organisation's own site.",
    image: '/apps/cloud-storage.svg',
    color: '#0ea5e9',
    launchUrl: '{siteUrl}',
    redirectUris: ['{launchUrl}/apps/user_oidc/code'],
    postLogoutRedirectUris: ['{launchUrl}/'],
    // Its OIDC client sends client_id and client_secret in the token request's body.
    tokenEndpointAuthMethod: 'client_secret_post',
    offlineAccess: true,
    requirePkce: true,
    setupInstructions: [
      'In Nextcloud, install the "OpenID Connect user backend" (user_oidc) app.',
      'Run the command below on the Nextcloud server (or add the provider under Administration settings → OpenID Connect).',
      'Users then see "Log in with Atrium" on the Nextcloud sign-in page.',
    ].join('\n'),
    configSnippet: {
      language: 'shell',
      template:
        'php occ user_oidc:provider Atrium \\\n' +
        '  --clientid="{clientId}" \\\n' +
        '  --clientsecret="{clientSecret}" \\\n' +
        '  --discoveryuri="{discoveryUrl}" \\\n' +
        '  --scope="openid email profile"',
    },
  },
  {
    key: 'mail',
    title: 'Mail',
    description: 'Webmail with single sign-on for everyone in your organisation.',
    image: '/apps/mail.svg',
    color: '#ef4444',
    launchUrl: '',
    // Roundcube's redirect URI is always its own address followed by this (rcmail_oauth.php).
    redirectUris: ['{launchUrl}/index.php/login/oauth'],
    postLogoutRedirectUris: ['{launchUrl}/'],
    // Roundcube sends client_id and client_secret in the token request's body.
    tokenEndpointAuthMethod: 'client_secret_post',
    offlineAccess: true,
    // Debian 12's Roundcube (1.6) sends no PKCE and has no setting for it (oidc/pkce-policy.ts).
    requirePkce: false,
    setupInstructions: [
      'In Roundcube (Debian: apt-get install roundcube), add the settings below to /etc/roundcube/config.inc.php.',
      'The redirect URI is your webmail address followed by /index.php/login/oauth.',
      'Roundcube signs in to Dovecot and to Postfix submission with the access token (XOAUTH2);',
      'use tls:// when Dovecot and Postfix have TLS (mail-config --tls-cert), as they must off loopback.',
    ].join('\n'),
    configSnippet: {
      language: 'php',
      template: [
        "$config['oauth_provider'] = 'generic';",
        "$config['oauth_provider_name'] = 'Atrium';",
        "$config['oauth_client_id'] = '{clientId}';",
        "$config['oauth_client_secret'] = '{clientSecret}';",
        "$config['oauth_auth_uri'] = '{authorizationEndpoint}';",
        "$config['oauth_token_uri'] = '{tokenEndpoint}';",
        "$config['oauth_identity_uri'] = '{userinfoEndpoint}';",
        // email: Dovecot accepts a token only with the user's address in it (introspection).
        // No offline_access: Roundcube still gets a refresh token for the hour-long access token,
        // but one that ends with the user's Atrium session, so signing out of Atrium ends webmail.
        "$config['oauth_scope'] = 'openid email profile';",
        "$config['oauth_identity_fields'] = ['email'];",
        "$config['oauth_login_redirect'] = true;",
        "$config['imap_host'] = 'tls://{mailHost}:143';",
        "$config['smtp_host'] = 'tls://{mailHost}:587';",
      ].join('\n'),
    },
  },
  {
    key: 'chat',
    title: 'Chat',
    description: 'Team channels and direct messages.',
    image: '/apps/chat.svg',
    color: '#8b5cf6',
    launchUrl: '',
    redirectUris: ['{launchUrl}/_oauth/atrium'],
    postLogoutRedirectUris: ['{launchUrl}/'],
    // Its OIDC client sends client_id and client_secret in the token request's body.
    tokenEndpointAuthMethod: 'client_secret_post',
    offlineAccess: true,
    requirePkce: true,
    setupInstructions: [
      'In Rocket.Chat, open Administration → Settings → OAuth → Add custom OAuth and name it "atrium".',
      'Fill in the fields with the values below, set "Login style" to Redirect, and enable it.',
    ].join('\n'),
    configSnippet: {
      language: 'text',
      template: [
        'URL:            {issuer}',
        'Token Path:     {tokenEndpoint}',
        'Identity Path:  {userinfoEndpoint}',
        'Authorize Path: {authorizationEndpoint}',
        'Scope:          openid email profile',
        'Id:             {clientId}',
        'Secret:         {clientSecret}',
        'Username field: email',
        'Token Sent Via: Payload',
      ].join('\n'),
    },
  },
  {
    key: 'office',
    title: 'Office',
    description: 'Documents, spreadsheets and presentations in the browser.',
    image: '/apps/office.svg',
    color: '#f97316',
    launchUrl: '',
    redirectUris: ['{launchUrl}/oauth2/callback'],
    postLogoutRedirectUris: ['{launchUrl}/'],
    tokenEndpointAuthMethod: 'client_secret_basic',
    offlineAccess: true,
    requirePkce: true,
    setupInstructions: [
      "In your office suite's authentication settings, choose OpenID Connect and enable discovery.",
      'Paste the discovery URL, client ID and client secret below; request the scopes openid, email and profile.',
    ].join('\n'),
    configSnippet: {
      language: 'env',
      template: [
        'OIDC_DISCOVERY_URL={discoveryUrl}',
        'OIDC_CLIENT_ID={clientId}',
        'OIDC_CLIENT_SECRET={clientSecret}',
        'OIDC_REDIRECT_URI={redirectUri}',
        'OIDC_SCOPES="openid email profile"',
      ].join('\n'),
    },
  },
  {
    key: 'wiki',
    title: 'Wiki',
    description: "Your organisation's shared knowledge base.",
    image: '/apps/wiki.svg',
    color: '#10b981',
    launchUrl: '',
    redirectUris: ['{launchUrl}/oidc/callback'],
    postLogoutRedirectUris: ['{launchUrl}/'],
    // Its OIDC client sends client_id and client_secret in the token request's body.
    tokenEndpointAuthMethod: 'client_secret_post',
    offlineAccess: true,
    requirePkce: true,
    setupInstructions: [
      "Add the lines below to BookStack's .env file and restart it.",
      'The redirect URI is your wiki address followed by /oidc/callback.',
    ].join('\n'),
    configSnippet: {
      language: 'env',
      template: [
        'AUTH_METHOD=oidc',
        'OIDC_NAME=Atrium',
        'OIDC_DISPLAY_NAME_CLAIMS=name',
        'OIDC_CLIENT_ID={clientId}',
        'OIDC_CLIENT_SECRET={clientSecret}',
        'OIDC_ISSUER={issuer}',
        'OIDC_ISSUER_DISCOVER=true',
      ].join('\n'),
    },
  },
  {
    key: 'project-management',
    title: 'Project Management',
    description: 'Projects, tasks, boards and timelines.',
    image: '/apps/project-management.svg',
    color: '#6366f1',
    launchUrl: '',
    redirectUris: ['{launchUrl}/auth/oidc-atrium/callback'],
    postLogoutRedirectUris: ['{launchUrl}/'],
    tokenEndpointAuthMethod: 'client_secret_basic',
    offlineAccess: true,
    requirePkce: true,
    setupInstructions: [
      'In OpenProject, open Administration → Authentication → OpenID providers → Custom and name it "atrium".',
      'Enable discovery with the URL below and enter the client ID and secret.',
    ].join('\n'),
    configSnippet: {
      language: 'env',
      template: [
        'OPENPROJECT_OPENID__CONNECT_ATRIUM_DISPLAY__NAME=Atrium',
        'OPENPROJECT_OPENID__CONNECT_ATRIUM_ISSUER={issuer}',
        'OPENPROJECT_OPENID__CONNECT_ATRIUM_IDENTIFIER={clientId}',
        'OPENPROJECT_OPENID__CONNECT_ATRIUM_SECRET={clientSecret}',
        'OPENPROJECT_OPENID__CONNECT_ATRIUM_AUTHORIZATION__ENDPOINT={authorizationEndpoint}',
        'OPENPROJECT_OPENID__CONNECT_ATRIUM_TOKEN__ENDPOINT={tokenEndpoint}',
        'OPENPROJECT_OPENID__CONNECT_ATRIUM_USERINFO__ENDPOINT={userinfoEndpoint}',
      ].join('\n'),
    },
  },
  {
    key: 'calendar-contacts',
    title: 'Calendar & Contacts',
    description: 'Everyone gets calendars and contacts on their phones and computers; nothing to install.',
    image: '/apps/calendar-contacts.svg',
    color: '#0d9488',
    launchUrl: '',
    redirectUris: ['{launchUrl}/oidc/callback'],
    postLogoutRedirectUris: ['{launchUrl}/'],
    tokenEndpointAuthMethod: 'client_secret_basic',
    offlineAccess: true,
    requirePkce: true,
    // Plain words for the admin: calendars and contacts are built in (CalDAV/CardDAV, docs/devices.md).
    // Installing the entry is only for a web calendar that signs people in with Atrium; the console
    // keeps that and this snippet's OIDC values under "Advanced" (features/apps, built-in-calendar).
    setupInstructions: [
      'Everyone in your organisation already has calendars and contacts; there is nothing to install.',
      'Each person opens Profile → Set up a device, chooses their phone or computer and follows the steps there; their calendars, contacts and mail then appear on it.',
      'Removing a device in Profile signs it out of calendars, contacts and mail.',
    ].join('\n'),
    configSnippet: {
      language: 'env',
      template: [
        'CALDAV_URL={davUrl}',
        'CARDDAV_URL={davUrl}',
        '# Devices: user name the e-mail address, password an app password (Profile → Set up a device)',
        'IMAP={mailHost}:{imapPort} (TLS)',
        'SMTP={mailHost}:{submissionPort} (STARTTLS)',
        '# A web calendar signing people in with Atrium:',
        'OIDC_ISSUER={issuer}',
        'OIDC_CLIENT_ID={clientId}',
        'OIDC_CLIENT_SECRET={clientSecret}',
        'OIDC_REDIRECT_URI={redirectUri}',
        'OIDC_SCOPES="openid email profile"',
      ].join('\n'),
    },
  },
  {
    key: 'custom',
    title: 'Custom OIDC App',
    description: 'Any app that signs users in with OpenID Connect.',
    image: '/apps/custom.svg',
    color: '#64748b',
    launchUrl: '',
    redirectUris: [],
    postLogoutRedirectUris: ['{launchUrl}/'],
    tokenEndpointAuthMethod: 'client_secret_basic',
    offlineAccess: true,
    requirePkce: true,
    setupInstructions: [
      'In your app\'s OpenID Connect (or "OAuth 2.0 / generic OIDC") settings, use the values below.',
      'Use the authorization code flow with PKCE, and the client authentication method client_secret_basic.',
    ].join('\n'),
    configSnippet: {
      language: 'env',
      template: [
        'OIDC_ISSUER={issuer}',
        'OIDC_DISCOVERY_URL={discoveryUrl}',
        'OIDC_CLIENT_ID={clientId}',
        'OIDC_CLIENT_SECRET={clientSecret}',
        'OIDC_REDIRECT_URI={redirectUri}',
        'OIDC_POST_LOGOUT_REDIRECT_URI={postLogoutRedirectUri}',
        'OIDC_END_SESSION_ENDPOINT={endSessionEndpoint}',
        // Empty unless the admin set one: the app's endpoint for logout tokens.
        'OIDC_BACKCHANNEL_LOGOUT_URI={backchannelLogoutUri}',
        'OIDC_SCOPES="openid email profile"',
      ].join('\n'),
    },
  },
];
