import { interactionPolicy, type KoaContextWithOIDC } from 'oidc-provider';

/**
 * What the ID token says about how the user signed in (issue 17 item 7).
 *
 * `amr` uses RFC 8176's registered values, honestly:
 * - password + e-mailed code: `pwd` and `mca` (multiple-channel: the code came over e-mail, a
 *   second channel). Not `otp`, which RFC 8176 ties to HOTP/TOTP devices, and not `mfa`: the
 *   mailbox is often opened with the same password, and NIST SP 800-63B does not accept e-mail
 *   as an out-of-band authenticator.
 * - password + authenticator app: `pwd`, `otp`, `mfa`.
 * - password + recovery code: `pwd`, `mfa` (a look-up secret, which RFC 8176 has no value for).
 * - a passkey alone (user verification required): `hwk` or `swk`, `mfa` — the key held and the
 *   PIN or biometrics that unlock it. After the password: `pwd`, `hwk` or `swk`, `mfa`. A synced
 *   (backup-eligible) passkey can leave its device, so it is `swk`; a device-bound one is `hwk`.
 * - a sign-in ticket (right after sign-up, an invitation or a reset link: an e-mailed link and a
 *   password just set): `pwd`, `mca`, like the e-mailed code.
 * - the password alone from a browser the user trusted (issue 17 item 6): `pwd`, basic; an app
 *   asking for ACR_MFA is never answered from a trusted browser without the second factor.
 *
 * `acr` is one of two levels: ACR_BASIC for the first and last, ACR_MFA for the others. An app
 * that needs a strong sign-in sends `acr_values=urn:atrium:acr:mfa` (or asks for it in the claims
 * parameter); a session that is only basic is then asked to sign in again.
 */
export const ACR_BASIC = 'urn:atrium:acr:basic';
export const ACR_MFA = 'urn:atrium:acr:mfa';
export const ACR_VALUES = [ACR_BASIC, ACR_MFA];

export type SignInMethod =
  | 'email'
  | 'totp'
  | 'recovery'
  | 'ticket'
  | 'trusted'
  | `passkey:${'hwk' | 'swk'}`
  | `pwd+passkey:${'hwk' | 'swk'}`;

export function authenticationOf(method: SignInMethod): { amr: string[]; acr: string } {
  switch (method) {
    case 'totp':
      return { amr: ['pwd', 'otp', 'mfa'], acr: ACR_MFA };
    case 'recovery':
      return { amr: ['pwd', 'mfa'], acr: ACR_MFA };
    case 'email':
    case 'ticket':
      return { amr: ['pwd', 'mca'], acr: ACR_BASIC };
    case 'trusted':
      return { amr: ['pwd'], acr: ACR_BASIC };
    case 'passkey:hwk':
    case 'passkey:swk':
      return { amr: [method.slice('passkey:'.length), 'mfa'], acr: ACR_MFA };
    case 'pwd+passkey:hwk':
    case 'pwd+passkey:swk':
      return { amr: ['pwd', method.slice('pwd+passkey:'.length), 'mfa'], acr: ACR_MFA };
  }
}

/** Whether the authorization request (or the interaction's copy of it) asks for ACR_MFA. */
export function requestsStrongSignIn(params: Record<string, unknown>): boolean {
  const values = typeof params.acr_values === 'string' ? params.acr_values.split(' ') : [];
  if (typeof params.claims === 'string') {
    try {
      const acr = (
        JSON.parse(params.claims) as { id_token?: { acr?: { value?: string; values?: string[] } } }
      ).id_token?.acr;
      if (acr?.value) values.push(acr.value);
      if (Array.isArray(acr?.values)) values.push(...acr.values);
    } catch {
      // The provider itself refuses a malformed claims parameter.
    }
  }
  return values.includes(ACR_MFA);
}

/**
 * The provider's interaction policy plus one login check: an app asking for ACR_MFA while the
 * SSO session is only basic gets a new sign-in. Not when that sign-in has just happened in this
 * interaction: what it reached is the answer, and the app reads it in `acr`.
 */
export function interactionPolicyWithStrongSignIn() {
  const policy = interactionPolicy.base();
  policy.get('login')!.checks.add(
    new interactionPolicy.Check(
      'strong_sign_in',
      'the app asks for a strong sign-in',
      (ctx: KoaContextWithOIDC) => {
        const { oidc } = ctx;
        if (oidc.result?.login) return interactionPolicy.Check.NO_NEED_TO_PROMPT;
        if (!requestsStrongSignIn(oidc.params ?? {})) return interactionPolicy.Check.NO_NEED_TO_PROMPT;
        return oidc.acr === ACR_MFA
          ? interactionPolicy.Check.NO_NEED_TO_PROMPT
          : interactionPolicy.Check.REQUEST_PROMPT;
      },
    ),
  );
  return policy;
}
