import { Avatar } from '../../components/avatar.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { useCurrentUser } from '../../features/auth/api/current-user.ts';
import { AuthenticatorSection } from '../../features/auth/components/authenticator-section.tsx';
import { ChangePasswordForm } from '../../features/auth/components/change-password-form.tsx';
import { PasskeysSection } from '../../features/auth/components/passkeys-section.tsx';
import { OwnSessions } from '../../features/auth/components/own-sessions.tsx';
import { TrustedBrowsersSection } from '../../features/auth/components/trusted-browsers-section.tsx';
import { AppPasswords } from '../../features/mail/components/app-passwords.tsx';
import { MySenders } from '../../features/mail/components/my-senders.tsx';
import { DeviceSetup } from '../../features/devices/components/device-setup.tsx';
import { OutOfOfficeCard } from '../../features/out-of-office/components/out-of-office-card.tsx';
import { useEffect, useRef, type ReactNode } from 'react';
import { useLocation, useMatch } from 'react-router';
import { routes } from '../../lib/paths.ts';

/**
 * One card of the profile, named by its heading; `fill`: as tall as the row; `opened`: the page's
 * URL is this card's own (/profile/devices), so it is scrolled to and its heading focused — again
 * at each visit (the navigation's key), also from a link on this page.
 */
function ProfileSection(props: {
  id: string;
  title: string;
  className: string;
  fill?: boolean;
  opened?: string;
  children: ReactNode;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (!props.opened) return;
    heading.current?.scrollIntoView({ block: 'start' });
    heading.current?.focus({ preventScroll: true });
  }, [props.opened]);
  return (
    <section
      // `section-`: the forms inside use `profile-<field>` ids (the password's is profile-password).
      id={`section-${props.id}`}
      className={props.className}
      aria-labelledby={`section-${props.id}-heading`}
    >
      <div className={props.fill ? 'card atrium-card h-100' : 'card atrium-card'}>
        <div className="card-body p-4">
          <h2
            id={`section-${props.id}-heading`}
            ref={heading}
            tabIndex={props.opened ? -1 : undefined}
            // Clear of the fixed header when scrolled to.
            style={props.opened ? { scrollMarginTop: '5rem' } : undefined}
            className="h6 mb-3"
          >
            {props.title}
          </h2>
          {props.children}
        </div>
      </div>
    </section>
  );
}

export default function ProfilePage() {
  const user = useCurrentUser();
  const location = useLocation();
  const devicesOpened = useMatch(routes.profileDevices) !== null ? location.key : undefined;
  return (
    <>
      <PageHeader
        title="Profile"
        description="Your name, e-mail address, password, sign-in with an authenticator app, active sessions, out of office, devices and app passwords for mail."
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
        <ProfileSection id="password" title="Change password" className="col-12 col-lg-5" fill>
          <ChangePasswordForm />
        </ProfileSection>
        <ProfileSection id="sessions" title="Active sessions" className="col-12 col-lg-7" fill>
          <OwnSessions />
        </ProfileSection>
        <ProfileSection id="passkeys" title="Passkeys" className="col-12">
          <PasskeysSection email={user.email} />
        </ProfileSection>
        <ProfileSection id="authenticator" title="Authenticator app" className="col-12">
          <AuthenticatorSection email={user.email} />
        </ProfileSection>
        <ProfileSection id="trusted-browsers" title="Trusted browsers" className="col-12">
          <TrustedBrowsersSection />
        </ProfileSection>
        <ProfileSection id="devices" title="Set up a device" className="col-12" opened={devicesOpened}>
          <DeviceSetup />
        </ProfileSection>
        <ProfileSection id="app-passwords" title="App passwords for mail" className="col-12">
          <AppPasswords email={user.email} />
        </ProfileSection>
        {/* Below the devices: /profile/devices scrolls there at once, and these cards grow as they load. */}
        <ProfileSection id="out-of-office" title="Out of office" className="col-12">
          <OutOfOfficeCard />
        </ProfileSection>
        <ProfileSection id="senders" title="Allowed and blocked senders" className="col-12">
          <MySenders />
        </ProfileSection>
      </div>
    </>
  );
}
