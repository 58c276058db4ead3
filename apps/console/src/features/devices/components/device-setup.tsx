import { DEVICES_NOT_SET_UP, type DeviceKind, type SetUpDeviceResponse } from '@atrium/contracts/devices';
import { useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import Spinner from 'react-bootstrap/Spinner';
import { useDeviceSetupStatus } from '../api/device-setup.ts';
import { DeviceSetupForm } from './device-setup-form.tsx';
import { DeviceSetupResult } from './device-setup-result.tsx';

/**
 * /profile's "Set up a device" (also at /profile/devices): pick the device, get an app password
 * named after it and either an Apple configuration profile or the values to type. Revoking is the
 * app passwords' own. While the operator has not set MAIL_HOST nothing is offered: the values
 * would point nowhere (issue 42 item 5).
 */
export function DeviceSetup() {
  const status = useDeviceSetupStatus();
  const [done, setDone] = useState<{ kind: DeviceKind; result: SetUpDeviceResponse } | null>(null);
  if (status.isPending) {
    return <Spinner animation="border" size="sm" role="status" aria-label="Loading device set-up" />;
  }
  if (status.data?.available === false) {
    return (
      <Alert variant="info" className="mb-0" data-testid="devices-not-set-up">
        {DEVICES_NOT_SET_UP}
      </Alert>
    );
  }
  // Status unknown (it failed to load): the form stays, and the server says why if it refuses.
  return (
    <>
      <p className="text-body-secondary small">
        Mail, calendars and contacts on a phone, tablet or computer, with a password made for that device
        only.
      </p>
      <DeviceSetupForm onDone={(kind, result) => setDone({ kind, result })} />
      {done ? <DeviceSetupResult kind={done.kind} result={done.result} onDone={() => setDone(null)} /> : null}
    </>
  );
}
