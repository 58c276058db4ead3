import { Avatar } from '../../components/avatar.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { useCurrentUser } from '../../features/auth/api/current-user.ts';
import { AuthenticatorSection } from '../../features/auth/components/authenticator-section.tsx';
import { ChangePasswordForm } from '../../features/auth/components/change-password-form.tsx';
import { PasskeysSection } from '../../features/auth/components/passkeys-section.tsx';
import { OwnSessions } from '../../features/auth/components/own-sessions.tsx';
import { TrustedBrowsersSection } from '../../features/auth/components/trusted-browsers-section.tsx';
import { AppPasswords } from '../../features/mail/components/app-passwords.tsx';

export default function ProfilePage() {
  const user = useCurrentUser();
  return (
    <>
      <PageHeader
        title="Profile"
        description="Your name, e-mail address, password, sign-in with an authenticator app, active sessions and app passwords for mail."
      />
      <div className="card atrium-card mb-4">
        <div className="card-body d-flex align-items-center gap-3 p-4">
          <Avatar text={user.name || user.email} size={56} fontSize={26} />
          <div className="min-w-0">
            <div className="fw-semibold fs-5 text-truncate">{user.name || 'User name'}</div>
            <div className="text-body-secondary text-break">{user.email || 'User email id'}</div>
            {user.organization.name ? (
              <div className="small text-body-secondary text-truncate">{user.organization.name}</div>
            ) : null}
          </div>
        </div>
      </div>
      <div className="row g-4">
        <section className="col-12 col-lg-5" aria-labelledby="profile-password-heading">
          <div className="card atrium-card h-100">
            <div className="card-body p-4">
              <h2 id="profile-password-heading" className="h6 mb-3">
                Change password
              </h2>
              <ChangePasswordForm />
            </div>
          </div>
        </section>
        <section className="col-12 col-lg-7" aria-labelledby="profile-sessions-heading">
          <div className="card atrium-card h-100">
            <div className="card-body p-4">
              <h2 id="profile-sessions-heading" className="h6 mb-3">
                Active sessions
              </h2>
              <OwnSessions />
            </div>
          </div>
        </section>
        <section className="col-12" aria-labelledby="profile-passkeys-heading">
          <div className="card atrium-card">
            <div className="card-body p-4">
              <h2 id="profile-passkeys-heading" className="h6 mb-3">
                Passkeys
              </h2>
              <PasskeysSection email={user.email} />
            </div>
          </div>
        </section>
        <section className="col-12" aria-labelledby="profile-authenticator-heading">
          <div className="card atrium-card">
            <div className="card-body p-4">
              <h2 id="profile-authenticator-heading" className="h6 mb-3">
                Authenticator app
              </h2>
              <AuthenticatorSection email={user.email} />
            </div>
          </div>
        </section>
        <section className="col-12" aria-labelledby="profile-trusted-browsers-heading">
          <div className="card atrium-card">
            <div className="card-body p-4">
              <h2 id="profile-trusted-browsers-heading" className="h6 mb-3">
                Trusted browsers
              </h2>
              <TrustedBrowsersSection />
            </div>
          </div>
        </section>
        <section className="col-12" aria-labelledby="profile-app-passwords-heading">
          <div className="card atrium-card">
            <div className="card-body p-4">
              <h2 id="profile-app-passwords-heading" className="h6 mb-3">
                App passwords for mail
              </h2>
              <AppPasswords email={user.email} />
            </div>
          </div>
        </section>
      </div>
    </>
  );
}
