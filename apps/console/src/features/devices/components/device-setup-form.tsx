import {
  DEVICE_KINDS,
  DEVICE_LABELS,
  setUpDeviceBody,
  type DeviceKind,
  type SetUpDeviceBody,
  type SetUpDeviceResponse,
} from '@atrium/contracts/devices';
import { zodResolver } from '@hookform/resolvers/zod';
import { useEffect, useMemo, useState } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { useForm } from 'react-hook-form';
import type { ApiError } from '../../../lib/api-client.ts';
import { applyServerErrors } from '../../../lib/server-form-errors.ts';
import { ErrorAlert } from '../../auth/components/error-alert.tsx';
import { useAppPasswords } from '../../mail/api/app-passwords.ts';
import { useSetUpDevice } from '../api/device-setup.ts';
import { freeDeviceName } from '../free-name.ts';

/** A name to start from, which the user can change ("iPhone" → "Ada’s iPhone" is theirs to type). */
const SUGGESTED_NAME: Record<DeviceKind, string> = {
  apple: 'iPhone',
  android: 'Android phone',
  thunderbird: 'Thunderbird',
  outlook: 'Outlook',
  other: 'Mail app',
};

/** Picks the kind of device and names it; the set-up comes back once, for `onDone` to show. */
export function DeviceSetupForm({
  onDone,
}: {
  onDone: (kind: DeviceKind, result: SetUpDeviceResponse) => void;
}) {
  const setUp = useSetUpDevice();
  const appPasswords = useAppPasswords();
  // The names already used: a second iPhone is offered "iPhone 2" (issue 42 item 5).
  const taken = useMemo(() => (appPasswords.data ?? []).map((p) => p.name), [appPasswords.data]);
  const suggest = (kind: DeviceKind, names: readonly string[] = taken) =>
    freeDeviceName(SUGGESTED_NAME[kind], names);
  const [failure, setFailure] = useState<ApiError | null>(null);
  const { register, handleSubmit, setError, setValue, getValues, getFieldState, formState, reset } =
    useForm<SetUpDeviceBody>({
      resolver: zodResolver(setUpDeviceBody),
      defaultValues: { kind: 'apple', name: SUGGESTED_NAME.apple },
    });
  const { errors, isSubmitting } = formState;
  // Follow the kind, and the names in use as they arrive, until the user typed a name of their own.
  const follow = (kind: DeviceKind, names?: readonly string[]) => {
    if (!getFieldState('name').isDirty) setValue('name', suggest(kind, names));
  };
  useEffect(() => {
    follow(getValues('kind'), taken);
    // Only when the names in use change; `follow` reads the rest as it is then.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [taken]);
  const kindField = register('kind', {
    onChange: (event: { target: { value: DeviceKind } }) => follow(event.target.value),
  });

  const onSubmit = handleSubmit(async (values) => {
    setFailure(null);
    try {
      const result = await setUp.mutateAsync(values);
      // The next one of the same kind is offered a name this one did not take.
      const kind = getValues('kind');
      reset({ kind, name: suggest(kind, [...taken, result.appPassword.name]) });
      onDone(values.kind, result);
    } catch (error) {
      setFailure(applyServerErrors(error, setError, ['name', 'kind']));
    }
  });

  return (
    <Form noValidate onSubmit={onSubmit} className="atrium-form-narrow">
      <ErrorAlert error={failure} onClose={() => setFailure(null)} />
      <fieldset className="mb-3">
        <legend className="form-label fs-6 mb-1">Device</legend>
        <div className="d-flex flex-wrap gap-2" role="presentation">
          {DEVICE_KINDS.map((kind) => (
            <Form.Check
              key={kind}
              id={`device-kind-${kind}`}
              type="radio"
              value={kind}
              label={DEVICE_LABELS[kind]}
              className="me-3"
              {...kindField}
            />
          ))}
        </div>
        {errors.kind ? <div className="invalid-feedback d-block">{errors.kind.message}</div> : null}
      </fieldset>
      <Form.Group className="mb-3" controlId="device-name">
        <Form.Label>Device name</Form.Label>
        <Form.Control
          {...register('name')}
          autoComplete="off"
          isInvalid={!!errors.name}
          aria-describedby="device-name-help"
        />
        <Form.Control.Feedback type="invalid">{errors.name?.message}</Form.Control.Feedback>
        <Form.Text id="device-name-help">
          The app password made for it carries this name, so you can revoke it if the device is lost.
        </Form.Text>
      </Form.Group>
      <Button type="submit" disabled={isSubmitting}>
        {isSubmitting ? 'Setting up…' : 'Set up'}
      </Button>
    </Form>
  );
}
