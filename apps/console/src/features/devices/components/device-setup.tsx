import type { DeviceKind, SetUpDeviceResponse } from '@atrium/contracts/devices';
import { useState } from 'react';
import { DeviceSetupForm } from './device-setup-form.tsx';
import { DeviceSetupResult } from './device-setup-result.tsx';

/**
 * /profile's "Set up a device": pick the device, get an app password named after it and either
 * an Apple configuration profile or the values to type. Revoking is the app passwords' own.
 */
export function DeviceSetup() {
  const [done, setDone] = useState<{ kind: DeviceKind; result: SetUpDeviceResponse } | null>(null);
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
