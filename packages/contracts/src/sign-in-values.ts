// Plain values, without zod, so the sign-in page can paint before the schemas have loaded.

/** Length of the e-mailed code (sign-in, sign-up, password reset). */
export const CODE_LENGTH = 6;

/**
 * Why a console sign-in ended back on /login (`/login?error=<code>`). The page shows the message
 * for a known code and the generic one otherwise, so a crafted link cannot put its own words on
 * the sign-in page.
 */
export const SIGN_IN_ERRORS = {
  incomplete: 'The sign-in did not complete. Start again.',
  cancelled: 'The sign-in was cancelled. Start again.',
  account_unavailable: 'This account cannot sign in.',
} as const;
export type SignInErrorCode = keyof typeof SIGN_IN_ERRORS;

export function signInErrorMessage(code: string | null): string {
  return Object.hasOwn(SIGN_IN_ERRORS, code ?? '')
    ? SIGN_IN_ERRORS[code as SignInErrorCode]
    : SIGN_IN_ERRORS.incomplete;
}
