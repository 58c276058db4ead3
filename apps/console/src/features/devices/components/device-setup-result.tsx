import { DEVICE_LABELS, type DeviceKind, type SetUpDeviceResponse } from '@atrium/contracts/devices';
import { Download, KeyRound } from 'lucide-react';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import { CopyField } from '../../../components/copy-button.tsx';
import { QrCode } from '../../../components/qr-code.tsx';
import { dateTime } from '../../../lib/format-time.ts';

/** What to do with the values, per kind of device. */
const STEPS: Record<DeviceKind, string> = {
  apple:
    'Enter these values in Settings → Mail → Accounts, and in Calendar and Contacts accounts (CalDAV, CardDAV).',
  thunderbird:
    'In Thunderbird, add a mail account with your e-mail address and this password: it finds the servers itself. Calendars and address books are found the same way (New → Calendar or Address Book → CalDAV/CardDAV, with your e-mail address).',
  outlook:
    'In Outlook, add an account with your e-mail address, choose IMAP if asked, and give this password: Outlook finds the servers itself. If it does not, enter the values below.',
  android:
    'In your mail app, add an IMAP account with the values below. For calendars and contacts, add an account in a CalDAV/CardDAV app such as DAVx⁵ with the server address, your user name and this password.',
  other:
    'Enter these values in your mail app (IMAP for reading, SMTP for sending) and in your calendar and contacts apps (CalDAV and CardDAV).',
};

const security = (s: { security: 'SSL' | 'STARTTLS' }) => (s.security === 'SSL' ? 'SSL/TLS' : 'STARTTLS');

/** The set-up just made: shown once, like the app password it holds. */
export function DeviceSetupResult(props: {
  kind: DeviceKind;
  result: SetUpDeviceResponse;
  onDone: () => void;
}) {
  const { kind, result } = props;
  const { settings, profile } = result;
  return (
    <Alert variant="light" className="border mt-4 mb-0" data-testid="device-setup-result">
      <Alert.Heading as="h3" className="h6 d-flex align-items-center gap-2">
        <KeyRound size={18} aria-hidden="true" />
        {result.appPassword.name === DEVICE_LABELS[kind]
          ? result.appPassword.name
          : `${result.appPassword.name} (${DEVICE_LABELS[kind]})`}{' '}
        is ready to set up
      </Alert.Heading>
      <p className="small mb-3">
        An app password named {result.appPassword.name} was made for it. It is shown only now; revoke it under
        App passwords to sign this device out of mail, calendars and contacts.
      </p>
      {profile ? (
        <div className="row g-4 align-items-start mb-3">
          <div className="col-12 col-md-auto text-center">
            <QrCode
              src={profile.qrCode}
              alt="QR code of the configuration profile link, to scan with the iPhone or iPad camera"
            />
          </div>
          <div className="col-12 col-md">
            <ol className="small ps-3 mb-3">
              <li>
                On this iPhone, iPad or Mac: download the profile. On another device: scan the QR code with
                its camera.
              </li>
              <li>
                Open Settings → Profile Downloaded (on a Mac: System Settings → Profiles) and install it.
              </li>
              <li>Mail, Calendar and Contacts are set up with the password inside the profile.</li>
            </ol>
            <a className="btn btn-primary d-inline-flex align-items-center gap-2" href={profile.url}>
              <Download size={16} aria-hidden="true" />
              Download the profile
            </a>
            <p className="small text-body-secondary mt-2 mb-0">
              The link works once, until {dateTime(profile.expiresAt)}.{' '}
              {profile.signed ? null : 'The profile is not signed, so the device shows it as unverified.'}
            </p>
          </div>
        </div>
      ) : (
        <p className="small mb-3">{STEPS[kind]}</p>
      )}
      <details open={!profile}>
        <summary className="small fw-semibold mb-2">
          {profile ? 'Or enter the values by hand' : 'Values'}
        </summary>
        <div className="row g-2">
          <div className="col-12 col-md-6">
            <CopyField id="device-username" label="User name (e-mail address)" value={settings.username} />
          </div>
          <div className="col-12 col-md-6">
            <CopyField id="device-password" label="Password" value={result.password} />
          </div>
          <div className="col-12 col-md-6">
            <CopyField id="device-imap-host" label="Incoming mail (IMAP) server" value={settings.imap.host} />
            <p className="small text-body-secondary mt-n2">
              Port {settings.imap.port}, {security(settings.imap)}
            </p>
          </div>
          <div className="col-12 col-md-6">
            <CopyField id="device-smtp-host" label="Outgoing mail (SMTP) server" value={settings.smtp.host} />
            <p className="small text-body-secondary mt-n2">
              Port {settings.smtp.port}, {security(settings.smtp)}, sign in with the same user name and
              password
            </p>
          </div>
          <div className="col-12">
            <CopyField
              id="device-dav-url"
              label="Calendar and contacts (CalDAV/CardDAV) server"
              value={settings.davUrl}
            />
          </div>
        </div>
      </details>
      <Button variant="outline-secondary" size="sm" onClick={props.onDone}>
        Done
      </Button>
    </Alert>
  );
}
